"""The conformance harness: run cases against an engine, compare, report (spec/protocol.md)."""
