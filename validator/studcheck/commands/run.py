"""`studcheck serve | run | smoke`: argument parsing and exit codes for engine authors.

Exit codes of `run`: 0 every applicable case passed (expected failures allowed), 1 a case failed,
errored or unexpectedly passed, 2 usage or configuration error (including a run in which no
selected case applied to the engine: nothing was checked), 3 the engine cannot start or
fails the handshake. Counts are never exit codes. `--deadline` passing is exit code 1 (the case in
progress and the cases left are errors, problem `deadline`).

Signals: on SIGINT (Ctrl-C), SIGTERM or SIGHUP, `run` and `smoke` end the engine's whole process
group (SIGTERM, half a second, SIGKILL), `run` closes its reports (the case in progress and the
cases left are errors with the problem `interrupted`; the footer's `interrupted` names the
signal), and both exit with 128 + the signal number: 130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP).
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from studcheck.harness.groups import group_verdicts
from studcheck.harness.parallel import Shard, Workers, default_jobs, engines_for, positive_jobs
from studcheck.harness.report import (
    FAILING,
    ReportWriter,
    Stopped,
    Style,
    annotate_cases,
    case_line,
    footer_line,
    group_lines,
    header_line,
    now_iso,
    render_markdown,
    render_terminal,
)
from studcheck.harness.runner import Outcome, Runner, Verdict
from studcheck.harness.smoke import diagnose, run_smoke
from studcheck.harness.xfail import ConfigError, apply_xfail, load_xfail, write_xfail
from studcheck.protocol import stopping
from studcheck.protocol.messages import Profile
from studcheck.safe_text import terminal_safe
from studcheck.protocol.client import (
    DEFAULT_TIMEOUT,
    Deadline,
    EngineClient,
    EngineError,
    InProcessTransport,
    SubprocessTransport,
    Transport,
    engine_argv,
    reference_argv,
)

EXIT_OK, EXIT_FAIL, EXIT_CONFIG, EXIT_ENGINE = 0, 1, 2, 3


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser("serve", help="run the reference engine on stdin/stdout (protocol v1)",
                                  description="Speak protocol v1 on stdin/stdout as the reference engine.")
    serve.set_defaults(handler=_serve)

    run = subparsers.add_parser("run", help="run the conformance cases against an engine",
                                description="Run the conformance cases against an engine (default: the reference engine).")
    _engine_arguments(run)
    run.add_argument("--in-process", action="store_true", help="run the reference engine in this process (no subprocess)")
    run.add_argument("--no-cache", action="store_true", default=argparse.SUPPRESS,  # the command line's own flag (cli.py)
                     help="read every case file afresh, not from the cache of loaded cases (also: STUDCHECK_NO_CACHE=1)")
    run.add_argument("--cases", nargs="+", action="extend", metavar="PATH", help="case files or directories (default: the bundled suite); linted first: any problem "
                     "`studcheck lint` reports stops the run with exit 2")
    run.add_argument("--variant", action="append", metavar="V", help="only this variant (repeatable)")
    run.add_argument("--rule", action="append", metavar="ID", help="only cases testing this rule ID or rule ID prefix (repeatable)")
    run.add_argument("--tag", action="append", metavar="T", help="only cases with this tag (repeatable)")
    run.add_argument("--id", action="append", metavar="ID", dest="ids", help="only this case (repeatable)")
    run.add_argument("--xfail", type=Path, metavar="FILE", help="expected-failure file (YAML list of {id, reason})")
    run.add_argument("--report", type=Path, metavar="FILE.jsonl", help="write the JSON Lines report here")
    run.add_argument("--junit", type=Path, metavar="FILE.xml", help="write a JUnit XML report here")
    run.add_argument("--markdown", type=Path, metavar="FILE.md", help="append a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)")
    run.add_argument("--html", type=Path, metavar="DIR", help="write the HTML report of this run to DIR/index.html "
                     "(as `studcheck report` does from --report files)")
    run.add_argument("--rulebook", metavar="URL", type=_rulebook_base, help="with --html: where the `studcheck rulebook` site is "
                     "(a URL, or a path relative to DIR such as ../rulebook/); every rule ID on the page links to its section there")
    run.add_argument("--write-xfail", type=Path, metavar="FILE", help="write every failing case of this run to FILE as an expected-failure "
                     "file (its cause as the reason), for --xfail next time")
    run.add_argument("--maxfail", type=int, metavar="N", help="stop after N failing cases (the reports still close)")
    run.add_argument("-x", "--exitfirst", action="store_const", const=1, dest="maxfail", help="stop at the first failing case (--maxfail 1)")
    run.add_argument("--deadline", type=stopping.duration, metavar="SECONDS", help="end the run after this long (600, 10m, 1h30m): "
                     "the case in progress and the cases left are errors (`deadline`), exit code 1")
    run.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    run.add_argument("--jobs", "-j", type=positive_jobs, metavar="N", help="run N engine processes at once (default: auto, the number of "
                     "cores; 1 for an engine whose hello says \"parallel\": false); the reports are the same as with --jobs 1")
    run.add_argument("--shard", type=Shard.parse, metavar="K/N", help="run only shard K of N of the selected cases (every Nth case "
                     "from the Kth), e.g. one job of a CI matrix; `studcheck merge` joins the shards' --report files")
    run.add_argument("--profile", choices=[profile.value for profile in Profile], default=Profile.HANDS.value,
                     help="what the engine is asked: hands (whole hands, protocol.md; the default) or evaluation "
                     "(batches of hands to rank, spec/evaluation.md: for hand evaluators)")
    run.add_argument("--kind", action="append", metavar="K", help="with --profile evaluation: only this kind (high, razz, low8, "
                     "exposed_high, exposed_low, bring_in, bring_in_razz; repeatable)")
    run.add_argument("--exhaustive", action="store_true", help="with --profile evaluation: also every five-card class and "
                     "every board and door card, in order, one batch per kind (spec/evaluation.md section 5)")
    run.set_defaults(handler=_run)

    from studcheck.commands import merge

    merge.register(subparsers)

    smoke = subparsers.add_parser("smoke", help="check that an engine adapter speaks the protocol",
                                  description="Handshake and one short hand; explains in plain words what goes wrong.")
    _engine_arguments(smoke)
    smoke.set_defaults(handler=_smoke)


def _engine_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", metavar="CMD", help="the engine command (split like a shell; no shell unless --shell)")
    parser.add_argument("--shell", action="store_true", help="run --engine through /bin/sh -c")
    parser.add_argument("--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds to wait for each answer (default {DEFAULT_TIMEOUT:g})")


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0 (a zero or negative wait can never be met)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0")
    return value


def _serve(args: argparse.Namespace) -> int:
    from studcheck.protocol.serve import main

    return main()


def make_client(args: argparse.Namespace, *, deadline: Deadline | None = None) -> EngineClient:
    """A client for the engine the arguments name; `deadline`: share another client's (--jobs)."""
    factory: Callable[[], Transport]
    if getattr(args, "in_process", False):
        factory = InProcessTransport
    else:
        try:
            argv = engine_argv(args.engine, shell=args.shell) if args.engine else reference_argv()
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if not argv:
            raise ConfigError("--engine is empty")

        def factory() -> Transport:
            return SubprocessTransport(argv)
    seconds = getattr(args, "deadline", None)
    if deadline is None and seconds:
        deadline = Deadline.after(seconds)
    return EngineClient(factory, timeout=args.timeout, deadline=deadline, profile=Profile(getattr(args, "profile", "hands")))


