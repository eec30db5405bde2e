#!/usr/bin/env python3
"""The guard of equivalent.yaml: every mutant listed as equivalent is fuzzed against the reference.

    .venv/bin/python tools/mutation/guard.py --jobs 2                              # every entry
    .venv/bin/python tools/mutation/guard.py --sample 12 --seed 1 --hands 10 --jobs 2   # the CI sample

An entry of kind `equivalent` claims that no protocol answer can differ. The case suite cannot check
that claim (the mutant passes every case: that is why it is listed), and a reason written for the
code of its day can stop being true when the code around it grows (pot and no limit made a
"cannot be reached" branch reachable). So each such mutant is played against the in-process
reference by the fuzzer (validator/studcheck/fuzz: the same hands, every answer compared): `--hands`
generated hands for each variant and each betting structure (4 x 3), fixed by `--seed`. The mutant
runs as `python -m studcheck serve` from a patched copy of the package, exactly as in mutate.py. A
mutant whose answers ever differ from the reference's (or that crashes, hangs or answers `hello`
differently) is an entry that lies: exit 1, with the hand and the first difference.

`spec_permitted` entries are not fuzzed: their behaviour differs by design (and the fuzzer never
writes the `100.0` numbers they are about).

Exit codes: 0 every fuzzed mutant agreed with the reference on every hand; 1 one diverged (or could
not be run); 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import engine_run  # noqa: E402 - after the path set-up above
import mutants  # noqa: E402
import results  # noqa: E402
from mutants import Mutant  # noqa: E402
from studcheck.fuzz.play import EngineMisbehaved, ReferenceFailed, Table, describe_step  # noqa: E402
from studcheck.fuzz.search import SearchConfig, search  # noqa: E402
from studcheck.fuzz.strategies import Capabilities  # noqa: E402
from studcheck.protocol.client import (Deadline, EngineClient, EngineError, InProcessTransport,  # noqa: E402
                                       SubprocessTransport)
from studcheck.rules import Betting, Variant  # noqa: E402

REPO = HERE.parent.parent
EXIT_OK, EXIT_DIVERGED, EXIT_USAGE = 0, 1, 2
HELD, DIVERGED, ERROR = "held", "diverged", "error"
#: Every variant under every betting structure: the hands of one mutant are spread over all twelve.
COMBOS: tuple[tuple[str, str], ...] = tuple((variant.value, betting.value) for variant in Variant for betting in Betting)
DEFAULT_HANDS = 25  # per combination: 300 hands a mutant
REQUEST_TIMEOUT = 5.0


@dataclass(frozen=True, kw_only=True)
class GuardConfig:
    """Everything a worker needs; plain data so it crosses to spawned processes."""

    template: str  # a directory holding the pristine package copy as `studcheck/`
    scratch: str
    seed: int
    hands: int  # per (variant, betting) combination
    deadline: float  # seconds for one mutant's whole run


@dataclass(frozen=True, kw_only=True)
class GuardResult:
    id: str
    status: str  # held | diverged | error
    hands: int = 0  # hands played and compared
    detail: str = ""
    combo: str = ""  # variant/betting of the divergent hand
    hand: int | None = None  # its number (fixed by --seed): `--id ID --seed S` replays it
    seconds: float = 0.0


def _caps(base: Capabilities, variant: str, betting: str) -> Capabilities:
    """The reference's capabilities narrowed to one variant and one betting structure."""
    return Capabilities(variants=(variant,), options={**base.options, "betting": (betting,)})


def _reference_caps() -> tuple[Capabilities, object]:
    client = EngineClient(InProcessTransport, validate=False)
    info = client.start()
    client.stop(polite=False)
    return Capabilities.from_hello(info), info


def fuzz_mutant(mutant: Mutant, config: GuardConfig) -> GuardResult:
    """Play the mutant against the reference: config.hands hands of every combination, stopping at
    the first hand whose answers differ."""
    started = time.monotonic()
    try:
        workdir = engine_run.make_mutant_copy(Path(config.template), Path(config.scratch), mutant)
    except (OSError, ValueError) as exc:
        return GuardResult(id=mutant.id, status=ERROR, detail=str(exc))
    try:
        return _play(mutant, workdir, config, started)
    finally:
        engine_run.remove_tree(workdir)


