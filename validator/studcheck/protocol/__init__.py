"""The JSON Lines protocol between the harness and an engine under test (spec/protocol.md)."""