def engine_label(args: argparse.Namespace) -> str:
    if getattr(args, "in_process", False):
        return "in-process"
    return args.engine or shlex.join(reference_argv())


def replay_command(args: argparse.Namespace) -> Callable[[str], str]:
    parts = ["studcheck", "run"]
    if getattr(args, "in_process", False):
        parts.append("--in-process")
    elif args.engine:
        parts += ["--engine", args.engine] + (["--shell"] if args.shell else [])
    for path in args.cases or []:
        parts += ["--cases", str(path)]
    if getattr(args, "profile", Profile.HANDS.value) != Profile.HANDS.value:
        parts += ["--profile", args.profile] + (["--exhaustive"] if args.exhaustive else [])
    prefix = shlex.join(parts)
    return lambda case_id: f"{prefix} --id {shlex.quote(case_id)}"


def select(cases: Sequence[Any], args: argparse.Namespace) -> list[Any]:
    """Filter by variant, rule (ID or dotted prefix), tag and id; an unknown value is a usage error."""
    _check_selection(args)
    chosen = list(cases)
    if args.variant:
        chosen = [case for case in chosen if case.variant.value in args.variant]
    if getattr(args, "kind", None):
        chosen = [case for case in chosen if case.kind.value in args.kind]
    if args.rule:
        chosen = [case for case in chosen if any(_rule_matches(rule, wanted) for rule in case.rules for wanted in args.rule)]
    if args.tag:
        chosen = [case for case in chosen if set(case.tags) & set(args.tag)]
    if args.ids:
        known = {case.id for case in cases}
        unknown = [case_id for case_id in args.ids if case_id not in known]
        if unknown:
            raise ConfigError(f"no case has the ID {', '.join(unknown)}")
        chosen = [case for case in chosen if case.id in args.ids]
    return chosen


