"""The reference engine: a seven-card stud state machine with no I/O."""

from studcheck.engine.errors import IllegalAction, Reason
from studcheck.engine.state import Action, Hand, LegalAction

__all__ = ["Action", "Hand", "IllegalAction", "LegalAction", "Reason"]
