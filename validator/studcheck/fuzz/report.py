"""What `studcheck fuzz` prints: progress on a terminal, the summary, a divergence, a misbehaviour.

The printed text depends only on the seed and the engine's answers (timings go to stderr), so two
runs with the same seed print the same thing.
"""

from __future__ import annotations

import json
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from studcheck.fuzz.census import Finding, SearchResult
from studcheck.fuzz.config import FuzzConfig
from studcheck.fuzz.play import EngineMisbehaved, HandRecord, describe_step, failure_record
from studcheck.fuzz.shrink import Progress
from studcheck.protocol.client import EngineClient, EngineError, Problem, shorten, truncate

if TYPE_CHECKING:
    from studcheck.fuzz.write import WrittenCase

Say = Callable[[str], None]
Ready = Callable[[], "str | None"]  # get the engine running (restart it after a failure); why not, or None


PROGRESS_EVERY = 10.0  # seconds between plain progress lines (stderr not a terminal)


class Display:
    """Progress on stderr: a tqdm bar on a terminal (hands/s, divergences, elapsed, left), plain lines
    every PROGRESS_EVERY seconds otherwise (a CI log), nothing with --no-progress."""

    def __init__(self, total: int | None, *, bar: bool = False, lines: bool = False,
                 clock: Callable[[], float] = time.monotonic, say: Say | None = None) -> None:
        self._bar: Any = None
        self._shrunk = False
        self._total = total
        self._lines = lines
        self._clock = clock
        self._say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self._started = clock()
        self._next_line = self._started + PROGRESS_EVERY
        self.hands = 0
        self.divergences = 0
        if bar:
            from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]

            self._bar = tqdm(total=total, unit="hand", file=sys.stderr, leave=False, desc="fuzz")

    def callbacks(self) -> Progress:
        return Progress(hand_done=self._hand, shrinking=self._shrinking, shrink_step=self._shrink_step)

    def found(self) -> None:
        """A new signature was reported."""
        self.divergences += 1
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.divergences} new divergences")

    def _hand(self, record: Any) -> None:
        self.hands += 1
        if self._bar is not None:
            if self._shrunk:
                self._bar.set_description("fuzz")
                self._bar.set_postfix_str(f"{self.divergences} new divergences" if self.divergences else "")
                self._shrunk = False
            self._bar.update(1)
        elif self._lines and self._clock() >= self._next_line:
            self._next_line = self._clock() + PROGRESS_EVERY
            self._say(self.line())

    def line(self) -> str:
        """`fuzz: 1200 of 5000 hands, 118.2 hands/s, 1 new divergence, elapsed 10s, left 32s`."""
        elapsed = self._clock() - self._started
        rate = self.hands / elapsed if elapsed > 0 else 0.0
        of = f" of {self._total}" if self._total is not None else ""
        left = ""
        if self._total is not None and rate > 0:
            left = f", left {_clock_text((self._total - self.hands) / rate)}"
        return (f"fuzz: {self.hands}{of} hands, {rate:.1f} hands/s, {self.divergences} new "
                f"divergence{'' if self.divergences == 1 else 's'}, elapsed {_clock_text(elapsed)}{left}")

    def _shrinking(self, record: HandRecord) -> None:
        if self._bar is not None:
            self._bar.set_description("divergence found, shrinking")
            self._shrunk = True

    def clear(self) -> None:
        """Take the bar off the terminal before a report (it comes back with the next hand)."""
        if self._bar is not None:
            self._bar.clear()

    def _shrink_step(self, tries: int, best: HandRecord) -> None:
        if self._bar is not None and tries % 10 == 0:
            self._bar.set_postfix_str(f"{tries} replays, best {len(best.setup.seats)} seats {best.actions} steps")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _clock_text(seconds: float) -> str:
    """`42s`, `3m05s`, `1h02m`."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


REQUEST_CHARS = 300  # a request's JSON in a report (the hand's setup is printed in full apart)
STDERR_HEAD, STDERR_TAIL = 20, 5  # the engine's stderr in a report: first and last lines, as `run` shows it
_EXIT = re.compile(r"\(exit code (-?\d+)\)")


def request_text(request: Mapping[str, Any]) -> str:
    """`seq 51 (act): {"type": "act", ...}`, the JSON shortened."""
    seq = request.get("seq")
    where = f"seq {seq} ({request.get('type')})" if seq is not None else f"{request.get('type')}"
    return f"{where}: {truncate(json.dumps(request), REQUEST_CHARS)}"


def exit_status(error: EngineError) -> str:
    """How the engine process ended, as the client saw it: `exit code 139`, `killed by SIGSEGV`."""
    found = _EXIT.search(error.message)
    if found is None:
        return "still running when the fuzzer ended it" if error.problem is not Problem.CRASH else "unknown"
    code = int(found.group(1))
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name} (exit code {code})"
        except ValueError:
            return f"exit code {code}"
    return f"exit code {code}"


def _hand(hand: int | None, total: int | None, seed: int) -> str:
    if hand is None:
        return f"seed {seed}"
    return f"hand {hand} of {total} (seed {seed})" if total is not None else f"hand {hand} (seed {seed})"


def _evidence(error: EngineError, say: Say, indent: str = "  ") -> None:
    """The offending output, how the process ended, and its stderr's first and last lines."""
    if error.line:
        say(f"{indent}engine output: {error.line}")
    say(f"{indent}engine process: {exit_status(error)}")
    text = shorten(error.stderr, head=STDERR_HEAD, tail=STDERR_TAIL) if error.stderr.strip() else ""
    if text:
        say(f"{indent}engine stderr (first and last lines):")
        for line in text.splitlines():
            say(f"{indent}  {line}")
    else:
        say(f"{indent}engine stderr: empty")