def _check_selection(args: argparse.Namespace) -> None:
    """A misspelt --variant, --rule or --tag would select nothing and say only that: name the valid values."""
    from studcheck.cases.load import rule_index, tag_vocabulary
    from studcheck.rules import Variant

    from studcheck.evaluation.kinds import Kind

    kinds = [kind.value for kind in Kind]
    for value in getattr(args, "kind", None) or []:
        if value not in kinds:
            raise ConfigError(f"--kind {value}: not a kind (the kinds: {', '.join(kinds)})")
    variants = [variant.value for variant in Variant]
    for value in args.variant or []:
        if value not in variants:
            raise ConfigError(f"--variant {value}: not a variant (the variants: {', '.join(variants)})")
    tags = tag_vocabulary()
    for value in args.tag or []:
        if value not in tags:
            raise ConfigError(f"--tag {value}: not a tag (the tags, from spec/tags.yaml: {', '.join(sorted(tags))})")
    rules = rule_index()
    for value in args.rule or []:
        if not any(_rule_matches(rule, value) for rule in rules):
            prefixes = sorted({rule.split(".")[0] for rule in rules})
            raise ConfigError(f"--rule {value}: no rule ID is or starts with {value!r} (rule IDs begin with "
                              f"{', '.join(prefixes)}; `studcheck coverage` lists them all)")


def _rule_matches(rule: str, wanted: str) -> bool:
    return rule == wanted or rule.startswith(wanted.rstrip(".") + ".")


def _run(args: argparse.Namespace) -> int:
    from studcheck.cases.load import CaseError, load_cases

    if args.in_process and args.engine:
        print("studcheck run: --in-process runs the reference engine; do not give --engine too", file=sys.stderr)
        return EXIT_CONFIG
    if args.in_process and args.jobs not in (None, 1):
        print("studcheck run: --in-process runs one engine in this process; for --jobs drop --in-process "
              "(the reference engine then runs as `studcheck serve` processes)", file=sys.stderr)
        return EXIT_CONFIG
    if args.maxfail is not None and (args.maxfail < 1 or args.write_xfail):
        print("studcheck run: --maxfail must be at least 1" if args.maxfail < 1 else
              "studcheck run: --write-xfail needs the whole run; do not combine it with --maxfail or -x", file=sys.stderr)
        return EXIT_CONFIG
    evaluation = args.profile == Profile.EVALUATION.value
    if (args.kind or args.exhaustive) and not evaluation:
        print(f"studcheck run: {'--kind' if args.kind else '--exhaustive'} is for --profile evaluation", file=sys.stderr)
        return EXIT_CONFIG
    if evaluation and (args.variant or args.in_process):
        print(f"studcheck run: --profile evaluation: {'--variant' if args.variant else '--in-process'} is for whole hands "
              "(use --kind to choose kinds)" if args.variant else "studcheck run: --profile evaluation runs the reference as "
              "`studcheck serve` (drop --in-process)", file=sys.stderr)
        return EXIT_CONFIG
    try:
        suite = _evaluation_cases(args) if evaluation else _linted_cases(args.cases) if args.cases else load_cases()
        if suite is None:
            return EXIT_CONFIG
        selected = select(suite, args)
        cases = args.shard.pick(selected) if args.shard else selected
        xfail = load_xfail(args.xfail, (case.id for case in suite)) if args.xfail else {}
        client = make_client(args)
    except (CaseError, ConfigError) as exc:
        print(terminal_safe(f"studcheck run: {exc}"), file=sys.stderr)
        return EXIT_CONFIG
    if not selected:
        print("studcheck run: no case matches the selection", file=sys.stderr)
        return EXIT_CONFIG
    if not cases:
        print(f"studcheck run: --shard {args.shard.index}/{args.shard.count}: no case falls in this shard "
              f"(the selection has {len(selected)} case{'' if len(selected) == 1 else 's'}); use fewer shards", file=sys.stderr)
        return EXIT_CONFIG
    shard = args.shard.to_json(selected) if args.shard else None
    try:
        with stopping.watch() as watch:
            code = execute(args, cases, xfail, client, shard=shard)
        return watch.exit_code or code
    except BrokenPipeError:
        raise  # stdout closed (`studcheck run | head`): the command line handles it (exit 141)
    except OSError as exc:  # a write of --report (the disk full: the error names no file) or of another report
        where = exc.filename or args.report or "a report"
        print(terminal_safe(f"studcheck run: cannot write {where}: {exc.strerror or exc}"), file=sys.stderr)
        return EXIT_CONFIG


