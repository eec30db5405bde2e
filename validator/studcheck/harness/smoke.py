"""`studcheck smoke`: is the adapter wired correctly? (before any rule is judged)

Handshake, then one short hand (everyone folds to the bring-in), then `bye`. Every problem is told
in plain words with a hint, because the person reading it is writing an adapter right now. A
signal (Ctrl-C on an adapter that hangs) ends the engine's process group and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from studcheck.cards import FULL_DECK, parse_cards
from studcheck.harness.compare import canonical_state, diff_json
from studcheck.protocol.client import EngineClient, EngineError, Problem, Stopped, shorten
from studcheck.protocol.messages import RequestType
from studcheck.rules import Options

HINTS: dict[Problem, str] = {
    Problem.START: "check the command (try running it by hand); it must read requests on stdin",
    Problem.TIMEOUT: "does the engine flush stdout after every answer line? (Python: print(line, flush=True))",
    Problem.CRASH: "the engine's stderr (below) usually says why",
    Problem.NOT_JSON: "stdout is only for protocol answers, one JSON object per line; write logs to stderr",
    Problem.LINE_TOO_LONG: "each answer must be one line of JSON (no pretty-printing) and reasonably small",
    Problem.WRONG_SEQ: "every answer must copy the `seq` of the request it answers",
    Problem.BAD_RESPONSE: "compare the answer with spec/protocol.md and spec/schema/protocol.schema.json",
    Problem.PROTOCOL_VERSION: "answer hello with \"protocol\": 1 (the version this harness speaks)",
    Problem.INTERRUPTED: "a signal stopped the harness; the engine's whole process group was ended",
    Problem.DEADLINE: "the run's --deadline passed; a longer one, or a faster engine, lets it finish",
}

#: three players; door cards Kh, 2c, Qd: seat 2 brings in (lowest up card) in Stud High. Five-card
#: stud deals one down card first, so its doors are Kc, Ks, Kd: seat 1 (Kc) brings in.
SMOKE_CARDS = parse_cards("Ah As Ad Kc Ks Kd Kh 2c Qd")
SMOKE_DECK = [*map(str, SMOKE_CARDS), *(str(card) for card in FULL_DECK if card not in SMOKE_CARDS)]
SMOKE_STAKES = {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}


def diagnose(exc: EngineError) -> str:
    """What went wrong, the evidence, and what to try."""
    lines = [exc.message if exc.problem is not Problem.NOT_JSON else f"{exc.message}: {exc.line}"]
    if exc.line and exc.problem is not Problem.NOT_JSON:
        lines.append(f"  engine output: {exc.line}")
    lines.append(f"  hint: {HINTS[exc.problem]}")
    if exc.stderr.strip():  # the first lines hold a crash's traceback, the last its last words
        lines.append("  engine stderr:")
        lines.extend(f"    {text}" for text in shorten(exc.stderr, head=20, tail=5).splitlines())
    return "\n".join(lines)


@dataclass(frozen=True, kw_only=True)
class SmokeResult:
    ok: bool
    started: bool
    lines: tuple[str, ...]
    stopped: str | None = None  # why a signal cut the smoke test short


class _Smoke:
    def __init__(self, client: EngineClient, say: Callable[[str], None]) -> None:
        self.client = client
        self.say = say
        self.problems = 0

    def check(self, good: bool, what: str, detail: str = "") -> bool:
        self.say(f"{'ok    ' if good else 'FAILED'} {what}" + (f"\n         {detail}" if detail and not good else ""))
        if not good:
            self.problems += 1
        return good

    def act(self, seat: int, action: str, amount: int | None = None) -> dict[str, Any]:
        fields: dict[str, Any] = {"seat": seat, "action": action}
        if amount is not None:
            fields["amount"] = amount
        return self.client.request(RequestType.ACT, fields)

    def new_hand(self, label: str, **late: Any) -> tuple[str, dict[str, Any]]:
        """The smoke hand's setup: every v1 option at its default if supported (else the first
        value declared), plus the late options given; returns the variant and the answer."""
        info = self.client.info
        assert info is not None
        variant = "stud_high" if info.supports_variant("stud_high") else info.variants[0]
        options = {}
        for name, default in Options().to_json().items():
            options[name] = default if info.supports(name, default) else info.supported_values(name)[0]
        response = self.client.request(RequestType.NEW_HAND, {
            "variant": variant, "options": {**options, **late}, "stakes": SMOKE_STAKES,
            "seats": [{"seat": seat, "stack": 100} for seat in (1, 2, 3)], "deck": SMOKE_DECK,
            "remade_stub": None, "label": label,
        })
        return variant, response

    def big_bet_hand(self, betting: str) -> None:
        """For an engine that declares pot or no limit: a raise is offered as a range and an amount
        above it is refused with invalid_amount, the state unchanged (spec/protocol.md section 3)."""
        variant, response = self.new_hand("SMOKE-2", betting=betting)
        if not self.check(response["ok"], f"new_hand ({variant}, betting {betting}) accepted", f"refused: {response.get('error')}"):
            return
        state = response["state"]
        seat = state["to_act"]
        if not isinstance(seat, int):
            return
        response = self.act(seat, "bring_in", 2)
        if not self.check(response["ok"], f"seat {seat} brings in 2", f"refused: {response.get('error')}"):
            return
        state = response["state"]
        # Pot 3 antes + 2: a raise to at least 2 + 2 = 4, at most 2 + (5 + 2) = 9 in pot limit, 99 in no limit.
        top = 9 if betting == "pot_limit" else 99
        want = {"action": "raise", "amount": 4, "min": 4, "max": top}
        if not self.check(want in state["legal"], f"the next player may raise to 4..{top}: {want}",
                          f"legal = {state['legal']}"):
            return
        refused = self.act(state["to_act"], "raise", top + 1)
        reason = (refused.get("error") or {}).get("reason")
        if self.check(not refused["ok"] and reason == "invalid_amount", f"a raise to {top + 1} is refused with invalid_amount",
                      f"answer: {refused}"):
            again = self.client.request(RequestType.STATE, {})
            self.unchanged(state, again, "the state is unchanged after the refused raise")

    def unchanged(self, before: dict[str, Any], again: dict[str, Any], what: str) -> None:
        """What the protocol defines is the same as before (extra keys are ignored, `legal` is a set)."""
        changed = diff_json(canonical_state(before), canonical_state(again.get("state")))
        self.check(not changed, what, "the `state` answer differs from the state before the refused action: "
                   + "; ".join(item.describe() for item in changed[:3]))

    def hand(self) -> None:
        client = self.client
        variant, response = self.new_hand("SMOKE-1")
        if not self.check(response["ok"], f"new_hand ({variant}, 3 players) accepted", f"refused: {response.get('error')}"):
            return
        state = response["state"]
        bring_in, door = {"stud_high": (2, "2c"), "stud_hilo8": (2, "2c"), "razz": (1, "Kh"),
                          "five_card_stud": (1, "Kc")}.get(variant, (2, "2c"))
        self.check(state["to_act"] == bring_in, f"seat {bring_in} (door card {door}) is to bring in",
                   f"the state says to_act = {state['to_act']}")
        seat = state["to_act"]
        if not isinstance(seat, int):
            return
        other = next(s for s in (1, 2, 3) if s != seat)
        refused = self.act(other, "call")
        if self.check(not refused["ok"], f"an action out of turn (seat {other} call) is refused with ok: false",
                      "the engine accepted it"):
            again = client.request(RequestType.STATE, {})
            self.unchanged(state, again, "the state is unchanged after the refused action")
        else:
            return
        amount = next((entry.get("amount") for entry in state["legal"] if entry["action"] == "bring_in"), None)
        response = self.act(seat, "bring_in", amount)
        if not self.check(response["ok"], f"seat {seat} brings in {amount}", f"refused: {response.get('error')}"):
            return
        for _ in range(2):
            state = response["state"]
            folder = state["to_act"]
            response = self.act(folder, "fold") if isinstance(folder, int) else response
            if not self.check(response["ok"], f"seat {folder} folds", f"refused: {response.get('error')}"):
                return
        state = response["state"]
        self.check(state["street"] == "complete", "the hand is complete after everyone folded to the bring-in",
                   f"street = {state['street']!r}")
        stacks = (state.get("result") or {}).get("stacks", {})
        self.check(stacks.get(str(seat)) == 102, f"seat {seat} wins the antes (result.stacks.{seat} = 102)",
                   f"result.stacks = {stacks}")


def run_smoke(client: EngineClient, say: Callable[[str], None]) -> SmokeResult:
    lines: list[str] = []

    def record(text: str) -> None:
        lines.append(text)
        say(text)

    smoke = _Smoke(client, record)
    try:
        info = client.start()
    except Stopped as exc:
        return _stopped(client, exc, record, lines, started=False)
    except EngineError as exc:
        record("FAILED the engine starts and answers hello\n" + diagnose(exc))
        return SmokeResult(ok=False, started=False, lines=tuple(lines))
    smoke.check(True, f"hello: {info.name} {info.version}, protocol 1, variants {', '.join(info.variants) or '(none)'}")
    if not smoke.check(bool(info.variants), "the engine supports at least one variant"):
        client.stop()
        return SmokeResult(ok=False, started=True, lines=tuple(lines))
    try:
        smoke.hand()
        for betting in ("pot_limit", "no_limit"):
            if info.supports("betting", betting):
                smoke.big_bet_hand(betting)
        client.stop()
    except Stopped as exc:
        return _stopped(client, exc, record, lines, started=True)
    except EngineError as exc:
        record("FAILED the engine kept to the protocol\n" + diagnose(exc))
        client.stop(polite=False)
        return SmokeResult(ok=False, started=True, lines=tuple(lines))
    return SmokeResult(ok=smoke.problems == 0, started=True, lines=tuple(lines))


def _stopped(client: EngineClient, exc: Stopped, record: Callable[[str], None], lines: list[str], *,
             started: bool) -> SmokeResult:
    client.stop(polite=False)
    record(f"stopped: {exc.message}; the engine and everything it started were ended")
    return SmokeResult(ok=False, started=started, lines=tuple(lines), stopped=exc.message)