def _play(mutant: Mutant, workdir: Path, config: GuardConfig, started: float) -> GuardResult:
    base, reference_info = _reference_caps()
    factory = functools.partial(SubprocessTransport, engine_run.engine_command(workdir))
    client = EngineClient(factory, timeout=REQUEST_TIMEOUT, deadline=Deadline.after(config.deadline))

    def result(status: str, detail: str = "", **more: object) -> GuardResult:
        return GuardResult(id=mutant.id, status=status, detail=engine_run._clip(detail), seconds=time.monotonic() - started,
                           **more)  # type: ignore[arg-type]

    try:
        info = client.start()
    except EngineError as exc:
        return result(DIVERGED, f"the mutant does not start: {exc.problem.value}: {exc.message}")
    played = 0
    try:
        if info != reference_info:
            return result(DIVERGED, f"hello differs: reference {reference_info}, mutant {info}")
        table = Table(client)
        for index, (variant, betting) in enumerate(COMBOS):
            first = index * config.hands + 1
            search_config = SearchConfig(hands=first + config.hands - 1, seed=config.seed,
                                         numbers=range(first, first + config.hands), max_new=1)
            found = search(table, _caps(base, variant, betting), search_config, claim=lambda signature, number: False,
                           listen_at_end=False)
            played += found.hands
            if found.findings:
                finding = next(iter(found.findings.values()))
                record = finding.found
                if record.failure is not None:
                    what = f"the mutant broke the protocol: {record.failure.error.problem.value}: {record.failure.error.message}"
                else:
                    assert record.divergence is not None
                    what = f"{describe_step(record, record.divergence.exchange)}: {record.divergence.first.describe()}"
                return result(DIVERGED, what, hands=played, combo=f"{variant}/{betting}", hand=finding.found_at)
    except EngineMisbehaved as exc:
        return result(DIVERGED, f"the mutant could not be played on: {exc.error.message}", hands=played)
    except ReferenceFailed as exc:
        return result(ERROR, f"the reference failed (a studcheck bug): {exc.error.message}", hands=played)
    finally:
        client.stop(polite=False)
    return result(HELD, f"{played} hands agreed", hands=played)