def _evaluation_cases(args: argparse.Namespace) -> list[Any] | None:
    """The evaluation cases (bundled, or the files named, linted), plus the generated ones with --exhaustive."""
    from studcheck.cases.evaluation import lint_evaluation_cases, load_evaluation_cases
    from studcheck.evaluation.exhaustive import exhaustive_cases

    if args.cases:
        cases, problems = lint_evaluation_cases(args.cases)
        if problems:
            print(f"studcheck run: the evaluation case files have {len(problems)} problem{'' if len(problems) == 1 else 's'}; "
                  "nothing was run:", file=sys.stderr)
            for problem in problems:
                print(terminal_safe(str(problem)), file=sys.stderr)
            return None
    else:
        cases = load_evaluation_cases()
    return [*cases, *exhaustive_cases()] if args.exhaustive else list(cases)


def _linted_cases(paths: Sequence[str]) -> list[Any] | None:
    """The cases in the files the user names, or None (and the problems printed) if lint refuses any.

    A case lint refuses is never run: it may be one no correct engine can pass, or one that tests
    less than it says. The bundled suite is linted in CI and is only loaded (linting it would add
    about a tenth of a second: the deal check plays every case on the reference engine).
    """
    from studcheck.cases.lint import lint_cases

    cases, problems = lint_cases(paths)
    if not problems:
        return cases
    count = f"{len(problems)} problem{'' if len(problems) == 1 else 's'}"
    print(f"studcheck run: the case files have {count} (as `studcheck lint` reports them); nothing was run:",
          file=sys.stderr)
    for problem in problems:
        print(terminal_safe(str(problem)), file=sys.stderr)
    return None


