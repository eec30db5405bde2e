#!/usr/bin/env python3
"""studcheck `evaluation` adapter for poker-equity (PyPI `poker-equity`, import `poker_equity`).

Run `python poker_equity_eval.py` (not `poker_equity.py`: that name would shadow the library).

poker-equity is an equity engine in Rust; its evaluator is `score_batch(kernel, hands)`, which
"scores a batch of hands against one of the ranking kernels", lower is better, each hand one
string ("AhKhQsQd2c7d9s"). Kernels used: `high` (best five of 5 to 7 cards) for `high`, and
`low_a5` (A-5 lowball) for `razz`. It has no eight-or-better kernel (`stud_hi_lo` exists only
inside its equity simulation), so `low8` is not declared; `deuce_seven` is 2-7 lowball, no stud
kind. It does not refuse other hand sizes: 1 to 4 or 8 cards all score 65535, which ranks
nothing, so `exposed_high` is not declared either. One call scores the whole batch.
"""

from __future__ import annotations

from importlib.metadata import version

from _protocol import CARD_NAMES, Kind, serve
from poker_equity import score_batch

CARDS: dict[str, str] = {name: name for name in CARD_NAMES}  # its notation is the protocol's


def kernel(name: str) -> Kind:
    """A kind scored by one `score_batch` kernel, the whole batch in one call (lower is better)."""
    join = "".join

    def evaluate(hands: list[list[str]]) -> list[int]:
        scores: list[int] = score_batch(name, [join(hand) for hand in hands])
        return scores

    return Kind("lower", evaluate)


if __name__ == "__main__":
    serve("poker-equity", version("poker-equity"), CARDS, {"high": kernel("high"), "razz": kernel("low_a5")})
