#!/usr/bin/env python3
"""Mutation testing of the reference engine against the case suite, through the protocol.

    .venv/bin/python tools/mutation/mutate.py --jobs 2 --json mutation.json --markdown mutation.md

Every mutant (one small change to validator/studcheck/engine/*.py, rules.py or evaluate.py) runs the
whole suite: the installed harness and cases drive `python -m studcheck serve` from a mutated copy
of the package. A mutant some case tells apart is killed; one that passes every case survived,
unless tools/mutation/equivalent.yaml explains why no protocol answer can differ. See docs/mutation.md.

Exit codes: 0 every mutant that ran was killed (or is listed as equivalent), 1 a mutant survived
(or could not be run), 2 usage or configuration error (bad options, bad equivalent.yaml, an
unmutated suite that does not pass).
"""

from __future__ import annotations

import argparse
import random
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import engine_run  # noqa: E402 - after the path set-up above
import mutants  # noqa: E402
import results  # noqa: E402
from mutants import Mutant  # noqa: E402

REPO = HERE.parent.parent
EXIT_OK, EXIT_SURVIVORS, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mutate.py",
        description="Mutation testing of the reference engine: every mutant runs the case suite through the protocol.",
        epilog="Exit codes: 0 every mutant that ran was killed or is listed as equivalent; 1 a survivor not in "
               "equivalent.yaml (or a mutant that could not be run); 2 usage or configuration error.",
    )
    parser.add_argument("--list", action="store_true", help="list the selected mutants (ID, place, operator, change) and exit")
    parser.add_argument("--files", nargs="+", metavar="FILE", help="only these files (e.g. engine/betting.py; a path or a suffix)")
    parser.add_argument("--operator", action="append", metavar="OP", help="only this operator (repeatable; --list-operators)")
    parser.add_argument("--id", action="append", dest="ids", metavar="ID", help="only this mutant (repeatable)")
    parser.add_argument("--sample", type=int, metavar="N", help="a random sample of N of the selected mutants (fixed by --seed)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed of --sample (default 0)")
    parser.add_argument("--changed-first", nargs="?", const="recorded", metavar="REV",
                        help="run first every selected mutant on a line changed since REV (default: the commit of the last "
                             "full run, tools/mutation/last-full-run.txt), then --sample's draw of the rest; with --budget, "
                             "new code is what runs")
    parser.add_argument("--jobs", type=int, metavar="N", help="mutants run at once, each in its own process (default: the cores)")
    parser.add_argument("--budget", type=float, metavar="SECONDS", help="start no mutant after this many seconds; report what ran")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="limit for one mutant's run (default: 5 x the unmutated suite's time, at least 30 s)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write machine-readable results here")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the per-file score table and the survivors here")
    parser.add_argument("--equivalent", type=Path, default=HERE / "equivalent.yaml", metavar="FILE",
                        help="the equivalent mutants (default: tools/mutation/equivalent.yaml)")
    parser.add_argument("--skip-equivalent", action="store_true",
                        help="do not run the selected mutants that equivalent.yaml lists: they survive the suite by "
                             "design (each runs all of it, 10 s or more), and guard.py fuzzes them; only the mutants "
                             "the suite must kill run (CI)")
    parser.add_argument("--stub", action="store_true", help="after the report, print an equivalent.yaml stub for each survivor")
    parser.add_argument("--package", type=Path, default=REPO / "validator" / "studcheck", metavar="DIR",
                        help="the package to mutate (default: validator/studcheck of this checkout)")
    parser.add_argument("--cases", type=Path, metavar="DIR", help="the case files (default: the installed studcheck's cases)")
    parser.add_argument("--list-operators", action="store_true", help="describe the mutation operators and exit")
    parser.add_argument("--rescore", type=Path, metavar="RESULTS.json",
                        help="run nothing: classify the runs saved by an earlier --json again with the current equivalent.yaml "
                             "(mutants are matched by ID) and report")
    parser.add_argument("--check-equivalent", action="store_true",
                        help="run nothing: check that every equivalent.yaml entry still describes today's code (its mutant "
                             "exists, with the recorded file, function, line and description); exit 1 if not")
    parser.add_argument("--update-lines", action="store_true",
                        help="with --check-equivalent: rewrite the recorded line and description of the entries whose mutant "
                             "still exists (same ID: same function and code) and list them; re-read their reasons")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list_operators:
        for name, text in mutants.OPERATORS.items():
            print(f"{name:<12} {text}")
        return EXIT_OK
    for name, value in (("--sample", args.sample), ("--jobs", args.jobs)):
        if value is not None and value < 1:
            return _usage(f"{name} must be at least 1")
    if args.budget is not None and args.budget <= 0:
        return _usage("--budget must be positive")
    if args.operator:
        unknown = sorted(set(args.operator) - set(mutants.OPERATORS))
        if unknown:
            return _usage(f"unknown operator {', '.join(unknown)} (known: {', '.join(mutants.OPERATORS)})")
    package = args.package.resolve()
    if not (package / "engine").is_dir():
        return _usage(f"{package} is not the studcheck package (no engine/ directory)")

    if args.update_lines and not args.check_equivalent:
        return _usage("--update-lines needs --check-equivalent")
    if args.check_equivalent:
        return _check_equivalent(args, package)
    if args.rescore:
        return _rescore(args, package)
    if args.list:
        try:
            everything = mutants.generate(package)
            chosen = _select(everything, args, mutants.target_files(package))
        except ValueError as exc:
            return _usage(str(exc))
        for line in mutants.iter_lines(chosen):
            print(line)
        print(f"{len(chosen)} of {len(everything)} mutants", file=sys.stderr)
        return EXIT_OK
    return _run(args, package, list(argv) if argv is not None else sys.argv[1:])