def execute(args: argparse.Namespace, cases: Sequence[Any], xfail: dict[str, str], client: EngineClient, *,
            shard: dict[str, Any] | None = None) -> int:
    """Run the cases and write every report; `shard`: the header's record of `--shard K/N`."""
    started, clock = now_iso(), time.perf_counter()
    replay = replay_command(args)
    with _report_writer(args.report) as writer:
        try:
            client.start()
        except EngineError as exc:
            reason = client.stopped()  # a signal or the deadline, not the engine's fault
            print(terminal_safe(f"studcheck run: {reason.message} before the engine answered hello" if reason else
                                f"studcheck run: the engine cannot start\n{diagnose(exc)}"), file=sys.stderr)
            code = _interrupted_code(EXIT_ENGINE)
            writer.write(header_line(info=None, command=engine_label(args), started=started, cases=_case_args(args),
                                     shard=shard))
            writer.write(footer_line([], duration=time.perf_counter() - clock, exit_code=code, interrupted=_signal()))
            _write_reports(args, writer, None)
            return code
        writer.write(header_line(info=client.info, command=engine_label(args), started=started, cases=_case_args(args),
                                 shard=shard))
        workers = _workers(args, client, cases)
        try:
            verdicts = _run_all(workers, cases, xfail, writer, replay, progress=not args.no_progress, maxfail=args.maxfail)
        except BaseException:  # e.g. Ctrl-C: never leave an engine process behind
            workers.stop(polite=False)
            raise
        workers.stop()
        code = _interrupted_code(EXIT_FAIL if any(verdict.outcome in FAILING for verdict in verdicts) else EXIT_OK)
        nothing_applied = bool(verdicts) and all(verdict.outcome is Outcome.NOT_APPLICABLE for verdict in verdicts)
        if code == EXIT_OK and nothing_applied:
            code = EXIT_CONFIG  # nothing was checked: that must not look like a pass
        duration = time.perf_counter() - clock
        grouping = group_verdicts(verdicts)
        stopped = None
        if args.maxfail is not None and len(verdicts) < len(cases):
            stopped = Stopped(maxfail=args.maxfail, not_run=len(cases) - len(verdicts))
        annotate_cases(writer.lines, grouping)  # each case's blame and cause: known only now
        writer.rewrite()
        for line in group_lines(grouping, replay=replay):
            writer.write(line)
        writer.write(footer_line(verdicts, duration=duration, exit_code=code, stopped=stopped, interrupted=_signal()))
    label = f"{client.info.name} {client.info.version}" if client.info else engine_label(args)
    reports_ok = _write_reports(args, writer, lambda: render_markdown(verdicts, replay=replay, engine=label, grouping=grouping,
                                                                   stopped=stopped))
    if not reports_ok and code == EXIT_OK:
        code = EXIT_CONFIG  # a report CI asked for is missing: that must not look like a clean pass
    print(render_terminal(verdicts, replay=replay, duration=duration, grouping=grouping, stopped=stopped,
                          style=Style.for_stream(sys.stdout)))
    if args.write_xfail:
        written = write_xfail(args.write_xfail, verdicts, grouping, engine=label, command=engine_label(args),
                              cases=[*_case_args(args), *_selection(args)])
        print(f"wrote {written} expected failure{'' if written == 1 else 's'} to {args.write_xfail}; "
              f"run with --xfail {shlex.quote(str(args.write_xfail))} to expect them")
    _say_stopped(verdicts, code, client)
    if nothing_applied:
        print("studcheck run: no selected case applies to this engine (see the not-applicable reasons above): "
              "nothing was checked, exit code 2", file=sys.stderr)
    return code


def _workers(args: argparse.Namespace, client: EngineClient, cases: Sequence[Any]) -> Workers:
    """The first engine (started: its hello says whether it may run beside itself) and --jobs - 1 more,
    which start in their workers (child processes on Linux, see forked.py) and share its deadline."""
    from studcheck.harness import forked

    assert client.info is not None
    jobs = args.jobs if args.jobs is not None else default_jobs()
    count = engines_for(jobs, len(cases), parallel=client.info.parallel, in_process=args.in_process)

    kind: type[Runner] = Runner
    if getattr(args, "profile", Profile.HANDS.value) == Profile.EVALUATION.value:
        from studcheck.harness.evaluation import EvaluationRunner

        kind = EvaluationRunner

    def runner() -> Runner:
        return kind(make_client(args, deadline=client.deadline))

    extra = [forked.ForkedRunner(runner, cases) if forked.AVAILABLE else runner() for _ in range(count - 1)]
    return Workers([kind(client), *extra])


def _run_all(workers: Workers, cases: Sequence[Any], xfail: dict[str, str], writer: ReportWriter,
             replay: Callable[[str], str], *, progress: bool, maxfail: int | None = None) -> list[Verdict]:
    """Each verdict in case order as it comes (the report is written as the run goes); stops handing
    out cases once `maxfail` cases of that order failed, so N engines stop where one would."""
    verdicts: list[Verdict] = []
    failing = 0
    bar = _progress(len(cases)) if progress else None
    results = workers.verdicts(cases)
    try:
        for case, found in zip(cases, results):
            verdict = apply_xfail(found, xfail)
            verdicts.append(verdict)
            writer.write(case_line(verdict, replay=replay(case.id)))
            if bar is not None:
                bar.update(1)
            failing += verdict.outcome in FAILING
            if maxfail is not None and failing >= maxfail:
                break
    finally:
        results.close()
        if bar is not None:
            bar.close()
    for problem in workers.unstarted:
        print(terminal_safe(f"studcheck run: one of {len(workers.runners)} engines could not start ({problem}); "
                            "the others ran its cases"), file=sys.stderr)
    return verdicts


