"""studcheck speed, side by side with PokerKit, in one run on one machine.

Usage (after `pip install '.[pokerkit]'`, from the repository root):

    python bench/run.py [--quick] [--json out.json] [--seed N]

Measures (docs/benchmarks.md explains each row and its target):
  1. evaluations/s of 7-card high, Razz and 8-or-better hands vs PokerKit (winners cross-checked);
  2. complete random 6-handed fixed-limit hands/s in process, random actions and nobody folding;
  3. the case suite through the protocol vs in process (wall time);
  4. fuzz hands/s through the protocol, as a share of the fuzzer alone (an engine answering at once);
  5. --jobs 2 against --jobs 1: (a) the whole suite, start-up included; (b) fuzz hands/s.

Exit code 0 when the run completed, 1 when the two libraries disagreed on a winner or an engine
lost chips (the numbers are then void), 2 on usage errors. A missed speed target is not a failure
of the script: it is what the table is for.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_commands  # noqa: E402
import bench_evaluation  # noqa: E402
import bench_hands  # noqa: E402
from bench_common import Row, Verdict  # noqa: E402


@dataclass(frozen=True, kw_only=True)
class Config:
    evaluation: bench_evaluation.EvalConfig
    hands: bench_hands.HandConfig
    commands: bench_commands.CommandConfig


def full_config(seed: int) -> Config:
    """About 6 minutes on a 2-vCPU VM (371 s on 2026-12-08)."""
    return Config(
        evaluation=bench_evaluation.EvalConfig(hands=100_000, pokerkit_hands=8_000, repeat=3, seed=seed),
        hands=bench_hands.HandConfig(studcheck_hands=3_000, pokerkit_hands=600, repeat=5, seed=seed),
        commands=bench_commands.CommandConfig(repeat=3, fuzz_hands=2_000, fuzz_repeat=2),
    )


def quick_config(seed: int) -> Config:
    """About 50 s: fewer hands, fewer repeats; ratios are noisier."""
    return Config(
        evaluation=bench_evaluation.EvalConfig(hands=20_000, pokerkit_hands=1_500, repeat=2, seed=seed),
        hands=bench_hands.HandConfig(studcheck_hands=600, pokerkit_hands=120, repeat=2, seed=seed),
        commands=bench_commands.CommandConfig(repeat=1, fuzz_hands=300),
    )


def pokerkit_version() -> str | None:
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("pokerkit")
    except PackageNotFoundError:
        return None


def compiled_modules() -> list[str]:
    """studcheck modules installed as compiled extensions (mypyc, `STUDCHECK_COMPILE=1`; setup.py).

    Python imports an extension module in preference to the .py file beside it, so a module
    whose extension file is present is the compiled one.
    """
    from importlib.machinery import EXTENSION_SUFFIXES

    import studcheck

    package = Path(studcheck.__file__).resolve().parent
    found = set()
    for path in package.rglob("*"):
        # The most specific suffix first: `state.cpython-311-x86_64-linux-gnu.so`, not `….so`.
        suffix = next((s for s in EXTENSION_SUFFIXES if path.name.endswith(s)), None)
        if suffix is not None:
            name = path.relative_to(package.parent).as_posix().removesuffix(suffix).replace("/", ".")
            found.add(name.removesuffix(".__init__"))
    return sorted(found)


def machine() -> dict[str, Any]:
    """Python, CPU model (from /proc/cpuinfo where there is one), cores and load."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from studcheck import __version__

    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "studcheck": __version__,
        "compiled": compiled_modules(),
        "pokerkit": pokerkit_version(),
    }


