"""Row 6: items ranked per second through the evaluation profile, beside the library's own rate in process.

    pip install -r adapters/evaluators/requirements.txt     # into the venv that has studcheck
    python bench/bench_evaluation_profile.py [--repeat 5] [--json out.json]

The batch is the exhaustive high case (14,924 five-card hands: every class twice). For each library
installed here (eval7, phevaluator, treys, pokerkit) and for the reference itself:
- in process: the library's own function on every hand of the batch, the cards already in its type
  (what an author of a program calling it pays);
- through the protocol: one `evaluate` request of the whole batch to its adapter (a subprocess),
  checked by the harness as `studcheck run --profile evaluation` checks it (schema, order, ties),
  the engine started once.
The two are timed in turn, `--repeat` times, and the best of each kept; the ratio (protocol rate over
in-process rate) says how much of the library's speed a conformance run keeps. One run, one machine:
compare ratios, not rates across machines.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from studcheck.evaluate import high_value
from studcheck.evaluation.exhaustive import exhaustive_cases
from studcheck.harness.evaluation import EvaluationRunner
from studcheck.harness.runner import Outcome
from studcheck.protocol.client import EngineClient, SubprocessTransport
from studcheck.protocol.messages import Profile

ROOT = Path(__file__).resolve().parents[1]
ADAPTERS = ROOT / "adapters" / "evaluators"


def in_process(name: str, hands: Sequence[Sequence[str]]) -> Callable[[], None] | None:
    """A function evaluating every hand with the library (cards converted beforehand), or None if absent."""
    try:
        if name == "eval7":
            import eval7

            cards7 = [[eval7.Card(card) for card in hand] for hand in hands]
            evaluate7 = eval7.evaluate
            return lambda: [evaluate7(hand) for hand in cards7] and None
        if name == "phevaluator":
            from phevaluator import evaluate_cards

            ids = [["23456789TJQKA".index(c[0]) * 4 + "cdhs".index(c[1]) for c in hand] for hand in hands]
            return lambda: [evaluate_cards(*hand) for hand in ids] and None
        if name == "treys":
            from treys import Card, Evaluator

            cardst = [[Card.new(card) for card in hand] for hand in hands]
            evaluator = Evaluator()
            return lambda: [evaluator.evaluate(hand, []) for hand in cardst] and None
        if name == "pokerkit":
            from pokerkit import Card as PKCard, StandardHighHand

            cardsp = [[next(PKCard.parse(card)) for card in hand] for hand in hands]
            return lambda: [StandardHighHand.from_game(hand) for hand in cardsp] and None
    except ImportError:
        return None
    return None


ADAPTER = {"eval7": "eval7_eval.py", "phevaluator": "phevaluator_eval.py", "treys": "treys_eval.py", "pokerkit": "pokerkit_eval.py"}


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def measure(repeat: int) -> list[dict[str, Any]]:
    case = next(case for case in exhaustive_cases() if case.id == "EV-ALL-HIGH")
    items = len(case.items)
    rows = []
    from studcheck.cards import parse_cards

    parsed = [parse_cards(hand) for hand in case.hands]
    libraries: list[tuple[str, Callable[[], None] | None, list[str]]] = [
        ("studcheck reference", lambda: [high_value(hand) for hand in parsed] and None, [sys.executable, "-m", "studcheck", "serve"]),
    ]
    for name, adapter in ADAPTER.items():
        libraries.append((name, in_process(name, case.hands), [sys.executable, str(ADAPTERS / adapter)]))
    for name, local, argv in libraries:
        if local is None:
            print(f"{name}: not installed here (pip install -r adapters/evaluators/requirements.txt)", file=sys.stderr)
            continue
        client = EngineClient(functools.partial(SubprocessTransport, argv), profile=Profile.EVALUATION, timeout=60)
        client.start()
        runner = EvaluationRunner(client)
        try:
            assert runner.run(case).outcome is Outcome.PASS, name
            local_seconds, protocol_seconds = [], []
            for _ in range(repeat):  # in turn, so that a busy moment hits both
                local_seconds.append(best(local, 1))
                protocol_seconds.append(best(lambda: runner.run(case), 1))
        finally:
            client.stop()
        local_rate, protocol_rate = items / min(local_seconds), items / min(protocol_seconds)
        rows.append({"library": name, "items": items, "in_process_per_s": round(local_rate),
                     "protocol_per_s": round(protocol_rate), "ratio": round(protocol_rate / local_rate, 3)})
        print(f"| {name} | {local_rate:,.0f} | {protocol_rate:,.0f} | {protocol_rate / local_rate:.3f}x |", flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; batch: EV-ALL-HIGH, best of {args.repeat}")
    print("| library | in process, hands/s | through the protocol, hands/s | ratio |")
    print("|---|--:|--:|--:|")
    rows = measure(args.repeat)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
