"""The reference engine: a seven-card stud state machine with no I/O."""

from studcheck.engine.errors import IllegalAction, Reason
from studcheck.engine.state import Hand
from studcheck.engine.values import Action, LegalAction

__all__ = ["Action", "Hand", "IllegalAction", "LegalAction", "Reason"]