def _usage(message: str) -> int:
    print(f"mutate.py: {message}", file=sys.stderr)
    return EXIT_USAGE


def _select(everything: list[Mutant], args: argparse.Namespace, files: list[str]) -> list[Mutant]:
    chosen = everything
    if args.files:
        wanted: set[str] = set()
        for given in args.files:
            name = given.replace("\\", "/")
            hits = [f for f in files if name == f or name.endswith("/" + f) or f.endswith("/" + name) or f == name.lstrip("./")]
            if not hits:
                raise ValueError(f"--files {given}: not a mutated file (the files are: {', '.join(files)})")
            wanted.update(hits)
        chosen = [m for m in chosen if m.file in wanted]
    if args.operator:
        chosen = [m for m in chosen if m.operator in set(args.operator)]
    if args.ids:
        known = {m.id for m in everything}
        missing = [i for i in args.ids if i not in known]
        if missing:
            raise ValueError(f"no mutant has the ID {', '.join(missing)}")
        chosen = [m for m in chosen if m.id in set(args.ids)]
    first: list[Mutant] = []
    if getattr(args, "changed_first", None):
        lines = changed_lines(args.changed_first, args.package.resolve(), files)
        first = [m for m in chosen if any(line in lines.get(m.file, ()) for line in range(m.line, m.end_line + 1))]
        chosen = [m for m in chosen if m not in first]
    if args.sample is not None and args.sample < len(chosen):
        picked = set(random.Random(args.seed).sample(range(len(chosen)), max(args.sample - len(first), 0)))
        chosen = [m for index, m in enumerate(chosen) if index in picked]
    return first + chosen


LAST_FULL_RUN = HERE / "last-full-run.txt"


