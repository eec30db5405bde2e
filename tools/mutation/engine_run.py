"""Run the case suite against one mutant of the reference engine, through the protocol.

The harness and the cases are the installed, unmutated `studcheck`; the engine is a subprocess
`python -m studcheck serve` whose PYTHONPATH is a private copy of the package with one mutation.
The run stops at the first case whose verdict differs from the unmutated engine's.
"""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutants import Mutant, apply_mutant, check_mutant
from studcheck.cases.load import load_cases
from studcheck.cases.model import Case
from studcheck.harness.runner import Outcome, Runner
from studcheck.protocol.client import EngineClient, EngineError, Problem, SubprocessTransport, Transport
from studcheck.resources import spec_dir

KILLED, TIMEOUT, SURVIVED, ERROR = "killed", "timeout", "survived", "error"
#: Seconds to wait for one answer (the harness's default); a mutant that loops forever times out here.
REQUEST_TIMEOUT = 5.0
STARTUP_TIMEOUT = 20.0


@dataclass(frozen=True, kw_only=True)
class RunResult:
    """What happened to one engine (a mutant, or the unmutated copy)."""

    status: str  # killed | timeout | survived | error
    detail: str = ""
    killer: str | None = None  # the case that told the mutant apart
    startup: bool = False  # killed before any case: import crash or failed handshake
    duration: float = 0.0
    cases_run: int = 0
    verdicts: dict[str, str] = field(default_factory=dict)  # case id -> outcome (full runs only)


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """Everything a worker needs; plain data so it crosses to spawned processes."""

    template: str  # a directory holding the pristine package copy as `studcheck/`
    cases: str  # the case files (a snapshot of cases/)
    scratch: str  # where per-mutant copies are made
    deadline: float = 60.0  # seconds for one whole mutant run
    expected: dict[str, str] = field(default_factory=dict)  # case id -> the unmutated engine's outcome


# --- the package copy ---------------------------------------------------------------------------


def snapshot_package(package: Path, destination: Path) -> Path:
    """Copy validator/studcheck to destination/studcheck (no caches), point its `_data` at the
    installed spec (the engine reads the protocol schema), and byte-compile it once."""
    target = destination / "studcheck"
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "_data"))
    data = target / "_data"
    data.mkdir()
    (data / "spec").symlink_to(spec_dir().resolve(), target_is_directory=True)
    compileall.compile_dir(str(target), quiet=1, workers=1)
    return destination


def make_mutant_copy(template: Path, scratch: Path, mutant: Mutant) -> Path:
    """A fresh copy of the template with the mutation applied; returns the directory for PYTHONPATH."""
    workdir = Path(tempfile.mkdtemp(prefix=f"{mutant.id}-", dir=scratch))
    package = workdir / "studcheck"
    shutil.copytree(template / "studcheck", package, symlinks=True)
    path = package / mutant.file
    source = path.read_text(encoding="utf-8")
    problem = check_mutant(source, mutant)
    if problem is not None:
        shutil.rmtree(workdir, ignore_errors=True)
        raise ValueError(f"mutant {mutant.id} cannot be applied: {problem}")
    path.write_text(apply_mutant(source, mutant), encoding="utf-8")
    # The copied byte code would match the old source's size and time stamp: remove it.
    for cached in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        cached.unlink()
    return workdir


def engine_command(pythonpath: Path, arguments: Sequence[str] = ("-m", "studcheck", "serve")) -> list[str]:
    """The engine's argv: this Python with only `pythonpath` in front of the installed packages.

    `-P` (Python 3.11+) keeps the working directory off sys.path, so a `studcheck/` there cannot
    shadow the copy; on older Pythons a one-line launcher drops it.
    """
    python = [sys.executable, "-P"] if sys.version_info >= (3, 11) else [sys.executable]
    if sys.version_info < (3, 11) and list(arguments[:2]) == ["-m", "studcheck"]:
        launcher = "import runpy, sys; sys.path.pop(0); runpy.run_module('studcheck', run_name='__main__', alter_sys=True)"
        arguments = ["-c", launcher, *arguments[2:]]
    return ["env", f"PYTHONPATH={pythonpath}", *python, *arguments]


class _NoRestartClient(EngineClient):
    """A mutant run stops at the first failure, so the harness's restart after an error is skipped."""

    def restart(self) -> Any:
        raise EngineError(Problem.CRASH, "not restarted: the mutation run stops at the first failing case")


# --- one run ------------------------------------------------------------------------------------

_CASES: list[Case] | None = None
_CASES_FROM: str | None = None
_KILLERS: list[str] = []  # case IDs that killed mutants in this process, most recent first


def cases_from(directory: str) -> list[Case]:
    global _CASES, _CASES_FROM
    if _CASES is None or _CASES_FROM != directory:
        _CASES = load_cases([Path(directory)])
        _CASES_FROM = directory
    return _CASES


