"""Load case files into `Case` objects: YAML with lines -> JSON Schema -> meaning -> deck.

Every problem is reported as `path:line: message`; nothing in a case file can raise anything but
CaseError. The spec indexes (rule IDs, tags) are read here too, for lint and coverage.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from studcheck.cards import Card, CardError, parse_card
from studcheck.cases.cache import CaseCache, content_key
from studcheck.cases.cache import enabled as cache_enabled
from studcheck.cases.deck import DeckError, build_deck, card_count_text, check_full_deck
from studcheck.cases.model import Case, SetupRefusal, Step, StepKind
from studcheck.cases.refusal import CANONICAL_DECK, describe, setup_violations
from studcheck.cases.source import (
    VARIANT_PREFIXES,
    LineDict,
    LineList,
    SourceError,
    line_of,
    parse_yaml,
    schema_problems,
    show,
    to_json_view,
    where,
)
from studcheck.resources import cases_dir, spec_dir
from studcheck.rules import (
    ACTION_ORDER,
    AMOUNT_ACTIONS,
    LAYOUTS,
    ActionType,
    Options,
    SeatSetup,
    SetupError,
    Stakes,
    Variant,
    validate_seats,
)

_ACTION_RE = re.compile(r"^\s*(\d+)\s+([a-z_]+)(?:\s+(\d+))?\s*$")
_NO_AMOUNT = frozenset({ActionType.FOLD, ActionType.CHECK, ActionType.SHOW, ActionType.MUCK})
_REQUIRED_AMOUNT = AMOUNT_ACTIONS - {ActionType.CALL}
SEAT_MAP_KEYS = ("stacks", "committed", "up", "down")
SEAT_SET_KEYS = ("folded", "all_in", "shown", "mucked")


@dataclass(frozen=True, kw_only=True)
class Problem:
    """One thing wrong with a case file; `str()` is `path:line: message`."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class CaseError(ValueError):
    """A case file that cannot be loaded; `problems` lists everything found, the first is the message."""

    def __init__(self, path: Path, line: int, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message
        self.problems = tuple(problems) or (Problem(path=path, line=line, message=message),)


@dataclass(kw_only=True)
class Analysis:
    """What reading one file produced: the case if it loaded, the raw data for lint, the problems."""

    path: Path
    case: Case | None = None
    raw: Any = None
    problems: list[Problem] = field(default_factory=list)

    def add(self, line: int, message: str) -> None:
        self.problems.append(Problem(path=self.path, line=line, message=message))


def analyse(path: Path, data: bytes | None = None) -> Analysis:
    """Read, validate and build one case file, collecting every problem instead of stopping.

    `data`: the file's bytes, when the caller has already read them (the cache hashes them)."""
    result = Analysis(path=path)
    try:
        _analyse(result, data)
    except Exception as exc:  # noqa: BLE001 - a case file must never produce a traceback
        result.case = None
        result.add(1, f"internal error while reading this case ({type(exc).__name__}: {exc}); please report it")
    return result


#: a case ID, whole (cases/README.md: <VARIANT>-<TOPIC>-<NNN>)
CASE_ID = re.compile(r"[A-Z0-9]+(?:-[A-Z0-9]+)+")
#: a case file larger than this is refused before it is read (the largest bundled case is a few kB)
MAX_CASE_BYTES = 1 << 20


def read_case_bytes(path: Path) -> bytes:
    """A case file's bytes, refused before reading unless it is a regular file (a link to one is fine)
    of at most MAX_CASE_BYTES: a link to /dev/zero, a FIFO or a 2 GB file raises OSError with why."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(f"not a regular file ({'a FIFO' if stat.S_ISFIFO(info.st_mode) else 'a device or other special file'})")
    if info.st_size > MAX_CASE_BYTES:
        raise OSError(f"{info.st_size} bytes, more than the {MAX_CASE_BYTES} a case file may have")
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(handle, "rb") as stream:
        data = stream.read(MAX_CASE_BYTES + 1)
    if len(data) > MAX_CASE_BYTES:
        raise OSError(f"more than the {MAX_CASE_BYTES} bytes a case file may have")
    return data


def _analyse(result: Analysis, data: bytes | None = None) -> None:
    try:
        text = _decode(read_case_bytes(result.path) if data is None else data)
    except UnicodeDecodeError as exc:
        result.add(1, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        return
    except OSError as exc:
        result.add(1, f"cannot read the file: {exc.strerror or exc}")
        return
    try:
        documents = parse_yaml(text)
    except SourceError as exc:
        result.add(exc.line, exc.message)
        return
    if not documents or (len(documents) == 1 and documents[0][1] is None):
        result.add(1, "empty file: a case file holds one case (a YAML mapping with id, title, ...)")
        return
    if len(documents) > 1:
        result.add(documents[1][0], f"one case per file: found {len(documents)} YAML documents")
        return
    try:
        raw = to_json_view(documents[0][1])
    except SourceError as exc:
        result.add(exc.line, exc.message)
        return
    result.raw = raw
    if not isinstance(raw, LineDict):
        found = "a list" if isinstance(raw, list) else f"the value {show(raw)}"
        result.add(getattr(raw, "line", 1), f"a case file holds one YAML mapping (id, title, rules, ...), found {found}")
        return
    for line, message in schema_problems(raw):
        result.add(line, message)
    case_id = raw.get("id")
    if isinstance(case_id, str) and not result.problems and not CASE_ID.fullmatch(case_id):
        # the schema's pattern ends in `$`, which Python's re lets match before a final line break
        result.add(raw.key_line("id"), f"id: {show(case_id)} is not an ID: capital letters, digits and dashes only "
                                       "(no space or line break; a YAML block scalar `|` adds one)")
    if result.problems:
        return
    builder = _Builder(raw, result.add)
    case = builder.build(result.path)
    if not result.problems:
        result.case = case


def _decode(data: bytes) -> str:
    """Bytes as `Path.read_text(encoding="utf-8")` reads them: UTF-8, universal newlines."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


class _Builder:
    """Turns schema-valid raw data into a Case, reporting what the schema cannot check."""

    def __init__(self, raw: LineDict, report: Callable[[int, str], None]) -> None:
        self.raw = raw
        self.report = report
        seats = raw["seats"]
        self.seated: frozenset[int] = frozenset(
            int(key) for key in seats if isinstance(key, str) and key.isdigit()) if isinstance(seats, dict) else frozenset()

    def line(self, *path: Any) -> int:
        return line_of(self.raw, path)

    def build(self, path: Path) -> Case | None:
        if "setup_refused" in self.raw:
            return self.build_refused(path)
        raw = self.raw
        options = self.options()
        stakes = self.stakes()
        seats = tuple(SeatSetup(seat=int(key), stack=value["stack"]) for key, value in
                      sorted(raw["seats"].items(), key=lambda item: int(item[0])))
        if not self.seats_fit(seats):
            return None
        deck = self.deck(options) if options is not None else None
        remade = self.remade_stub()
        steps = tuple(self.step(index, item) for index, item in enumerate(raw["steps"]))
        final = self.final(raw.get("final"))
        if options is None or stakes is None or deck is None or any(step is None for step in steps):
            return None
        named = dict(raw.get("options") or {})
        if "burn_cards" not in named and ("deck" in raw or raw.get("burns")):
            # An explicit deck or listed burns fix where the burns are: the burn option matters.
            named["burn_cards"] = True
        seat_cards = None
        if "deck" not in raw:
            seat_cards = {int(key): tuple(self.cards(seat["cards"], ["seats", key, "cards"], wildcard=True) or ())
                          for key, seat in raw["seats"].items()}
        return Case(
            id=raw["id"], title=raw["title"], path=path, line=self.line("id"),
            rules=tuple(raw["rules"]), tags=tuple(raw["tags"]), variant=Variant(raw["variant"]),
            options=named, stakes=stakes, seats=seats, deck=deck,
            remade_stub=remade, steps=tuple(step for step in steps if step is not None), final=final,
            generated=bool(raw.get("generated", False)), note=raw.get("note"),
            seat_cards=seat_cards, burns=tuple(self.cards(raw.get("burns") or [], ["burns"], wildcard=True) or ()),
        )

    def build_refused(self, path: Path) -> Case | None:
        """A case whose setup the engine must refuse: the setup is kept as written, to be sent as is."""
        raw = self.raw
        options = self.options()  # the schema already refused steps, final, burns and per-seat cards
        seats_value = raw["seats"]
        if isinstance(seats_value, dict):
            seats = [{"seat": int(key) if key.lstrip("-").isdigit() else key, "stack": seat["stack"]}
                     for key, seat in seats_value.items()]
        else:
            seats = [dict(entry) for entry in seats_value]
        variant = self.refused_variant()
        if options is None or variant is None:
            return None
        deck = raw.get("deck", list(CANONICAL_DECK))
        stub = raw.get("remade_stub")
        new_hand: dict[str, Any] = {
            "variant": raw["variant"],
            "stakes": dict(raw["stakes"]),
            "seats": seats,
            "deck": deck.split() if isinstance(deck, str) else list(deck),
            "remade_stub": None if stub is None else (stub.split() if isinstance(stub, str) else list(stub)),
        }
        refusal = raw["setup_refused"]
        reason = refusal["reason"]
        reasons = tuple(reason) if isinstance(reason, list) else (reason,)
        why = refusal.get("why") or describe(setup_violations(new_hand)) or "(the setup breaks no setup rule)"
        return Case(
            id=raw["id"], title=raw["title"], path=path, line=self.line("id"),
            rules=tuple(raw["rules"]), tags=tuple(raw["tags"]), variant=variant,
            options=dict(raw.get("options") or {}), stakes=None, seats=(), deck=(), remade_stub=None,
            steps=(), final=None, generated=bool(raw.get("generated", False)), note=raw.get("note"),
            setup_refused=SetupRefusal(reasons=reasons, why=why), new_hand=new_hand,
        )

    def refused_variant(self) -> Variant | None:
        """The variant whose suite the case belongs to: `variant`, or the ID prefix if that is unknown."""
        try:
            return Variant(self.raw["variant"])
        except ValueError:
            pass
        prefix = self.raw["id"].split("-", 1)[0]
        by_prefix = {short: Variant(name) for name, short in VARIANT_PREFIXES.items()}
        if prefix in by_prefix:
            return by_prefix[prefix]
        self.report(self.line("id"), f"id: a setup_refused case with an unknown variant ({show(self.raw['variant'])}) "
                                     "names its suite by the ID prefix: SH-, RZ- or HL-")
        return None

    def seats_fit(self, seats: tuple[SeatSetup, ...]) -> bool:
        """The schema allows seats up to 10 (five-card stud); seven-card games seat 8."""
        variant = self.raw["variant"]
        most = LAYOUTS[Variant(variant)].max_seats
        for setup in seats if len(seats) <= most else ():
            if setup.seat > most:
                self.report(self.line("seats", str(setup.seat)),
                            f"seats: {setup.seat!r} is not a seat number (1 to {most}) in {variant}")
                return False
        try:
            validate_seats(seats, most)
        except SetupError as exc:
            self.report(self.line("seats"), f"seats: {exc.message} in {variant}")
            return False
        return True

    def options(self) -> Options | None:
        try:
            return Options.from_json(self.raw.get("options") or {})
        except SetupError as exc:
            self.report(self.line(*exc.field.split(".")), f"{exc.field}: {exc.message}")
            return None

    def stakes(self) -> Stakes | None:
        try:
            return Stakes(**self.raw["stakes"])
        except SetupError as exc:
            self.report(self.line(*exc.field.split(".")), f"{exc.field}: {exc.message}")
            return None

    def cards(self, value: Any, path: Sequence[Any], *, wildcard: bool) -> list[Card | None] | None:
        tokens = value.split() if isinstance(value, str) else list(value)
        cards: list[Card | None] = []
        for index, token in enumerate(tokens):
            if wildcard and token == "??":
                cards.append(None)
                continue
            try:
                cards.append(parse_card(token))
            except CardError as exc:
                line = self.line(*path, index) if isinstance(value, list) else self.line(*path)
                self.report(line, f"{where(path)}: {exc}")
                return None
        return cards

    def deck(self, options: Options) -> tuple[Card, ...] | None:
        raw = self.raw
        if "deck" in raw:
            for key, seat in raw["seats"].items():
                if "cards" in seat:
                    self.report(self.line("seats", key, "cards"),
                                f"seats.{key}.cards: not allowed together with deck (the deck decides every card)")
            if raw.get("burns"):
                self.report(self.line("burns"), "burns: not allowed together with deck (the deck decides every card)")
            cards = self.cards(raw["deck"], ["deck"], wildcard=False)
            if cards is None:
                return None
            try:
                return check_full_deck([card for card in cards if card is not None])
            except DeckError as exc:
                self.report(self.line("deck"), exc.message)
                return None
        seat_cards: dict[int, list[Card | None]] = {}
        for key, seat in raw["seats"].items():
            if "cards" not in seat:
                self.report(self.line("seats", key),
                            f"seats.{key}: no cards; list the {card_count_text(Variant(raw['variant']))} this seat is dealt (?? = any card), "
                            "or give the whole deck with deck:")
                return None
            cards = self.cards(seat["cards"], ["seats", key, "cards"], wildcard=True)
            if cards is None:
                return None
            layout = LAYOUTS[Variant(raw["variant"])]
            if not len(layout.opening_faces) <= len(cards) <= layout.max_cards:
                self.report(self.line("seats", key, "cards"), f"seats.{key}.cards: {len(cards)} cards listed; "
                            f"a {raw['variant']} seat is dealt {card_count_text(Variant(raw['variant']))}")
                return None
            seat_cards[int(key)] = cards
        burns = self.cards(raw.get("burns") or [], ["burns"], wildcard=True)
        if burns is None:
            return None
        try:
            return build_deck(seat_cards, burns, burn_cards=options.burn_cards, short_stub=options.short_stub,
                              variant=Variant(raw["variant"]))
        except DeckError as exc:
            if exc.field == "burns":
                line = self.line("burns")
            elif exc.seat is not None:
                line = self.line("seats", str(exc.seat), "cards")
            else:
                line = self.line("seats")
            self.report(line, f"{exc.field}: {exc.message}")
            return None

    def remade_stub(self) -> tuple[Card, ...] | None:
        if "remade_stub" not in self.raw:
            return None
        if "deck" not in self.raw:
            self.report(self.line("remade_stub"), "remade_stub: needs an explicit deck (deck:)")
            return None
        cards = self.cards(self.raw["remade_stub"], ["remade_stub"], wildcard=False)
        if cards is None:
            return None
        stub = tuple(card for card in cards if card is not None)
        if len(set(stub)) != len(stub):
            self.report(self.line("remade_stub"), "remade_stub: lists a card more than once")
        return stub

    def action(self, text: str, path: Sequence[Any], *, kind: StepKind) -> tuple[int, ActionType, int | None] | None:
        line = self.line(*path)
        label = where(path)
        match = _ACTION_RE.match(text)
        if match is None:
            self.report(line, f"{label}: {text!r} is not 'SEAT ACTION [AMOUNT]'")
            return None
        seat, name, amount_text = int(match.group(1)), match.group(2), match.group(3)
        try:
            action = ActionType(name)
        except ValueError:
            self.report(line, f"{label}: unknown action {name!r}")
            return None
        amount = int(amount_text) if amount_text is not None else None
        if kind is StepKind.ACT:
            if action in _REQUIRED_AMOUNT and amount is None:
                self.report(line, f"{label}: '{text}' needs an amount, the seat's street total after the "
                                  f"{action.value} (e.g. '{seat} {action.value} 10')")
                return None
            if action in _NO_AMOUNT and amount is not None:
                self.report(line, f"{label}: {action.value} takes no amount")
                return None
            if seat not in self.seated:
                self.report(line, f"{label}: seat {seat} is not seated (seated: {self._seated_text()})")
                return None
        return seat, action, amount

    def _seated_text(self) -> str:
        return " ".join(str(seat) for seat in sorted(self.seated))

    def step(self, index: int, item: LineDict) -> Step | None:
        line = self.line("steps", index)
        if "act" in item:
            parsed = self.action(item["act"], ["steps", index], kind=StepKind.ACT)
            if parsed is None:
                return None
            return Step(kind=StepKind.ACT, line=line, seat=parsed[0], action=parsed[1], amount=parsed[2])
        if "reject" in item:
            reject = item["reject"]
            parsed = self.action(reject["act"], ["steps", index], kind=StepKind.REJECT)
            if parsed is None:
                return None
            reason = reject["reason"]
            seat = parsed[0]
            if seat not in self.seated and reason != "unknown_seat":
                self.report(line, f"steps[{index}]: seat {seat} is not seated, so the reason can only be "
                                  f"unknown_seat (seated: {self._seated_text()})")
                return None
            if seat in self.seated and reason == "unknown_seat":
                self.report(line, f"steps[{index}]: reason unknown_seat but seat {seat} is seated")
                return None
            return Step(kind=StepKind.REJECT, line=line, seat=seat, action=parsed[1], amount=parsed[2],
                        reason=reason)
        expect = self.expect(item["expect"], ["steps", index, "expect"])
        if expect is None:
            return None
        return Step(kind=StepKind.EXPECT, line=line, expect=expect)

    def check_seats(self, seats: Iterable[int | str], path: Sequence[Any]) -> bool:
        unseated = sorted({int(seat) for seat in seats} - self.seated)
        if unseated:
            names = ", ".join(map(str, unseated))
            self.report(self.line(*path), f"{where(path)}: seat {names} is not seated "
                                          f"(seated: {self._seated_text()})")
            return False
        return True

    def expect(self, raw: LineDict, path: Sequence[Any]) -> dict[str, Any] | None:
        """Normalise to canonical JSON: seat keys "1".."8", legal as action/amount dicts, sorted sets."""
        ok = True
        out: dict[str, Any] = {}
        for key, value in raw.items():
            here = [*path, key]
            if key == "legal":
                out[key] = _legal(value)
            elif key in SEAT_MAP_KEYS:
                ok &= self.check_seats(value, here)
                if key in ("up", "down"):
                    out[key] = {seat: [str(card) for card in _card_list(cards)] for seat, cards in value.items()}
                else:
                    out[key] = dict(value)
            elif key in SEAT_SET_KEYS:
                ok &= self.check_seats(value, here)
                out[key] = sorted(value)
            elif key == "to_act":
                if value is not None:
                    ok &= self.check_seats([value], here)
                out[key] = value
            elif key == "pots":
                out[key] = [{"amount": pot["amount"], "eligible": sorted(pot["eligible"])} for pot in value]
                for number, pot in enumerate(value):
                    ok &= self.check_seats(pot["eligible"], [*here, number, "eligible"])
            else:
                out[key] = value
        return out if ok else None

    def check_award_key(self, name: str, path: Sequence[Any]) -> None:
        """Split pots (stud_hilo8) award `high` and `low`; the other games award `winners`."""
        hilo = self.raw["variant"] == Variant.STUD_HILO8.value
        if hilo and name == "winners":
            self.report(self.line(*path), f"{where(path)}: stud_hilo8 pots are awarded as high and low, not winners")
        elif not hilo and name != "winners":
            self.report(self.line(*path), f"{where(path)}: {self.raw['variant']} pots are awarded as winners, "
                                          f"not {name} (high/low is stud_hilo8)")

    def final(self, raw: LineDict | None) -> dict[str, Any] | None:
        if raw is None:
            return None
        out: dict[str, Any] = {}
        for key, value in raw.items():
            here = ["final", key]
            if key == "pots":
                pots = []
                for number, pot in enumerate(value):
                    entry: dict[str, Any] = {}
                    for name, item in pot.items():
                        if name == "eligible":
                            self.check_seats(item, [*here, number, name])
                            entry[name] = sorted(item)
                        elif name in ("winners", "high", "low"):
                            self.check_award_key(name, [*here, number, name])
                            self.check_seats(item, [*here, number, name])
                            entry[name] = dict(item)
                        else:
                            entry[name] = item
                    pots.append(entry)
                out[key] = pots
            elif key in ("stacks", "returned"):
                self.check_seats(value, here)
                out[key] = dict(value)
            elif key == "showdown_order":
                self.check_seats(value, here)
                out[key] = list(value)
            else:
                out[key] = value
        return out


def _card_list(value: Any) -> list[Card]:
    return [parse_card(token) for token in (value.split() if isinstance(value, str) else value)]


def _legal(entries: Sequence[str]) -> list[dict[str, Any]]:
    legal: list[dict[str, Any]] = []
    for entry in entries:
        parts = entry.split()
        action = ActionType(parts[0])
        item: dict[str, Any] = {"action": action.value}
        if len(parts) > 1:
            low, _, high = parts[1].partition("..")
            item["amount"] = int(low)
            if high:  # a pot/no-limit range, as the protocol writes it
                item["min"], item["max"] = int(low), int(high)
        legal.append(item)
    legal.sort(key=lambda item: (ACTION_ORDER[ActionType(item["action"])], item.get("amount", 0)))
    return legal


def load_case(path: Path | str, *, cache: CaseCache | None = None) -> Case:
    """Load one case file; raises CaseError (with every problem found) if it is not a valid case.

    With a `cache`, a file whose bytes were loaded before comes from it; a file that loads is added."""
    path = Path(path)
    data: bytes | None = None
    key = ""
    if cache is not None:
        try:
            data = read_case_bytes(path)
        except OSError:
            data = None  # analyse reads it again and reports why it cannot
        else:
            key = content_key(data)
            cached = cache.get(key, path)
            if cached is not None:
                return cached
    result = analyse(path, data)
    if result.case is not None and cache is not None and data is not None:
        cache.put(key, result.case)
    if result.case is None:
        problems = sorted(result.problems, key=lambda problem: problem.line) or [
            Problem(path=result.path, line=1, message="not a valid case")]
        first = problems[0]
        raise CaseError(first.path, first.line, first.message, problems)
    return result.case


#: the folder of the evaluation profile's cases (cases/evaluation.py): left out of the hand cases
EVALUATION_FOLDER = "evaluation"


def is_evaluation_file(path: Path, top: Path | None = None) -> bool:
    """A file of the evaluation profile: under an `evaluation` folder of `top` (a folder scanned), or,
    for a file named on its own, in `evaluation/` or `evaluation/<kind>/`."""
    if top is not None:
        return path.relative_to(top).parts[0] == EVALUATION_FOLDER
    return EVALUATION_FOLDER in path.parts[-3:-1]


def yaml_files(directory: Path, *, evaluation: bool = False) -> list[Path]:
    """The *.yaml files under `directory`, sorted: the hand cases, or (`evaluation`) the evaluation cases."""
    return [path for path in sorted(directory.rglob("*.yaml")) if is_evaluation_file(path, directory) is evaluation]


def case_files(paths: Sequence[Path | str] | None = None) -> list[Path]:
    """The files named plus every *.yaml under the directories named, each directory sorted (the
    evaluation profile's folder left out: its cases are another format)."""
    files: list[Path] = []
    for item in [Path(p) for p in paths] if paths else [cases_dir()]:
        if item.is_dir():
            files.extend(yaml_files(item))
        else:
            files.append(item)
    return files


def load_cases(paths: Sequence[Path | str] | None = None, *, errors: list[CaseError] | None = None,
               cache: bool = True) -> list[Case]:
    """Load every case under `paths` (default: the bundled cases/ directory).

    Without `errors`, the first bad file (or duplicated ID) raises CaseError. With a list, bad files
    are skipped and their errors appended, so a runner can report them and still run the rest.
    Cases that loaded before come from the user's cache (cache.py) unless `cache` is False or
    STUDCHECK_NO_CACHE is set; the result is the same either way.
    """
    store = CaseCache() if cache and cache_enabled() else None
    try:
        return _load_all(case_files(paths), errors, store)
    finally:
        if store is not None:
            store.save()


def _load_all(files: Sequence[Path], errors: list[CaseError] | None, store: CaseCache | None) -> list[Case]:
    cases: list[Case] = []
    seen: dict[str, Case] = {}
    for path in files:
        try:
            case = load_case(path, cache=store)
        except CaseError as exc:
            if errors is None:
                raise
            errors.append(exc)
            continue
        if case.id in seen:
            other = seen[case.id]
            error = CaseError(case.path, case.line, f"duplicate id {case.id} (also {other.path}:{other.line})")
            if errors is None:
                raise error
            errors.append(error)
            continue
        seen[case.id] = case
        cases.append(case)
    return cases


@dataclass(frozen=True, kw_only=True)
class RuleInfo:
    id: str
    title: str
    variants: tuple[Variant, ...]
    refusal: bool = False  # the rule forbids an action: a `reject` case must cite it


@lru_cache(maxsize=4)
def rule_index(spec: Path | None = None) -> dict[str, RuleInfo]:
    """spec/rules.yaml as {rule id: RuleInfo}, in file order; retired rules are left out."""
    with ((spec or spec_dir()) / "rules.yaml").open(encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return {entry["id"]: RuleInfo(id=entry["id"], title=str(entry["title"]),
                                  variants=tuple(Variant(v) for v in entry["variants"]),
                                  refusal=bool(entry.get("refusal", False)))
            for entry in data["rules"] if "retired" not in entry}


@lru_cache(maxsize=4)
def retired_rules(spec: Path | None = None) -> dict[str, str]:
    """The retired entries of spec/rules.yaml: {rule id: "<date>: replaced by NEW.ID — reason"}.

    A retired ID stays in the index so that it is never reused, but no case may cite it."""
    with ((spec or spec_dir()) / "rules.yaml").open(encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return {str(entry["id"]): str(entry["retired"]) for entry in data["rules"] if "retired" in entry}


@lru_cache(maxsize=4)
def tag_vocabulary(spec: Path | None = None) -> dict[str, str]:
    """spec/tags.yaml as {tag: description}."""
    with ((spec or spec_dir()) / "tags.yaml").open(encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return {str(tag): str(text) for tag, text in data["tags"].items()}


__all__ = ["Analysis", "CaseError", "LineList", "Problem", "RuleInfo", "analyse", "case_files", "load_case",
           "load_cases", "retired_rules", "rule_index", "tag_vocabulary"]
