"""The HTML conformance report: JSONL run reports -> a model (counts per rule and column) -> one page."""