def _ordered(cases: Sequence[Case]) -> list[Case]:
    """Cases that killed recent mutants first: most mutants die on one of a few cases."""
    rank = {case_id: index for index, case_id in enumerate(_KILLERS)}
    return sorted(cases, key=lambda case: rank.get(case.id, len(rank)))


def _note_killer(case_id: str) -> None:
    if case_id in _KILLERS:
        _KILLERS.remove(case_id)
    _KILLERS.insert(0, case_id)
    del _KILLERS[64:]


def run_suite(
    pythonpath: Path,
    cases: Sequence[Case],
    *,
    expected: dict[str, str] | None = None,
    deadline: float = 60.0,
    stop_at_first: bool = True,
    clock: Callable[[], float] = time.monotonic,
) -> RunResult:
    """Every case against the engine in `pythonpath`; `expected` maps case IDs to the outcomes that
    count as "no difference" (default: pass). Stops at the first difference unless told not to."""
    started = clock()
    argv = engine_command(pythonpath)

    def factory() -> Transport:
        return SubprocessTransport(argv)

    client = _NoRestartClient(factory, timeout=REQUEST_TIMEOUT, startup_timeout=min(STARTUP_TIMEOUT, deadline))
    try:
        try:
            client.start()
        except EngineError as exc:
            status = TIMEOUT if exc.problem is Problem.TIMEOUT else KILLED
            return RunResult(status=status, startup=True, detail=f"startup: {exc.problem.value}: {exc.message}{_last_words(exc.stderr)}",
                             duration=clock() - started)
        runner = Runner(client)
        verdicts: dict[str, str] = {}
        for count, case in enumerate(_ordered(cases) if stop_at_first else cases, start=1):
            remaining = deadline - (clock() - started)
            if remaining <= 0:
                return RunResult(status=TIMEOUT, detail=f"the suite did not finish within {deadline:g} s",
                                 duration=clock() - started, cases_run=count - 1, verdicts=verdicts)
            client.timeout = max(0.5, min(REQUEST_TIMEOUT, remaining))
            verdict = runner.run(case)
            verdicts[case.id] = verdict.outcome.value
            wanted = (expected or {}).get(case.id, Outcome.PASS.value)
            if verdict.outcome.value == wanted or not stop_at_first:
                continue
            _note_killer(case.id)
            status = TIMEOUT if verdict.outcome is Outcome.ERROR and verdict.problem == Problem.TIMEOUT.value else KILLED
            where = f" at step {verdict.step + 1}" if verdict.step is not None else (f" ({verdict.step_text})" if verdict.step_text else "")
            detail = f"{case.id}{where}: {verdict.outcome.value}: {verdict.message}"
            if verdict.mismatches:
                first = verdict.mismatches[0]
                detail += f" [{first.path}: expected {first.expected!r}, got {first.actual!r}]"
            if verdict.outcome is Outcome.ERROR:
                detail += _last_words(verdict.stderr)
            return RunResult(status=status, killer=case.id, detail=_clip(detail), duration=clock() - started,
                             cases_run=count, verdicts=verdicts)
        return RunResult(status=SURVIVED, detail=f"all {len(cases)} cases gave the unmutated verdicts",
                         duration=clock() - started, cases_run=len(cases), verdicts=verdicts)
    finally:
        client.stop(polite=False)


def _last_words(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return f" (engine stderr: {lines[-1].strip()})" if lines else ""


def _clip(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- worker entry points (run in spawned processes) ---------------------------------------------

_CONFIG: RunConfig | None = None


def init_worker(config: RunConfig) -> None:
    global _CONFIG
    _CONFIG = config
    cases_from(config.cases)


def run_baseline(config: RunConfig) -> RunResult:
    """The unmutated copy, every case, no stopping: the reference verdicts and the suite's time."""
    cases = cases_from(config.cases)
    return run_suite(Path(config.template), cases, deadline=max(600.0, config.deadline), stop_at_first=False)


def run_mutant(mutant: Mutant, config: RunConfig | None = None) -> RunResult:
    config = config or _CONFIG
    assert config is not None, "init_worker was not called"
    started = time.monotonic()
    try:
        workdir = make_mutant_copy(Path(config.template), Path(config.scratch), mutant)
    except (OSError, ValueError) as exc:
        return RunResult(status=ERROR, detail=str(exc), duration=time.monotonic() - started)
    try:
        result = run_suite(workdir, cases_from(config.cases), expected=config.expected, deadline=config.deadline)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return RunResult(status=result.status, detail=result.detail, killer=result.killer, startup=result.startup,
                     duration=time.monotonic() - started, cases_run=result.cases_run)


def scratch_root() -> Path:
    return Path(tempfile.mkdtemp(prefix="studcheck-mutation-"))


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def cases_snapshot(source: Path, destination: Path) -> Path:
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("__pycache__"))
    return destination


def default_cases_dir() -> Path:
    from studcheck.resources import cases_dir

    return cases_dir()


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
