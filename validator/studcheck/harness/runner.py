"""Run one case on one engine and decide its verdict.

The runner sends only the setup and the actions (never an expectation), keeps the engine's answers,
and compares them with the case. Engine misbehaviour is an `error` verdict with evidence; the
engine is then restarted so the next case starts clean. A case's verdict also answers for what
the engine does right after it (a line nobody asked for), and quotes the stderr written during it.
Once a signal came or the run's deadline passed, the case in progress and the cases left are
`error` verdicts with the problem `interrupted` or `deadline`, and the engine is not restarted.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any

from studcheck.cases.model import Case, Step, StepKind
from studcheck.harness.compare import Mismatch, canonical_state, compare_final, compare_state, diff_json
from studcheck.protocol.client import EngineClient, EngineError, Pending, Stopped, Unsolicited
from studcheck.protocol.messages import EngineInfo, ErrorReason, RequestType
from studcheck.rules import LATE_OPTIONS, Options, Variant

MAX_RESTART_FAILURES = 3
NOT_RUN = "not run"  # the step_text of a case a signal or the deadline kept from running
#: how long after a case's last answer to listen for output nobody asked for (seconds), where the
#: engine cannot be seen going back to read its stdin (client.py: on Linux it can, and then the
#: wait ends as soon as it does). A second answer from a Python engine comes 0.15-0.35 ms after
#: the first on a busy machine; every case pays this wait (0.3 ms: about 4% of the bundled suite
#: against `sh -c 'studcheck serve; true'`), so it is short: a line that comes later is caught at
#: the next case's first request, and that error names this case
AFTER_CASE_WAIT = 0.0003
#: the same after the run's last case: no next request will ever notice it, and it is paid once
AFTER_RUN_WAIT = 0.05


class Outcome(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    NOT_APPLICABLE = "not_applicable"
    XFAIL = "xfail"
    XPASS = "xpass"


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """What happened to one case; `step` is the 0-based index of the diverging step (None: setup/final)."""

    case_id: str
    outcome: Outcome
    variant: str
    file: str
    line: int
    title: str = ""
    tags: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    step: int | None = None
    step_text: str | None = None
    message: str = ""
    mismatches: tuple[Mismatch, ...] = ()
    problem: str | None = None
    evidence: str | None = None
    stderr: str = ""
    transcript: tuple[dict[str, Any], ...] = ()
    duration: float = 0.0
    xfail_reason: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    #: the rules broken, most specific first, when the verdict names them itself (the evaluation
    #: profile: the reference explains the smallest disagreeing pair); None: blame.py replays the case
    blame: tuple[str, ...] | None = None

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def not_run(self) -> bool:
        """A signal or the deadline kept this case from running at all (reports summarise these)."""
        return self.outcome is Outcome.ERROR and self.step_text == NOT_RUN

    def with_changes(self, **changes: Any) -> Verdict:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return Verdict(**values)


def lost_verdict(case: Any, message: str) -> Verdict:
    """An `error` verdict for a case no engine could answer for (its worker process died), problem `crash`."""
    variant = case.variant if isinstance(case.variant, str) else case.variant.value
    return Verdict(case_id=case.id, outcome=Outcome.ERROR, variant=variant, file=display_path(case.path), line=case.line,
                   title=case.title, tags=tuple(case.tags), rules=tuple(case.rules), step_text="setup", message=message,
                   problem="crash")


class CaseFailed(Exception):
    """The engine broke a rule at some step (verdict `fail`)."""

    def __init__(self, message: str, mismatches: list[Mismatch] | None = None, *, step: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.mismatches = tuple(mismatches or ())
        self.step = step


class NotApplicable(Exception):
    pass


def display_path(path: Path) -> str:
    """A case file as every report shows it: a bundled case relative to the cases folder, as
    `cases/razz/...` (wherever studcheck is installed: a wheel's copy sits in site-packages); a case
    of your own (`--cases`) relative to the working directory when it is under it, else as named."""
    return _display_path(str(path), os.getcwd())


@lru_cache(maxsize=4096)
def _display_path(path: str, cwd: str) -> str:
    """Memoised per working directory: resolving both paths costs a system call per component, per case."""
    from studcheck.cases.show import shown_path

    return shown_path(path, cwd)


def choose_options(case: Case, info: EngineInfo, defaults: Options | None = None) -> dict[str, Any]:
    """Every option, explicit: the case's values, else the default if the engine supports it, else one it does.

    Raises NotApplicable when the variant or an option value the case names is not supported. A
    setup-refusal case whose variant value is itself invalid applies to every engine.
    """
    variant = case.new_hand["variant"] if case.new_hand is not None else case.variant.value
    known = {v.value for v in Variant}
    if variant in known and not info.supports_variant(variant):
        raise NotApplicable(f"the engine does not support the variant {variant}")
    late: dict[str, Any] = {}
    for name, default in LATE_OPTIONS.items():
        # A case that does not name a late option is played at its default, whatever the profile
        # (every case written before it existed assumes it), and only other values go out.
        value = case.options.get(name, default)
        if not info.supports(name, value):
            raise NotApplicable(f"the engine does not support {name}={_json(value)}")
        if value != default:
            late[name] = value
    chosen: dict[str, Any] = {}
    base = {name: value for name, value in (defaults or Options()).to_json().items() if name not in LATE_OPTIONS}
    for name, default in base.items():
        if name in case.options:
            value = case.options[name]
            if not info.supports(name, value):
                raise NotApplicable(f"the engine does not support {name}={_json(value)}")
            chosen[name] = value
        elif info.supports(name, default):
            chosen[name] = default
        else:
            values = info.supported_values(name)
            if not values:
                raise NotApplicable(f"the engine declares no supported value for option {name}")
            chosen[name] = values[0]
    chosen.update(late)
    return chosen


def _json(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def new_hand_fields(case: Case, options: Mapping[str, Any]) -> dict[str, Any]:
    """The new_hand request's fields; a setup-refusal case's setup goes out exactly as written."""
    if case.new_hand is not None:
        return {**case.new_hand, "options": dict(options), "label": case.id}
    assert case.stakes is not None
    return {
        "variant": case.variant.value,
        "options": dict(options),
        "stakes": case.stakes.to_json(),
        "seats": [{"seat": s.seat, "stack": s.stack} for s in case.seats],
        "deck": [str(card) for card in case.deck_for(Options.from_json(options))],
        "remade_stub": None if case.remade_stub is None else [str(card) for card in case.remade_stub],
        "label": case.id,
    }


class Runner:
    """Runs cases one after another on one engine client (restarting it after an engine error)."""

    def __init__(self, client: EngineClient, *, defaults: Options | None = None) -> None:
        self.client = client
        self.defaults = defaults or Options()
        self._restart_failures = 0
        self._dead: EngineError | None = None
        self._stopped: Stopped | None = None
        self._previous: str | None = None  # the case run before this one

    def run(self, case: Case, *, last: bool = False) -> Verdict:
        """The case's verdict; `last`: no case follows, so listen longer for output nobody asked for."""
        started = time.perf_counter()
        base = Verdict(
            case_id=case.id, outcome=Outcome.PASS, variant=case.variant.value, file=display_path(case.path), line=case.line,
            title=case.title, tags=tuple(case.tags), rules=tuple(case.rules),
        )
        verdict = self._run(case, base)
        if verdict.problem is None and self.client.running:
            verdict = self._after_case(case, verdict, AFTER_RUN_WAIT if last else AFTER_CASE_WAIT)
        self._previous = case.id
        return verdict.with_changes(duration=time.perf_counter() - started)

    def finish(self, case: Case, verdict: Verdict) -> Verdict:
        """`verdict` (of `case`, the last this engine ran) after listening as long as `run(last=True)`
        does: for `run --jobs`, where a worker learns that its case was its last only afterwards."""
        if verdict.problem is None and self.client.running:
            verdict = self._after_case(case, verdict, AFTER_RUN_WAIT)
        return verdict

    def _unready(self, case: Case | Any, base: Verdict) -> Verdict | None:
        """The verdict of a case that cannot start (a signal or the deadline came, the engine is gone), or None."""
        stopped = self._stopped or self.client.stopped()
        if stopped is not None:
            return self._not_run(case, base, stopped)
        if not self._ensure_running():
            assert self._dead is not None
            return self._error(base, self._dead, prefix="the engine is not running: ")
        return None

    def _run(self, case: Case, base: Verdict) -> Verdict:
        unready = self._unready(case, base)
        if unready is not None:
            return unready
        info = self.client.info
        assert info is not None
        try:
            options = choose_options(case, info, self.defaults)
        except NotApplicable as exc:
            return base.with_changes(outcome=Outcome.NOT_APPLICABLE, message=str(exc))
        base = base.with_changes(options=options)
        self.client.transcript = []
        self.client.mark_stderr()
        step_index: int | None = None
        phase = "setup"
        try:
            if case.setup_refused is not None:
                self._refused_setup(case, options)
                return base
            state = self._setup(case, options)
            phase = "step"
            for step_index, step in enumerate(case.steps):
                state = self._step(step_index, step, state)
            step_index, phase = None, "final"
            if case.final is not None:
                found = compare_final(case.final, state.get("result"))
                if found:
                    raise CaseFailed("the end of the hand differs from the case", found)
        except NotApplicable as exc:
            return base.with_changes(outcome=Outcome.NOT_APPLICABLE, message=str(exc))
        except CaseFailed as exc:
            return self._failed(base, case, exc, step_index, phase)
        except Stopped as exc:
            return self._stop(base, exc, step=step_index, case=case)
        except EngineError as exc:
            verdict = self._error(base, exc, step=step_index, case=case)
            if isinstance(exc, Unsolicited) and len(self.client.transcript) == 1 and self._previous is not None:
                verdict = verdict.with_changes(message=f"{exc.message}: it was there before this case's first request, "
                                                       f"so it came after the end of the previous case, {self._previous}")
            self._restart()
            return verdict
        return base

    def _after_case(self, case: Case | Any, verdict: Verdict, wait: float) -> Verdict:
        """Blame this case for output nobody asked for after its last answer (a second answer, a log
        line on stdout, an exit): the next case has not sent anything yet, so it cannot be its fault."""
        try:
            self.client.expect_quiet(wait)
        except Stopped as exc:  # the case itself was over: keep its verdict
            self._stopped = exc
            self.client.stop(polite=False)
            return verdict
        except EngineError as exc:
            error = self._error(verdict, exc)
            if verdict.outcome is Outcome.FAIL:
                error = error.with_changes(message=f"{error.message} (the case had failed before: {verdict.message})")
            self._restart()
            return error.with_changes(step=verdict.step, step_text=verdict.step_text or "after the last step",
                                      line=verdict.line if verdict.step is not None else case.line)
        return verdict

    def _setup(self, case: Case, options: Mapping[str, Any]) -> dict[str, Any]:
        response = self.client.request(RequestType.NEW_HAND, new_hand_fields(case, options))
        if response["ok"]:
            state: dict[str, Any] = response["state"]
            return state
        error = response["error"]
        if error["reason"] == ErrorReason.UNSUPPORTED.value:
            raise NotApplicable(f"the engine refused the setup as unsupported: {error['message']}")
        raise CaseFailed(
            f"the engine refused a valid hand setup ({error['reason']}: {error['message']})",
            [Mismatch(path="ok", expected=True, actual=False)],
        )

    def _refused_setup(self, case: Case, options: Mapping[str, Any]) -> None:
        """A setup the rules forbid: pass iff the engine refuses new_hand with an allowed reason.

        An acceptance is a `fail` whatever state comes with it: a state built from a forbidden
        setup (nine seats, a negative stack) often breaks the schema too, and that is the same
        mistake, not a protocol error worth a restart. The next case's new_hand replaces the hand.
        """
        assert case.setup_refused is not None
        expected = case.setup_refused.reasons
        pending: Pending = self.client.send(RequestType.NEW_HAND, new_hand_fields(case, options))
        if self.client.receive(pending, schema=False)["ok"]:
            raise CaseFailed(f"the engine accepted a hand the rules forbid: {case.setup_refused.why}",
                             [Mismatch(path="ok", expected=False, actual=True)])
        response = self.client.check(pending)  # a refusal must still be a well-formed error answer
        error = response["error"]
        if error["reason"] not in expected:
            raise CaseFailed(
                f"the engine refused the forbidden setup for the wrong reason ({error['message']})",
                [Mismatch(path="reason", expected=expected[0] if len(expected) == 1 else list(expected),
                          actual=error["reason"])],
            )

    def _step(self, index: int, step: Step, state: dict[str, Any]) -> dict[str, Any]:
        if step.kind is StepKind.EXPECT:
            found = compare_state(step.expect or {}, state)
            if found:
                raise CaseFailed("the state differs from the case", found)
            return state
        fields_: dict[str, Any] = {"seat": step.seat, "action": step.action.value if step.action else None}
        if step.amount is not None:
            fields_["amount"] = step.amount
        response = self.client.request(RequestType.ACT, fields_)
        if step.kind is StepKind.ACT:
            if not response["ok"]:
                error = response["error"]
                raise CaseFailed(
                    f"the engine refused a legal action ({error['reason']}: {error['message']})",
                    [Mismatch(path="ok", expected=True, actual=False)],
                )
            new_state: dict[str, Any] = response["state"]
            return new_state
        return self._check_refusal(step, response, state)

    def _check_refusal(self, step: Step, response: Mapping[str, Any], before: dict[str, Any]) -> dict[str, Any]:
        if response["ok"]:
            raise CaseFailed(
                f"the engine accepted an action that must be refused ({step.reason})",
                [Mismatch(path="reason", expected=step.reason, actual=None)],
            )
        reason = response["error"]["reason"]
        if reason != step.reason:
            raise CaseFailed(
                f"the engine refused the action for the wrong reason ({response['error']['message']})",
                [Mismatch(path="reason", expected=step.reason, actual=reason)],
            )
        after = self.client.request(RequestType.STATE, {})
        if not after["ok"]:
            error = after["error"]
            raise CaseFailed(f"the engine refused a state request after a refused action ({error['reason']}: {error['message']})")
        # What the protocol defines must be unchanged; extra keys an engine adds (a counter, a clock,
        # the last error) are ignored here as everywhere (protocol.md section 3), and `legal` is a set.
        changed = diff_json(canonical_state(before), canonical_state(after["state"]))
        if changed:
            raise CaseFailed("state changed after refused action", changed)
        return before

    def _failed(self, base: Verdict, case: Case, exc: CaseFailed, step_index: int | None, phase: str) -> Verdict:
        step = case.steps[step_index] if step_index is not None else None
        return base.with_changes(
            outcome=Outcome.FAIL,
            step=step_index,
            step_text=step.describe() if step is not None else phase,
            line=step.line if step is not None else case.line,
            message=exc.message,
            mismatches=exc.mismatches,
            transcript=tuple(self.client.transcript),
            stderr=self.client.stderr_tail() if self.client.running else "",
        )

    def _error(self, base: Verdict, exc: EngineError, *, step: int | None = None, case: Case | None = None, prefix: str = "") -> Verdict:
        step_obj = case.steps[step] if case is not None and step is not None else None
        return base.with_changes(
            outcome=Outcome.ERROR,
            step=step,
            step_text=step_obj.describe() if step_obj is not None else ("setup" if case is not None else None),
            line=step_obj.line if step_obj is not None else base.line,
            message=prefix + exc.message,
            problem=exc.problem.value,
            evidence=exc.line,
            stderr=exc.stderr,
            transcript=tuple(self.client.transcript),
        )

    def _stop(self, base: Verdict, exc: Stopped, *, step: int | None = None, case: Case | None = None) -> Verdict:
        """The case in progress when a signal came or the deadline passed: end the engine now (it may
        be in the middle of a slow answer) and remember why, so the cases left are not run."""
        self._stopped = exc
        self.client.stop(polite=False)
        verdict = self._error(base, exc, step=step, case=case)
        return verdict.with_changes(message=f"not finished: {exc.message} during this case")

    def _not_run(self, case: Case, base: Verdict, exc: Stopped) -> Verdict:
        self._stopped = exc
        if self.client.running:
            self.client.stop(polite=False)
        info = self.client.info
        if info is not None:
            try:
                choose_options(case, info, self.defaults)
            except NotApplicable as reason:  # it would not have run anyway
                return base.with_changes(outcome=Outcome.NOT_APPLICABLE, message=str(reason))
        return base.with_changes(outcome=Outcome.ERROR, step_text=NOT_RUN, message=f"not run: {exc.message}",
                                 problem=exc.problem.value)

    def _restart(self) -> None:
        try:
            self.client.restart()
            self._restart_failures = 0
        except Stopped as exc:
            self._stopped = exc
        except EngineError as exc:
            self._restart_failures += 1
            self._dead = exc

    def _ensure_running(self) -> bool:
        if self.client.running:
            return True
        if self._stopped is not None:
            return False
        if self._restart_failures >= MAX_RESTART_FAILURES:
            return False
        self._restart()
        return self.client.running
