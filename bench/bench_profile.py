"""Where the reference engine spends its time: cProfile of the in-process hand loop of bench/run.py.

Usage: python bench/bench_profile.py [--variant stud_high] [--hands 300] [--fold] [--top 30]

Plays the same workload as row 2b of the benchmark (six players, nobody folds, everyone shows)
unless --fold is given (row 2a), and prints the functions sorted by own time and by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hands import studcheck_hand  # noqa: E402
from studcheck.rules import Variant  # noqa: E402


def profile(variant: Variant, hands: int, *, allow_fold: bool, seed: int = 2026) -> pstats.Stats:
    rng = random.Random(seed)
    studcheck_hand(variant, random.Random(seed + 1), allow_fold=allow_fold)  # warm the memo tables
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(hands):
        studcheck_hand(variant, rng, allow_fold=allow_fold)
    profiler.disable()
    return pstats.Stats(profiler, stream=io.StringIO())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--variant", choices=[v.value for v in Variant], default=Variant.STUD_HIGH.value)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--fold", action="store_true", help="random actions with folds (row 2a)")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    stats = profile(Variant(args.variant), args.hands, allow_fold=args.fold)
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        stats.stream = out  # type: ignore[attr-defined]
        stats.sort_stats(order).print_stats(args.top)
        print(f"===== sorted by {order} =====")
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
