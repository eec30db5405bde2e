"""Shared by the at_case_* engines: the reference engine, except in the cases named on its command line.

`python at_case_X.py CASE_ID...` plays every hand as the reference engine does, except the hands whose
new_hand carries one of the CASE_IDs as its `label`: there `misbehave(request, server)` is called in
place of answering the hand's `at`-th request (1 is the new_hand, 2 the first act or state after it);
what it returns, if not None, is sent as the answer. Used to check that a harness blames exactly that
case, restarts the engine and plays the following cases normally.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from _common import serve_with

from studcheck.protocol.serve import Server

Misbehave = Callable[[dict[str, Any], Server], "dict[str, Any] | None"]


def serve_misbehaving(labels: list[str], misbehave: Misbehave, *, at: int = 2) -> int:
    chosen = False  # in a hand labelled with one of `labels`
    count = 0  # requests of the current hand so far

    def hook(request: dict[str, Any], server: Server, number: int) -> dict[str, Any] | None:
        nonlocal chosen, count
        if request.get("type") == "new_hand":
            chosen, count = request.get("label") in labels, 0
        count += 1
        if chosen and count == at:
            return misbehave(request, server)
        return server.handle(request)

    return serve_with(hook)
