"""Scenario files: load (safe YAML + JSON Schema), build the deck, lint, show, coverage.

`load_cases()` is the entry point the harness uses; everything a case asserts is already in the
`Case` objects it returns, in the canonical JSON shapes of the protocol.
"""

from studcheck.cases.load import CaseError, Problem, load_case, load_cases
from studcheck.cases.model import Case, Step, StepKind

__all__ = ["Case", "CaseError", "Problem", "Step", "StepKind", "load_case", "load_cases"]