def changed_lines(revision: str, package: Path, files: Sequence[str]) -> dict[str, set[int]]:
    """file -> the line numbers of today's file that differ from `revision` ("recorded": the commit in
    last-full-run.txt), by `git diff -U0`; a file new since then has every line changed."""
    if revision == "recorded":
        revision = LAST_FULL_RUN.read_text(encoding="utf-8").split()[0]
    found: dict[str, set[int]] = {}
    for name in files:
        path = package / name
        done = subprocess.run(["git", "diff", "-U0", "--no-color", revision, "--", str(path)], cwd=REPO,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ValueError(f"--changed-first: git diff against {revision} failed: {done.stderr.strip()}")
        lines: set[int] = set()
        for hunk in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", done.stdout, re.MULTILINE):
            start, count = int(hunk.group(1)), int(hunk.group(2) or 1)
            lines.update(range(start, start + count))
        if lines:
            found[name] = lines
    return found


def _run(args: argparse.Namespace, package: Path, argv_used: list[str]) -> int:
    started = time.monotonic()

    def say(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    try:
        entries = results.load_equivalents(args.equivalent)
    except results.EquivalentError as exc:
        return _usage(str(exc))
    cases_source = args.cases.resolve() if args.cases else engine_run.default_cases_dir()
    if not cases_source.is_dir():
        return _usage(f"--cases {cases_source}: not a directory")

    root = engine_run.scratch_root()
    try:
        # Snapshots: others may edit the engine or the cases while this runs.
        template = engine_run.snapshot_package(package, root / "template")
        cases_dir = engine_run.cases_snapshot(cases_source, root / "cases")
        scratch = root / "scratch"
        scratch.mkdir()
        copy = template / "studcheck"
        files = mutants.target_files(copy)
        everything = mutants.generate(copy, files)
        try:
            chosen = _select(everything, args, files)
        except ValueError as exc:
            return _usage(str(exc))
        matched, stale = results.match_equivalents(entries, everything)
        skipped = [m for m in chosen if m.id in matched] if args.skip_equivalent else []
        chosen = [m for m in chosen if m.id not in matched] if args.skip_equivalent else chosen
        sources = {f: (copy / f).read_text(encoding="utf-8") for f in files}

        config = engine_run.RunConfig(template=str(template), cases=str(cases_dir), scratch=str(scratch))
        try:
            cases = engine_run.cases_from(str(cases_dir))
        except Exception as exc:  # CaseError and friends: the suite itself is broken
            return _usage(f"cannot load the cases: {exc}")
        say(f"unmutated engine: {len(cases)} cases ...")
        baseline = engine_run.run_baseline(config)
        bad = {case_id: outcome for case_id, outcome in baseline.verdicts.items() if outcome in ("fail", "error", "xpass")}
        if baseline.startup or bad or len(baseline.verdicts) != len(cases):
            detail = baseline.detail if baseline.startup else ", ".join(f"{k} ({v})" for k, v in sorted(bad.items())[:10])
            return _usage(f"the unmutated engine does not pass the suite, so mutants cannot be judged: {detail}")
        deadline = args.timeout if args.timeout else max(30.0, 5 * baseline.duration)
        config = engine_run.RunConfig(template=str(template), cases=str(cases_dir), scratch=str(scratch),
                                      deadline=deadline, expected=dict(baseline.verdicts))
        jobs = args.jobs or engine_run.cpu_count()
        say(f"unmutated suite {baseline.duration:.1f} s; {len(chosen)} of {len(everything)} mutants"
            + (f" ({len(skipped)} listed equivalents skipped)" if skipped else "") + f", {jobs} jobs, "
            f"limit {deadline:g} s per mutant" + (f", budget {args.budget:g} s" if args.budget else ""))

        outcome: list[results.MutantResult] = []
        wrong: list[results.MutantResult] = []

        def record(mutant: Mutant, run: engine_run.RunResult) -> None:
            entry = matched.get(mutant.id)
            result = results.classify(mutant, run, entry, sources[mutant.file])
            outcome.append(result)
            if entry is not None and result.status in (engine_run.KILLED, engine_run.TIMEOUT):
                wrong.append(result)
            if result.status in (engine_run.SURVIVED, engine_run.ERROR, engine_run.TIMEOUT):
                say(f"[{len(outcome)}/{len(chosen)}] {result.status} {mutant.id} {mutant.file}:{mutant.line} {mutant.description}")
            elif len(outcome) % 50 == 0:
                say(f"[{len(outcome)}/{len(chosen)}] {time.monotonic() - started:.0f} s")

        def over_budget() -> bool:
            return args.budget is not None and time.monotonic() - started >= args.budget

        not_run = _execute(chosen, config, jobs, record, over_budget)
        report = results.Report(
            results=outcome, generated=len(everything), selected=len(chosen), not_run=not_run, stale=stale,
            skipped_equivalent=len(skipped),
            wrong_equivalents=wrong, baseline_seconds=baseline.duration, deadline=deadline,
            wall_seconds=time.monotonic() - started, jobs=jobs, cases=len(cases),
            command=shlex.join(["python", "tools/mutation/mutate.py", *(argv_used or [])]),
        )
    finally:
        engine_run.remove_tree(root)

    _emit(report, args)
    return report.exit_code()


def _check_equivalent(args: argparse.Namespace, package: Path) -> int:
    """Every entry must still describe the code it was written about (see results.recorded_mismatches)."""
    try:
        entries = results.load_equivalents(args.equivalent)
    except results.EquivalentError as exc:
        return _usage(str(exc))
    everything = mutants.generate(package)
    problems = results.recorded_mismatches(entries, everything)
    if args.update_lines and problems:
        updated = results.update_recorded_lines(args.equivalent, entries, everything)
        for text in updated:
            print(f"updated {text}")
        print(f"{len(updated)} entries got today's line and description: re-read their reasons "
              "(and run tools/mutation/guard.py on them)", file=sys.stderr)
        problems = results.recorded_mismatches(results.load_equivalents(args.equivalent), everything)
    for problem in problems:
        print(problem)
    kinds = {kind: sum(1 for e in entries if e.kind == kind) for kind in results.KINDS}
    print(f"{len(entries)} entries ({', '.join(f'{n} {k}' for k, n in kinds.items())}): "
          + (f"{len(problems)} do not match today's code" if problems else "every one matches today's code"),
          file=sys.stderr)
    return EXIT_SURVIVORS if problems else EXIT_OK


def _rescore(args: argparse.Namespace, package: Path) -> int:
    """Classify an earlier run's results again (after equivalent.yaml changed) without running anything."""
    try:
        entries = results.load_equivalents(args.equivalent)
        saved = results.load_runs(args.rescore)
    except (results.EquivalentError, OSError, ValueError) as exc:
        return _usage(str(exc))
    files = mutants.target_files(package)
    everything = mutants.generate(package, files)
    known = {m.id: m for m in everything}
    matched, stale = results.match_equivalents(entries, everything)
    sources = {f: (package / f).read_text(encoding="utf-8") for f in files}
    outcome: list[results.MutantResult] = []
    missing: list[str] = []
    for mutant_id, run in saved.runs.items():
        mutant = known.get(mutant_id)
        if mutant is None:
            missing.append(mutant_id)
            continue
        outcome.append(results.classify(mutant, run, matched.get(mutant_id), sources[mutant.file]))
    if missing:
        print(f"mutate.py: {len(missing)} saved mutants no longer exist (the code changed): {', '.join(missing[:10])}"
              + (" ..." if len(missing) > 10 else ""), file=sys.stderr)
    wrong = [r for r in outcome if r.equivalent is not None and r.status in (engine_run.KILLED, engine_run.TIMEOUT)]
    report = results.Report(
        results=outcome, generated=len(everything), selected=saved.selected, not_run=saved.not_run, stale=stale,
        wrong_equivalents=wrong, baseline_seconds=saved.baseline_seconds, deadline=saved.deadline,
        wall_seconds=saved.wall_seconds, jobs=saved.jobs, cases=saved.cases, command=saved.command,
    )
    _emit(report, args)
    return report.exit_code()


def _emit(report: results.Report, args: argparse.Namespace) -> None:
    print(results.render_terminal(report))
    if args.stub:
        for result in report.survivors():
            print(results.yaml_stub(result.mutant), end="")
    if args.json:
        results.write_json(report, args.json)
    if args.markdown:
        args.markdown.write_text(results.render_markdown(report), encoding="utf-8")


def _execute(chosen: list[Mutant], config: engine_run.RunConfig, jobs: int,
             record: Callable[[Mutant, engine_run.RunResult], None], over_budget: Callable[[], bool]) -> int:
    """Run the mutants (in-process when jobs is 1); returns how many were not started (budget)."""
    pending = list(reversed(chosen))
    if jobs == 1:
        engine_run.init_worker(config)
        while pending and not over_budget():
            mutant = pending.pop()
            record(mutant, engine_run.run_mutant(mutant, config))
        return len(pending)
    running: dict[Future[engine_run.RunResult], Mutant] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"), initializer=engine_run.init_worker,
                             initargs=(config,)) as pool:
        try:
            while pending or running:
                while pending and len(running) < jobs and not over_budget():
                    mutant = pending.pop()
                    running[pool.submit(engine_run.run_mutant, mutant)] = mutant
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    mutant = running.pop(future)
                    try:
                        run = future.result()
                    except Exception as exc:  # a worker died: report it as an error of the tool
                        run = engine_run.RunResult(status=engine_run.ERROR, detail=f"the worker failed: {exc!r}")
                    record(mutant, run)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return len(pending)


if __name__ == "__main__":
    raise SystemExit(main())
