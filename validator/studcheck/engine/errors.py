"""Why an action is refused: a closed list of reason codes.

Engines are compared on these codes, so they are few and each has one meaning. The order of the
enum is the order in which they are checked when several apply.
"""

from __future__ import annotations

from enum import Enum


class Reason(str, Enum):
    HAND_OVER = "hand_over"  # the hand is complete
    UNKNOWN_SEAT = "unknown_seat"  # no player sits in that seat
    OUT_OF_TURN = "out_of_turn"  # another seat is to act (folded seats are never to act)
    ILLEGAL_ACTION = "illegal_action"  # that kind of action is not allowed now
    RAISE_CAP_REACHED = "raise_cap_reached"  # a raise after the bet and all allowed raises
    BETTING_NOT_REOPENED = "betting_not_reopened"  # a raise by a player a short all-in did not reopen
    INVALID_AMOUNT = "invalid_amount"  # the right kind of action with a wrong amount


class IllegalAction(Exception):
    """An action the rules do not allow; the hand is left exactly as it was."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.message = message