def measure(config: Config, *, progress: bool = True) -> list[Row]:
    with_pokerkit = pokerkit_version() is not None

    def say(text: str) -> None:
        if progress:
            print(f"... {text}", file=sys.stderr, flush=True)

    say("hand evaluation")
    rows = bench_evaluation.measure(config.evaluation, with_pokerkit=with_pokerkit)
    say("complete hands in process")
    rows += bench_hands.measure(config.hands, with_pokerkit=with_pokerkit)
    say("case suite: in process and through the protocol")
    rows.append(bench_commands.suite_row(config.commands))
    pokerkit_random = [float(row.extra["pokerkit_hands_per_s"]) for row in rows
                       if row.key.startswith("hands.random.") and row.extra.get("pokerkit_hands_per_s")]
    # The strictest reading of "PokerKit's hand rate": its fastest variant.
    say("fuzzing through the protocol")
    rows.append(bench_commands.fuzz_row(config.commands, max(pokerkit_random, default=None), config.hands.seed))
    if progress:
        print("measuring --jobs 2 against --jobs 1 (run, fuzz) ...", file=sys.stderr)
    rows.append(bench_commands.run_jobs_row(config.commands))
    rows.append(bench_commands.fuzz_jobs_row(config.commands, config.hands.seed))
    return rows


def _number(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "s":
        return f"{value:.2f} s"
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def _ratio(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}x"
    return f"{value:.1f}x" if value >= 1 else f"{value:.3f}x"


def table(rows: Sequence[Row]) -> str:
    """A Markdown table (readable on a terminal too)."""
    head = "| # | measurement | unit | studcheck | reference | ratio | target | verdict | notes |"
    lines = [head, "|---|---|---|--:|--:|--:|---|---|---|"]
    groups = {"eval": "1", "hands": "2", "suite": "3", "fuzz": "4", "jobs.run": "5a", "jobs.fuzz": "5b"}
    for row in rows:
        group = groups[row.key] if row.key in groups else groups[row.key.split(".")[0]]
        if row.key.startswith("hands."):
            group += "a" if ".random." in row.key else "b"
        reference = _number(row.other, row.unit) + ("" if row.other is None else f" ({row.other_name})")
        ratio = "—" if row.ratio is None else _ratio(row.ratio)
        lines.append(f"| {group} | {row.label} | {row.unit} | {_number(row.studcheck, row.unit)} | {reference} "
                     f"| {ratio} | {row.target} | **{row.verdict.value}** | {row.note} |")
    return "\n".join(lines)


def header(info: dict[str, Any], quick: bool, seconds: float) -> str:
    load = info["load_average"]
    load_text = ", ".join(f"{x:.2f}" for x in load) if load else "n/a"
    compiled = info["compiled"]
    compiled_text = f"compiled: yes ({len(compiled)} modules, mypyc)" if compiled else "compiled: no (pure Python)"
    return (f"studcheck {info['studcheck']} ({compiled_text}) vs PokerKit {info['pokerkit'] or '(not installed)'}; "
            f"{info['implementation']} {info['python']}; {info['cpu']}, {info['cores']} cores; "
            f"load average before the run {load_text}; {'--quick' if quick else 'full'} run took {seconds:.0f} s")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python bench/run.py", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (under 30 s); noisier ratios")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows and the machine as JSON")
    parser.add_argument("--seed", type=int, default=2026, help="seed of hands, decks and decisions (default 2026)")
    return parser.parse_args(argv)


def run(config: Config, *, quick: bool, json_path: Path | None, progress: bool = True) -> int:
    info = machine()
    start = time.perf_counter()
    rows = measure(config, progress=progress)
    seconds = time.perf_counter() - start
    print(header(info, quick, seconds))
    print()
    print(table(rows))
    if json_path is not None:
        payload = {"machine": info, "quick": quick, "seconds": seconds, "rows": [row.to_json() for row in rows]}
        json_path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    wrong = [row.key for row in rows if row.verdict is Verdict.WRONG]
    if wrong:
        print(f"\nWRONG rows (the libraries disagree or a command failed; numbers void): {', '.join(wrong)}")
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    config = quick_config(args.seed) if args.quick else full_config(args.seed)
    try:
        return run(config, quick=args.quick, json_path=args.json)
    except (bench_hands.ChipsNotConserved, AssertionError) as exc:
        print(f"WRONG: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
