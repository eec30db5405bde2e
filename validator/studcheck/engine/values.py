"""The plain values the hand takes and offers: an action, a legal action.

They live apart from state.py so that what reads them (the explanations, the protocol) needs no
Hand to name them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studcheck.rules import ActionType


@dataclass(frozen=True, kw_only=True)
class Action:
    seat: int
    action: ActionType
    amount: int | None = None


@dataclass(frozen=True, kw_only=True)
class LegalAction:
    """One legal action; a pot/no-limit wager allows every amount from `amount` to `top`."""

    action: ActionType
    amount: int | None = None
    top: int | None = None

    def to_json(self) -> dict[str, Any]:
        if self.amount is None:
            return {"action": self.action.value}
        if self.top is not None:
            return {"action": self.action.value, "amount": self.amount, "min": self.amount, "max": self.top}
        return {"action": self.action.value, "amount": self.amount}

    def allows(self, amount: int | None) -> bool:
        """`amount` (a whole number, not a bool) is inside this pot/no-limit range; False for a
        fixed amount, which is compared as it is."""
        if self.top is None or self.amount is None or type(amount) is not int:
            return False
        return self.amount <= amount <= self.top
