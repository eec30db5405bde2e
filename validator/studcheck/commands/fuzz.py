"""`studcheck fuzz`: random hands on an engine and on the reference, side by side.

Exit codes: 0 no new divergence (every hand agreed, or diverged only as listed in --known), 1 a
new divergence (a case file is written for each new signature) or the engine broke the protocol,
2 usage error, 3 the engine cannot start or its hello leaves nothing to generate. `--deadline`
passing stops the search with exit code 1. SIGINT, SIGTERM and SIGHUP end the engine's whole
process group and exit with 128 + the signal number (130, 143, 129).
Everything on stdout is a function of the seed and the engine's answers (same seed, same output);
timings go to stderr.
"""

from __future__ import annotations

import argparse
import functools
import json
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studcheck.fuzz.config import DEFAULT_HANDS, DEFAULT_MAX_DIVERGENCES, DEFAULT_OUT, UNBOUNDED, FuzzConfig, Shard
from studcheck.fuzz.known import Known, KnownError, load_known
from studcheck.protocol import stopping
from studcheck.safe_text import terminal_safe
from studcheck.protocol.client import (
    DEFAULT_TIMEOUT,
    Deadline,
    EngineClient,
    EngineError,
    InProcessTransport,
    Stopped,
    SubprocessTransport,
    Transport,
    engine_argv,
    truncate,
)

if TYPE_CHECKING:
    from studcheck.fuzz.census import Finding

EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_ENGINE = 0, 1, 2, 3
__all__ = ["FuzzConfig", "fuzz", "register", "run_fuzz"]  # FuzzConfig lives in config.py; tests import it here