def _request_line(failure_request: Mapping[str, Any], problem: Problem) -> str:
    # Requests are pipelined: an engine that dies or stalls had the first request it left
    # unanswered in hand (an engine that buffers its answers may have got further).
    left = " (the first one left unanswered)" if problem in (Problem.CRASH, Problem.TIMEOUT) else ""
    return f"request{left}: {request_text(failure_request)}"


def report_past_failures(result: SearchResult, total: int | None, seed: int, say: Say) -> None:
    """Failures on requests sent past a divergence (pipelining sends them): the first few with
    their evidence, and how many in all."""
    count = result.past_failures
    if not count:
        return
    times = "in 1 hand" if count == 1 else f"in {count} hands"
    say(f"note: the engine failed {times} on requests sent past a divergence "
        f"(the fuzzer sends a hand's requests before reading the answers); it was restarted each time"
        + ("" if count <= len(result.first_past_failures) else f"; the first {len(result.first_past_failures)}:"))
    for hand, failure in result.first_past_failures:
        say(f"  {_hand(hand, total, seed)}: {failure.error.problem.value}: {failure.error.message}")
        say(f"    {_request_line(failure.request, failure.error.problem)}")
        _evidence(failure.error, say, indent="    ")
    if count > len(result.first_past_failures):
        say(f"  ... and {count - len(result.first_past_failures)} more")


def report_summary(result: SearchResult, say: Say) -> None:
    """The last line when no new divergence was found."""
    skipped = f", {result.skipped} refused as unsupported" if result.skipped else ""
    counts = f"{result.actions} actions, {result.refused} of them refused as illegal{skipped}"
    if not result.findings:
        say(f"ok: {result.hands} hands agree with the reference ({counts})")
    else:
        say(f"ok: no new divergence in {result.hands} hands ({result.divergent_hands} with known divergences; {counts})")


def report_signatures(result: SearchResult, written: dict[str, str], say: Say) -> None:
    """The table of signatures (--keep-going, --known): hands showing each, the first, and what became of it."""
    new = len(result.new)
    say(f"signatures: {len(result.findings)} ({new} new, {len(result.findings) - new} known) "
        f"in {result.divergent_hands} of {result.hands} hands"
        + (f" (stopped after {new} new signatures)" if result.stopped else ""))
    if not result.findings:
        return
    width = max(len(finding.signature.text()) for finding in result.findings.values())
    say(f"  {'hands':>5}  {'first':>5}  {'signature':<{width}}  status")
    for finding in result.findings.values():
        text = finding.signature.text()
        status = f"known: {finding.known}" if finding.known is not None else f"new: {written.get(text, 'not written')}"
        say(f"  {finding.hands:>5}  {finding.found_at:>5}  {text:<{width}}  {status}")


def _of(total: int | None) -> str:
    return "" if total is None else f" of {total}"


def _size(record: HandRecord) -> str:
    return f"{len(record.setup.seats)} seats, {record.actions} actions"