def _signal() -> str | None:
    """The name of the signal that interrupted the run, if one did."""
    signum = stopping.requested()
    return None if signum is None else stopping.signal_name(signum)


def _interrupted_code(code: int) -> int:
    signum = stopping.requested()
    return code if signum is None else 128 + signum


def _say_stopped(verdicts: Sequence[Verdict], code: int, client: EngineClient) -> None:
    """One line on stderr when a signal or the deadline cut the run short."""
    stopped = [verdict for verdict in verdicts if verdict.problem in ("interrupted", "deadline")]
    reason = client.stopped()
    if not stopped or reason is None:
        return
    not_run = sum(verdict.step_text == "not run" for verdict in stopped)
    print(f"studcheck run: {reason.message}: {len(stopped) - not_run} case{'' if len(stopped) - not_run == 1 else 's'} "
          f"not finished, {not_run} not run; exit code {code}", file=sys.stderr)


def _progress(total: int) -> Any:
    """A tqdm bar on stderr when it is a terminal; None otherwise (CI logs stay clean)."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="case", file=sys.stderr, leave=False)


def _selection(args: argparse.Namespace) -> list[str]:
    """The selection options as given (`--variant razz`), for the header of a --write-xfail file."""
    chosen = [(name, value) for name in ("variant", "rule", "tag") for value in getattr(args, name) or []]
    return [f"--{name} {value}" for name, value in chosen] + [f"--id {case_id}" for case_id in args.ids or []]


def _case_args(args: argparse.Namespace) -> list[str]:
    return [str(path) for path in args.cases] if args.cases else ["(bundled suite)"]


def _write_reports(args: argparse.Namespace, writer: ReportWriter, markdown: Callable[[], str] | None) -> bool:
    """JUnit, HTML and Markdown, each on its own: one that cannot be written (a full disk, a bug in
    a writer) is named on stderr and the others are still written. False when one failed."""
    steps: list[tuple[str, Callable[[], None]]] = [("JUnit", lambda: _junit(args, writer)), ("HTML", lambda: _html(args, writer))]
    if markdown is not None and args.markdown:
        def append_markdown() -> None:
            with open(args.markdown, "a", encoding="utf-8") as handle:
                handle.write(markdown())

        steps.append(("Markdown", append_markdown))
    ok = True
    for name, step in steps:
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - any writer's failure is reported, never a traceback
            print(terminal_safe(f"studcheck run: the {name} report could not be written: {type(exc).__name__}: {exc}"),
                  file=sys.stderr)
            ok = False
    return ok


def _junit(args: argparse.Namespace, writer: ReportWriter) -> None:
    if args.junit:
        from studcheck.harness.junit import write_junit

        write_junit(writer.lines, args.junit)


def _html(args: argparse.Namespace, writer: ReportWriter) -> None:
    if args.html:
        from studcheck.commands.report import write_run_page

        print(terminal_safe(str(write_run_page(writer.lines, args.html, source=str(args.report or "this run"),
                                               rulebook=args.rulebook))))


def _rulebook_base(text: str) -> str:
    from studcheck.commands.report import rulebook_base

    return rulebook_base(text)


@contextlib.contextmanager
def _report_writer(path: Path | None) -> Iterator[ReportWriter]:
    """A writer of the report file (or of nothing when no path is given), closed at the end: its
    stream may have changed on the way (`ReportWriter.rewrite` replaces the file)."""
    writer = ReportWriter(open(path, "w", encoding="utf-8") if path is not None else None, path)
    try:
        yield writer
    finally:
        writer.close()


def _smoke(args: argparse.Namespace) -> int:
    if not args.engine:
        print("studcheck smoke: give the engine command with --engine CMD", file=sys.stderr)
        return EXIT_CONFIG
    try:
        client = make_client(args)
    except ConfigError as exc:
        print(terminal_safe(f"studcheck smoke: {exc}"), file=sys.stderr)
        return EXIT_CONFIG
    with stopping.watch() as watch:
        result = run_smoke(client, lambda text: print(terminal_safe(text)))  # the engine's name, answers and stderr
    if watch.exit_code is not None:
        return watch.exit_code
    if result.ok:
        print("smoke test passed: the adapter speaks the protocol; now try `studcheck run --engine ...`")
        return EXIT_OK
    return EXIT_FAIL if result.started else EXIT_ENGINE