def register(subparsers: Any) -> None:
    fuzz = subparsers.add_parser(
        "fuzz", help="play random hands on an engine and on the reference; shrink a divergence to a case",
        description="Play random hands through the protocol on ENGINE and on the reference engine side by side. "
                    "The first divergence is shrunk to a minimal hand and written as a YAML case. "
                    "Exit 0 all hands agree, 1 divergence or engine misbehaviour, 2 usage, 3 engine cannot start.")
    fuzz.add_argument("--engine", metavar="CMD", required=True, help="the engine command (split like a shell; no shell unless --shell)")
    fuzz.add_argument("--shell", action="store_true", help="run --engine through /bin/sh -c")
    fuzz.add_argument("--hands", type=int, metavar="N",
                      help=f"hands to play (default {DEFAULT_HANDS}; with --duration, at most N)")
    fuzz.add_argument("--duration", type=stopping.duration, metavar="TIME",
                      help="play hands for this long (90s, 10m, 1h), then end normally; instead of --hands or as well")
    fuzz.add_argument("--jobs", type=int, default=1, metavar="N",
                      help="N worker processes, each with its own engine; same results for every N (default 1)")
    fuzz.add_argument("--shard", type=_shard, default=None, metavar="K/N",
                      help="play only hands K, K+N, K+2N, ... (a CI matrix of N machines; merge the --census files)")
    fuzz.add_argument("--census", type=Path, metavar="FILE",
                      help="write the run's census (counts and signatures, JSON) to FILE; `studcheck merge` combines shards'")
    fuzz.add_argument("--seed", type=int, default=0, metavar="S", help="random seed; the same seed plays the same hands (default 0)")
    fuzz.add_argument("--variant", action="append", metavar="V", help="only this variant (repeatable; default: every variant the engine declares)")
    fuzz.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR", help=f"where to write the case (default ./{DEFAULT_OUT})")
    fuzz.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S", help=f"seconds to wait for each answer (default {DEFAULT_TIMEOUT:g})")
    fuzz.add_argument("--shrink-replays", type=int, default=1000, metavar="N",
                      help="each shrinking pass (Hypothesis, then delta debugging) stops after N replays "
                           "of candidate hands (default 1000)")
    fuzz.add_argument("--shrink-time", type=float, default=120.0, metavar="S",
                      help="stop shrinking after S seconds, a safety net that makes the output timing-dependent (default 120)")
    fuzz.add_argument("--keep-going", action="store_true",
                      help="do not stop at the first divergence or engine failure: group them by signature, write one case "
                           "per new signature (a failure: its reproducer; the engine is restarted)")
    fuzz.add_argument("--max-divergences", type=int, metavar="N",
                      help=f"with --keep-going, stop after N new signatures (default {DEFAULT_MAX_DIVERGENCES})")
    fuzz.add_argument("--known", type=Path, metavar="FILE",
                      help="YAML list of {signature, reason}: divergences to count but not report (known deviations)")
    fuzz.add_argument("--write-known", type=Path, metavar="FILE",
                      help="with --keep-going, write every signature of this run to FILE in the --known format")
    fuzz.add_argument("--deadline", type=stopping.duration, metavar="SECONDS",
                      help="stop after this long (600, 10m, 1h30m), exit code 1")
    fuzz.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    fuzz.add_argument("--profile", choices=["hands", "evaluation"], default="hands",
                      help="hands (whole hands, the default) or evaluation (random items ranked in batches against the "
                           "reference's order, spec/evaluation.md); with evaluation, --hands counts items")
    fuzz.add_argument("--kind", action="append", metavar="K", help="with --profile evaluation: only this kind (repeatable)")
    fuzz.add_argument("--batch", type=int, default=1000, metavar="N", help="with --profile evaluation: items per batch (default 1000)")
    fuzz.set_defaults(handler=run_fuzz)


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run_fuzz(args: argparse.Namespace) -> int:
    if args.profile == "evaluation":
        return _fuzz_evaluation(args)
    if args.kind:
        print("studcheck fuzz: --kind is for --profile evaluation", file=sys.stderr)
        return EXIT_USAGE
    hands = args.hands if args.hands is not None else (UNBOUNDED if args.duration else DEFAULT_HANDS)
    if (hands < 1 or args.jobs < 1 or args.timeout <= 0 or args.shrink_time <= 0 or args.shrink_replays < 1
            or (args.max_divergences is not None and args.max_divergences < 1)):
        print("studcheck fuzz: --hands, --jobs, --timeout, --shrink-replays, --shrink-time and --max-divergences "
              "must be positive",
              file=sys.stderr)
        return EXIT_USAGE
    if (args.max_divergences is not None or args.write_known is not None) and not args.keep_going:
        option = "--max-divergences" if args.max_divergences is not None else "--write-known"
        print(f"studcheck fuzz: {option} needs --keep-going (without it the run stops at the first new divergence)",
              file=sys.stderr)
        return EXIT_USAGE
    known: tuple[Known, ...] = ()
    if args.known is not None:
        try:
            known = load_known(args.known)
        except KnownError as exc:
            print(terminal_safe(f"studcheck fuzz: --known: {exc}"), file=sys.stderr)
            return EXIT_USAGE
    try:
        argv = engine_argv(args.engine, shell=args.shell)
    except ValueError as exc:
        print(f"studcheck fuzz: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not argv:
        print("studcheck fuzz: --engine is empty", file=sys.stderr)
        return EXIT_USAGE

    factory: Callable[[], Transport] = functools.partial(SubprocessTransport, argv)  # picklable, for --jobs
    replay = shlex.join(["--engine", args.engine] + (["--shell"] if args.shell else []))
    terminal = sys.stderr.isatty()
    config = FuzzConfig(hands=hands, seed=args.seed, variants=tuple(args.variant or ()), out=args.out,
                        replay_engine=replay, shrink_seconds=args.shrink_time, shrink_replays=args.shrink_replays,
                        progress=not args.no_progress and terminal,
                        progress_lines=not args.no_progress and not terminal, keep_going=args.keep_going,
                        max_divergences=args.max_divergences or DEFAULT_MAX_DIVERGENCES, known=known,
                        known_file=args.known, write_known=args.write_known, jobs=args.jobs,
                        shard=args.shard or Shard(index=1, count=1), duration=args.duration, census=args.census)
    deadline = Deadline.after(args.deadline) if args.deadline else None
    with stopping.watch() as watch:
        code = fuzz(EngineClient(factory, timeout=args.timeout, deadline=deadline), config, out=say)
    return watch.exit_code or code


def _fuzz_evaluation(args: argparse.Namespace) -> int:
    """`--profile evaluation`: the batches of fuzz/evaluation.py (one engine; the hand options do not apply)."""
    from studcheck.evaluation.kinds import Kind
    from studcheck.fuzz.evaluation import EvaluationFuzzConfig, fuzz_evaluation
    from studcheck.protocol.messages import Profile

    unused = [option for option, value in (("--variant", args.variant), ("--jobs", args.jobs != 1), ("--shard", args.shard),
                                           ("--census", args.census), ("--known", args.known), ("--duration", args.duration))
              if value]
    kinds = [kind.value for kind in Kind]
    problem = (f"{unused[0]} is for whole hands, not --profile evaluation" if unused else
               next((f"--kind {value}: not a kind (the kinds: {', '.join(kinds)})" for value in args.kind or () if value not in kinds),
                    None))
    items = args.hands if args.hands is not None else 100_000
    if problem is None and (items < 1 or args.batch < 1 or args.timeout <= 0):
        problem = "--hands, --batch and --timeout must be positive"
    try:
        argv = engine_argv(args.engine, shell=args.shell)
    except ValueError as exc:
        problem = problem or str(exc)
        argv = []
    if problem or not argv:
        print(f"studcheck fuzz: {problem or '--engine is empty'}", file=sys.stderr)
        return EXIT_USAGE
    replay = shlex.join(["--engine", args.engine] + (["--shell"] if args.shell else []))
    config = EvaluationFuzzConfig(items=items, batch=min(args.batch, 20_000), seed=args.seed,
                                  kinds=tuple(Kind(value) for value in args.kind or ()), out=args.out,
                                  keep_going=args.keep_going, replay=replay)
    deadline = Deadline.after(args.deadline) if args.deadline else None
    client = EngineClient(functools.partial(SubprocessTransport, argv), timeout=args.timeout, deadline=deadline,
                          profile=Profile.EVALUATION)
    with stopping.watch() as watch:
        code = fuzz_evaluation(client, config, out=say)
    return watch.exit_code or code


def say(text: str) -> None:
    """Print a line of the fuzzer's output: the engine's name, answers and stderr as visible escapes."""
    print(terminal_safe(text))


def fuzz(client: EngineClient, config: FuzzConfig, *, out: Callable[[str], None] = say,
         reference: EngineClient | None = None) -> int:
    """The whole command on an engine client (tests pass in-process clients); returns the exit code."""
    try:
        import hypothesis  # noqa: F401 - the shrinker needs it
    except ImportError:
        print("studcheck fuzz: needs Hypothesis (pip install hypothesis)", file=sys.stderr)
        return EXIT_USAGE
    from studcheck.fuzz.strategies import Capabilities, CapabilityError
    from studcheck.harness.smoke import diagnose

    try:
        info = client.start()
    except EngineError as exc:
        print(terminal_safe(f"studcheck fuzz: the engine cannot start\n{diagnose(exc)}"), file=sys.stderr)
        return EXIT_ENGINE
    try:
        try:
            caps = Capabilities.from_hello(info, only=config.variants)
        except CapabilityError as exc:
            print(terminal_safe(f"studcheck fuzz: {exc}"), file=sys.stderr)  # the engine's hello
            return EXIT_USAGE if config.variants and "variant" in str(exc) else EXIT_ENGINE
        reference = reference or EngineClient(InProcessTransport, validate=False)
        reference.start()
        try:
            return _session(client, reference, caps, config, out, f"{info.name} {info.version}".strip())
        finally:
            reference.stop(polite=False)
    finally:
        client.stop()


def _session(client: EngineClient, reference: EngineClient, caps: Any, config: FuzzConfig,
             out: Callable[[str], None], engine_name: str) -> int:
    from studcheck.fuzz.play import EngineMisbehaved, ReferenceFailed, Table
    from studcheck.fuzz.report import (Display, report_divergence, report_failure, report_misbehaviour,
                                       report_past_failures, report_signatures, report_summary)
    from studcheck.fuzz.search import SearchConfig, search

    out(_header(config, caps, engine_name))
    table = Table(client)
    display = Display(config.total, bar=config.progress, lines=config.progress_lines)
    written: dict[str, str] = {}
    shrinking = 0.0

    def ready() -> str | None:
        """Restart the engine if it failed, before a case runs on it."""
        try:
            table.ensure_running()
        except EngineMisbehaved as exc:
            if isinstance(exc.error, Stopped):
                raise
            return exc.error.message
        return None

    def on_new(finding: Finding) -> None:
        nonlocal shrinking
        display.clear()
        display.found()
        shrinking += finding.shrunk.seconds if finding.shrunk else 0.0
        report = report_failure if finding.found.failure is not None else report_divergence
        path = report(finding, client, reference, config, engine_name, out, ready)
        if path is not None:
            written[finding.signature.text()] = path

    settings = SearchConfig(hands=config.hands, seed=config.seed, numbers=config.numbers(), duration=config.duration,
                            max_new=config.max_divergences if config.keep_going else 1, known=config.known,
                            shrink_replays=config.shrink_replays, shrink_seconds=config.shrink_seconds)
    started = time.perf_counter()
    try:
        if config.jobs > 1:
            from studcheck.fuzz.pool import PoolSpec, run_pool, shareable

            why = shareable(client.transport_factory)
            if why is not None:
                out(f"studcheck fuzz: --jobs {config.jobs}: {why}")
                return EXIT_USAGE
            spec = PoolSpec(transport=client.transport_factory, timeout=client.timeout, deadline=client.deadline,
                            caps=caps, search=settings, shard=config.shard, workers=config.jobs)
            result = run_pool(spec, progress=display.callbacks(), on_new=on_new)
        else:
            result = search(table, caps, settings, progress=display.callbacks(), on_new=on_new)
    except EngineMisbehaved as exc:
        display.close()
        if isinstance(exc.error, Stopped):  # a signal or the deadline, not the engine's fault
            played = max((exc.hand or 1) - 1, 0)
            where = f"in hand {exc.hand} of {config.total}" if config.total else f"in hand {exc.hand}"
            out(f"studcheck fuzz: {exc.error.message}; stopped after {played} hand{'' if played == 1 else 's'}, "
                f"{where} (seed {config.seed})" + (" while shrinking it" if exc.shrinking else ""))
            return EXIT_FOUND
        report_misbehaviour(exc, config.total, config.seed, out)
        return EXIT_FOUND
    except ReferenceFailed as exc:
        display.close()
        out("studcheck fuzz: internal error: the reference engine failed (a studcheck bug; please report it)")
        out(f"  in hand {exc.hand}{'' if config.total is None else f' of {config.total}'} (seed {config.seed}): {exc.error.message}")
        out(truncate(exc.error.stderr, 4000))
        out(f"  hand setup: {json.dumps(exc.record.setup.request_fields('fuzz'))}")
        return EXIT_FOUND
    finally:
        display.close()
    if result.out_of_time:
        out(f"--duration ({config.duration:g} s) passed: {result.hands} hands played")
    if config.keep_going or config.known_file is not None:
        report_signatures(result, written, out)
    if config.write_known is not None:
        _write_known(config, result, written, engine_name, out)
    report_past_failures(result, config.total, config.seed, out)
    if not result.new:
        report_summary(result, out)
    if config.census is not None:
        _write_census(config, result, written, caps, engine_name, out)
    _speed(result.hands, result.requests, result.seconds, config.jobs)
    if result.new:
        print(f"studcheck fuzz: shrinking took {shrinking:.1f} s ({time.perf_counter() - started:.1f} s in all)",
              file=sys.stderr)
    return EXIT_FOUND if result.new else EXIT_OK


def _header(config: FuzzConfig, caps: Any, engine_name: str) -> str:
    """The first line: what is played. It names neither --jobs nor timings (the output is the same for every N)."""
    mode = f", keep going (at most {config.max_divergences} new signatures)" if config.keep_going else ""
    known = f", {len(config.known)} known signatures from {config.known_file}" if config.known_file else ""
    shard = f" (shard {config.shard.text()}: hands {config.shard.index}, {config.shard.index + config.shard.count}, ...)" \
        if config.shard.count > 1 else ""
    if config.duration is not None:
        count = f"hands for {config.duration:g} s" + (f" (at most {config.hands})" if config.total else "")
    else:
        count = f"{config.hands} hands"
    return (f"studcheck fuzz: engine {engine_name}, seed {config.seed}, {count}{shard} of {', '.join(caps.variants)}"
            f"{mode}{known}")


def _write_census(config: FuzzConfig, result: Any, written: dict[str, str], caps: Any, engine_name: str,
                  out: Callable[[str], None]) -> None:
    from studcheck.fuzz.census import census, write_census

    assert config.census is not None
    data = census(result, engine=engine_name, seed=config.seed, variants=caps.variants,
                  shard=(config.shard.index, config.shard.count), last_hand=config.total, cases=written)
    try:
        write_census(config.census, data)
    except OSError as exc:
        out(f"cannot write {config.census}: {exc.strerror or exc}")
        return
    out(f"wrote the census to {config.census}")


def _write_known(config: FuzzConfig, result: Any, written: dict[str, str], engine_name: str,
                 out: Callable[[str], None]) -> None:
    from studcheck.fuzz.known import write_known

    assert config.write_known is not None
    try:
        count = write_known(config.write_known, result.findings.values(), engine=engine_name, seed=config.seed,
                            hands=result.hands, cases=written)
    except OSError as exc:
        out(f"cannot write {config.write_known}: {exc.strerror or exc}")
        return
    partial = " (the run stopped early: hands not played may show more)" if result.stopped else ""
    out(f"wrote {count} signature{'' if count == 1 else 's'} to {config.write_known}{partial}; "
        f"run with --known {shlex.quote(str(config.write_known))} to count them as known")


def _speed(hands: int, requests: int, seconds: float, jobs: int = 1) -> None:
    rate = hands / seconds if seconds > 0 else 0.0
    workers = f" ({jobs} workers)" if jobs > 1 else ""
    print(f"studcheck fuzz: {hands} hands ({requests} requests) in {seconds:.2f} s: "
          f"{rate:.1f} hands/s through the protocol{workers}", file=sys.stderr)