def report_divergence(finding: Finding, client: EngineClient, reference: EngineClient, config: FuzzConfig,
                      engine_name: str, say: Say, ready: Ready = lambda: None) -> str | None:
    """Report a new signature, write its case (checked: lint, reference, engine); the path written."""
    from studcheck.fuzz.write import write_case

    found, result = finding.found, finding.shrunk
    assert result is not None
    shrunk = result.hand
    assert found.divergence is not None and shrunk.divergence is not None
    say(f"DIVERGENCE in hand {finding.found_at}{_of(config.total)} at {describe_step(found, found.divergence.exchange)}:")
    say(f"  {found.divergence.first.describe()}")
    say(f"  signature: {finding.signature.text()}")
    if found.past_failure is not None:
        past = found.past_failure
        say(f"  then, past the divergence, the engine failed ({past.error.problem.value} on "
            f"{request_text(past.request)}: {past.error.message}); it was restarted")
    say(f"shrunk: {_size(found)} -> {_size(result.after_hypothesis)} (Hypothesis, {result.hypothesis_replays} replays) "
        f"-> {_size(shrunk)} (delta debugging, {result.reduce_replays} replays)")
    if result.note:
        say(f"  note: {result.note}")
    if finding.shrink_failures:
        say(f"  note: the engine failed on {finding.shrink_failures} of the hands replayed while shrinking "
            "(a crash, a timeout or a broken answer, past the divergence or instead of it); it was restarted each time")
    say(f"  minimal hand diverges at {describe_step(shrunk, shrunk.divergence.exchange)}:")
    for difference in shrunk.divergence.all[:5]:
        say(f"    {difference.describe()}")
    if len(shrunk.divergence.all) > 5:
        say(f"    ... and {len(shrunk.divergence.all) - 5} more differences")
    try:
        written = write_case(shrunk, config.out, seed=config.seed, hand_number=finding.found_at, engine_label=engine_name)
    except OSError as exc:
        say(f"cannot write the case to {config.out}: {exc.strerror or exc}")
        return None
    return _announce(written, client, reference, config, say, ready)


def report_failure(finding: Finding, client: EngineClient, reference: EngineClient, config: FuzzConfig,
                   engine_name: str, say: Say, ready: Ready = lambda: None) -> str | None:
    """Report a hand the engine broke the protocol in (a new signature `error PROBLEM VARIANT`) and
    write its reproducer case (checked: lint, reference, engine); the path written."""
    from studcheck.fuzz.write import write_reproducer

    record = finding.found
    failure = record.failure
    assert failure is not None
    error = failure.error
    played = failure_record(record)
    say(f"ENGINE ERROR ({error.problem.value}) in {_hand(finding.found_at, config.total, config.seed)} "
        f"at {describe_step(played, len(played.exchanges) - 1)}: {error.message}")
    say(f"  {_request_line(failure.request, error.problem)}")
    _evidence(error, say)
    say(f"  signature: {finding.signature.text()}")
    try:
        written = write_reproducer(record, config.out, seed=config.seed, hand_number=finding.found_at,
                                   engine_label=engine_name)
    except OSError as exc:
        say(f"cannot write the reproducer to {config.out}: {exc.strerror or exc}")
        say(f"  hand setup: {truncate(json.dumps(record.setup.request_fields('fuzz')), 2000)}")
        return None
    return _announce(written, client, reference, config, say, ready, what="reproducer")


def _announce(written: WrittenCase, client: EngineClient, reference: EngineClient, config: FuzzConfig, say: Say,
              ready: Ready, what: str = "case") -> str:
    """Lint the case written, run it on the reference (it must pass) and on the engine; say where it is."""
    from studcheck.cases.lint import lint_files
    from studcheck.cases.load import CaseError, load_case
    from studcheck.harness.runner import Runner

    say(f"{what} {written.case_id}: {written.title}")
    say(f"  rules: {', '.join(written.rules)} ({written.area.name})")
    _, problems = lint_files([written.path])
    say("  lint: clean" if not problems else "  lint: " + "; ".join(str(p) for p in problems))
    try:
        case = load_case(written.path)
    except CaseError as exc:
        say(f"  the case does not load: {exc}")
    else:
        on_reference = Runner(reference).run(case)
        say(f"  on the reference: {on_reference.outcome.value}"
            + ("" if on_reference.outcome.value == "pass" else f" ({on_reference.message})"))
        not_running = ready()
        if not_running is not None:
            say(f"  on the engine: not run ({not_running})")
        elif client.running:
            on_engine = Runner(client).run(case)
            detail = "; ".join(m.describe() for m in on_engine.mismatches[:2]) or on_engine.message
            if on_engine.problem is not None:
                detail = f"{on_engine.problem}: {detail}"
            say(f"  on the engine: {on_engine.outcome.value}" + (f" ({truncate(detail, 300)})" if detail else ""))
    say(f"wrote {written.path}")
    say(f"replay: studcheck run {config.replay_engine} --cases {shlex.quote(str(written.path))}")
    return str(written.path)


def report_misbehaviour(exc: EngineMisbehaved, total: int | None, seed: int, say: Say) -> None:
    """The run stops (an engine that cannot be restarted): the problem, hand, request, evidence."""
    error = exc.error
    record = exc.record
    while_ = ", while shrinking it" if exc.shrinking else ""
    say(f"ENGINE ERROR ({error.problem.value}) in {_hand(exc.hand, total, seed)}{while_}: {error.message}")
    say(f"  {_request_line(exc.request, error.problem)}")
    _evidence(error, say)
    if record is not None:
        say(f"  hand setup: {truncate(json.dumps(record.setup.request_fields('fuzz')), 2000)}")
