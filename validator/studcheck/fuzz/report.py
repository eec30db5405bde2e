"""What `studcheck fuzz` prints: progress on a terminal, the summary, a divergence, a misbehaviour.

The printed text depends only on the seed and the engine's answers (timings go to stderr), so two
runs with the same seed print the same thing.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from studcheck.fuzz.play import EngineMisbehaved, HandRecord, describe_step
from studcheck.fuzz.search import Finding, SearchResult
from studcheck.fuzz.shrink import Progress
from studcheck.protocol.client import EngineClient, Problem, truncate

if TYPE_CHECKING:
    from studcheck.fuzz.commands import FuzzConfig

Say = Callable[[str], None]


class Display:
    """A tqdm bar on stderr (only when enabled, i.e. on a terminal)."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self._bar: Any = None
        self._shrunk = False
        if enabled:
            from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]

            self._bar = tqdm(total=total, unit="hand", file=sys.stderr, leave=False, desc="fuzz")

    def callbacks(self) -> Progress:
        return Progress(hand_done=self._hand, shrinking=self._shrinking, shrink_step=self._shrink_step)

    def _hand(self, record: HandRecord) -> None:
        if self._bar is not None:
            if self._shrunk:
                self._bar.set_description("fuzz")
                self._bar.set_postfix_str("")
                self._shrunk = False
            self._bar.update(1)

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


def report_restarts(result: SearchResult, say: Say) -> None:
    """Engine restarts after failures on requests sent past a divergence (pipelining sends them)."""
    if result.restarts:
        times = "once" if result.restarts == 1 else f"{result.restarts} times"
        say(f"note: the engine failed {times} on requests sent past a divergence "
            f"(the fuzzer sends a hand's requests before reading the answers); it was restarted each time")


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


def _size(record: HandRecord) -> str:
    return f"{len(record.setup.seats)} seats, {record.actions} actions"


def report_divergence(finding: Finding, client: EngineClient, reference: EngineClient, config: FuzzConfig,
                      engine_name: str, say: Say) -> str | None:
    """Report a new signature, write its case (checked: lint, reference, engine); the path written."""
    from studcheck.cases.lint import lint_files
    from studcheck.cases.load import CaseError, load_case
    from studcheck.fuzz.write import write_case
    from studcheck.harness.runner import Runner

    found, result = finding.found, finding.shrunk
    assert result is not None
    shrunk = result.hand
    assert found.divergence is not None and shrunk.divergence is not None
    say(f"DIVERGENCE in hand {finding.found_at} of {config.hands} at {describe_step(found, found.divergence.exchange)}:")
    say(f"  {found.divergence.first.describe()}")
    say(f"  signature: {finding.signature.text()}")
    if found.past_divergence is not None:
        say(f"  then, past the divergence, the engine failed ({found.past_divergence}); it was restarted")
    say(f"shrunk: {_size(found)} -> {_size(result.after_hypothesis)} (Hypothesis, {result.hypothesis_replays} replays) "
        f"-> {_size(shrunk)} (delta debugging, {result.reduce_replays} replays)")
    if result.note:
        say(f"  note: {result.note}")
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
    say(f"case {written.case_id}: {written.title}")
    say(f"  rules: {written.area.name}")
    _, problems = lint_files([written.path])
    say("  lint: clean" if not problems else "  lint: " + "; ".join(str(p) for p in problems))
    try:
        case = load_case(written.path)
    except CaseError as exc:
        say(f"  the case does not load: {exc}")
    else:
        on_reference = Runner(reference).run(case)
        on_engine = Runner(client).run(case) if client.running else None
        say(f"  on the reference: {on_reference.outcome.value}"
            + ("" if on_reference.outcome.value == "pass" else f" ({on_reference.message})"))
        if on_engine is not None:
            detail = "; ".join(m.describe() for m in on_engine.mismatches[:2]) or on_engine.message
            say(f"  on the engine: {on_engine.outcome.value}" + (f" ({detail})" if detail else ""))
    say(f"wrote {written.path}")
    say(f"replay: studcheck run {config.replay_engine} --cases {shlex.quote(str(written.path))}")
    return str(written.path)


def report_misbehaviour(exc: EngineMisbehaved, say: Say) -> None:
    """The engine broke the protocol: the problem, the request, the offending output, stderr."""
    error = exc.error
    record = exc.record
    say(f"ENGINE ERROR ({error.problem.value}) in a hand after {len(record.exchanges)} exchanges: {error.message}")
    # Requests are pipelined: an engine that dies or stalls had the first request it left
    # unanswered in hand (an engine that buffers its answers may have got further).
    left = " (the first one left unanswered)" if error.problem in (Problem.CRASH, Problem.TIMEOUT) else ""
    say(f"  request{left}: {truncate(json.dumps(exc.request), 600)}")
    if error.line:
        say(f"  engine output: {error.line}")
    tail = error.stderr.strip().splitlines()[-8:]
    if tail:
        say("  engine stderr (last lines):")
        for line in tail:
            say(f"    {truncate(line, 300)}")
    say(f"  hand setup: {truncate(json.dumps(record.setup.request_fields('fuzz')), 2000)}")