# --- the command --------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="guard.py",
        description="Fuzz every mutant that equivalent.yaml lists as equivalent against the reference engine: "
                    "an entry whose mutant answers any request differently is wrong.",
        epilog="Exit codes: 0 every fuzzed mutant agreed on every hand; 1 one diverged (or could not be run); 2 usage error.",
    )
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, metavar="N",
                        help=f"hands per variant and betting structure (x {len(COMBOS)} a mutant; default {DEFAULT_HANDS})")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the hands and of --sample (default 0)")
    parser.add_argument("--sample", type=int, metavar="N", help="a sample of N of the listed mutants (fixed by --seed)")
    parser.add_argument("--id", action="append", dest="ids", metavar="ID", help="only this mutant (repeatable)")
    parser.add_argument("--files", nargs="+", metavar="FILE", help="only mutants of these files (e.g. engine/betting.py)")
    parser.add_argument("--jobs", type=int, metavar="N", help="mutants fuzzed at once, each in its own process (default: the cores)")
    parser.add_argument("--budget", type=float, metavar="SECONDS", help="start no mutant after this many seconds; report what ran")
    parser.add_argument("--deadline", type=float, default=600.0, metavar="SECONDS",
                        help="limit for one mutant's hands (default 600; a mutant that needs longer counts as diverged)")
    parser.add_argument("--equivalent", type=Path, default=HERE / "equivalent.yaml", metavar="FILE",
                        help="the equivalent mutants (default: tools/mutation/equivalent.yaml)")
    parser.add_argument("--package", type=Path, default=REPO / "validator" / "studcheck", metavar="DIR",
                        help="the package to mutate (default: validator/studcheck of this checkout)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every mutant's result here")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    for name, value in (("--hands", args.hands), ("--sample", args.sample), ("--jobs", args.jobs)):
        if value is not None and value < 1:
            return _usage(f"{name} must be at least 1")
    if (args.budget is not None and args.budget <= 0) or args.deadline <= 0:
        return _usage("--budget and --deadline must be positive")
    package = args.package.resolve()
    if not (package / "engine").is_dir():
        return _usage(f"{package} is not the studcheck package (no engine/ directory)")
    try:
        entries = results.load_equivalents(args.equivalent)
    except results.EquivalentError as exc:
        return _usage(str(exc))
    started = time.monotonic()

    def say(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    root = engine_run.scratch_root()
    try:
        template = engine_run.snapshot_package(package, root / "template")
        (root / "scratch").mkdir()
        copy = template / "studcheck"
        everything = mutants.generate(copy, mutants.target_files(copy))
        matched, _ = results.match_equivalents(entries, everything)
        listed = [m for m in everything if m.id in matched and not matched[m.id].permitted]
        try:
            chosen = _select(listed, everything, args)
        except ValueError as exc:
            return _usage(str(exc))
        permitted = sum(1 for entry in matched.values() if entry.permitted)
        config = GuardConfig(template=str(template), scratch=str(root / "scratch"), seed=args.seed, hands=args.hands,
                             deadline=args.deadline)
        jobs = args.jobs or engine_run.cpu_count()
        say(f"{len(chosen)} of the {len(listed)} mutants listed as equivalent ({permitted} spec_permitted not fuzzed); "
            f"{args.hands} hands x {len(COMBOS)} variant/structure combinations each, seed {args.seed}, {jobs} jobs")
        outcome: list[GuardResult] = []

        def record(result: GuardResult) -> None:
            outcome.append(result)
            if result.status != HELD:
                say(f"[{len(outcome)}/{len(chosen)}] {result.status.upper()} {result.id}: {result.detail}")
            elif len(outcome) % 10 == 0:
                say(f"[{len(outcome)}/{len(chosen)}] {time.monotonic() - started:.0f} s")

        def over_budget() -> bool:
            return args.budget is not None and time.monotonic() - started >= args.budget

        not_run = _execute(chosen, config, jobs, record, over_budget)
    finally:
        engine_run.remove_tree(root)

    by_id = {m.id: m for m in chosen}
    bad = [r for r in outcome if r.status != HELD]
    for r in sorted(bad, key=lambda r: r.id):
        m = by_id[r.id]
        entry = matched[r.id]
        where = f"{r.combo} hand {r.hand}: " if r.hand is not None else ""
        print(f"{r.status.upper()} {m.id}  {m.file}:{m.line}  {m.function}  [{m.operator}]  {m.description}\n"
              f"  equivalent.yaml:{entry.line_no} claims: {entry.reason[:160]}{'…' if len(entry.reason) > 160 else ''}\n"
              f"  {where}{r.detail}\n"
              f"  replay: python tools/mutation/guard.py --id {m.id} --seed {args.seed} --hands {args.hands} --jobs 1")
    hands = sum(r.hands for r in outcome)
    wall = time.monotonic() - started
    print(f"{len(outcome)} listed-equivalent mutants fuzzed, {hands} hands in all, {wall:.0f} s with {jobs} jobs: "
          f"{len(outcome) - len(bad)} agreed with the reference on every hand, "
          f"{sum(r.status == DIVERGED for r in bad)} diverged, {sum(r.status == ERROR for r in bad)} errors"
          + (f"; budget: {not_run} of {len(chosen)} not started" if not_run else ""))
    if args.json:
        args.json.write_text(json.dumps({
            "command": shlex.join(["python", "tools/mutation/guard.py", *(argv if argv is not None else sys.argv[1:])]),
            "seed": args.seed, "hands_per_combination": args.hands, "combinations": [f"{v}/{b}" for v, b in COMBOS],
            "listed": len(listed), "selected": len(chosen), "not_run_budget": not_run, "wall_seconds": round(wall, 1),
            "jobs": jobs, "results": [asdict(r) for r in sorted(outcome, key=lambda r: r.id)],
        }, indent=1) + "\n", encoding="utf-8")
    return EXIT_DIVERGED if bad else EXIT_OK


def _usage(message: str) -> int:
    print(f"guard.py: {message}", file=sys.stderr)
    return EXIT_USAGE


def _select(listed: list[Mutant], everything: list[Mutant], args: argparse.Namespace) -> list[Mutant]:
    chosen = listed
    if args.files:
        files = sorted({m.file for m in everything})
        wanted = {f for f in files for given in args.files if given.replace("\\", "/").endswith(f) or f.endswith(given)}
        if not wanted:
            raise ValueError(f"--files: none of {', '.join(args.files)} is a mutated file ({', '.join(files)})")
        chosen = [m for m in chosen if m.file in wanted]
    if args.ids:
        known = {m.id for m in everything}
        missing = [i for i in args.ids if i not in known]
        if missing:
            raise ValueError(f"no mutant has the ID {', '.join(missing)}")
        chosen = [m for m in everything if m.id in set(args.ids)]  # listed or not: --id fuzzes any mutant
    if args.sample is not None and args.sample < len(chosen):
        picked = set(random.Random(args.seed).sample(range(len(chosen)), args.sample))
        chosen = [m for index, m in enumerate(chosen) if index in picked]
    return chosen


def _execute(chosen: list[Mutant], config: GuardConfig, jobs: int, record: Callable[[GuardResult], None],
             over_budget: Callable[[], bool]) -> int:
    """Fuzz the mutants (in this process when jobs is 1); returns how many were not started (budget)."""
    pending = list(reversed(chosen))
    if jobs == 1:
        while pending and not over_budget():
            record(fuzz_mutant(pending.pop(), config))
        return len(pending)
    running: dict[Future[GuardResult], Mutant] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        try:
            while pending or running:
                while pending and len(running) < jobs and not over_budget():
                    mutant = pending.pop()
                    running[pool.submit(fuzz_mutant, mutant, config)] = mutant
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    mutant = running.pop(future)
                    try:
                        result = future.result()
                    except Exception as exc:  # a worker died: an error of the tool
                        result = GuardResult(id=mutant.id, status=ERROR, detail=f"the worker failed: {exc!r}")
                    record(result)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return len(pending)


if __name__ == "__main__":
    raise SystemExit(main())
