"""studcheck: the rules, the conformance suite and the reference validator for Seven Card Stud."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
