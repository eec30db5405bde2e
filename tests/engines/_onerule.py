"""Shared plumbing for the one-rule test engines: the reference engine with one rule broken.

Each engine module names the rule(s) it breaks (`RULES`), builds its `Server` with `make_server()`
(so tests/harness/test_blame.py runs the suite against it in process), and serves the protocol
when run as a script. They subclass the reference engine's Hand, or swap one of its functions for
the length of a call, which a compiled (mypyc) install does not allow: like bring_in_option.py,
they always run the pure-Python source beside the tests.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "validator"))

from studcheck import rules  # noqa: E402
from studcheck.engine import Hand, betting, showdown  # noqa: E402
from studcheck.protocol.serve import Server, serve  # noqa: E402

__all__ = ["Hand", "Server", "betting", "forced", "rules", "run", "showdown", "swapped"]


def forced(**values: Any) -> type[Hand]:
    """A Hand that plays these option values whatever new_hand asked for (and hello declared)."""

    class Forced(Hand):
        def __init__(self, *, options: Any, **kwargs: Any) -> None:
            super().__init__(options=dataclasses.replace(options, **values), **kwargs)

    return Forced


@contextmanager
def swapped(module: Any, name: str, replacement: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """`module.name` is `replacement` inside the block (the original is yielded)."""
    original = getattr(module, name)
    setattr(module, name, replacement)
    try:
        yield original
    finally:
        setattr(module, name, original)


def run(make_server: Callable[[], Server]) -> None:
    """Serve the protocol on stdin/stdout (the `__main__` of each engine script)."""
    raise SystemExit(serve(sys.stdin.buffer, sys.stdout.buffer, make_server()))
