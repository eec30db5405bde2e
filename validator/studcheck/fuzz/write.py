"""Turn a (shrunk) divergent hand into a case file any engine can be run on.

The case has an explicit 52-card deck and every option, so nothing is inferred; its steps are the
actions played (refused ones as `reject` with the reference's reason); at the diverging step it
expects what the REFERENCE answered, and `final` is the reference's result when the hand ended.
Expectations therefore come from the reference engine, not from rule text: the case is a
reproduction, and `generated: true` says so (docs/fuzzing.md explains how to make it permanent).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from studcheck.cases.load import rule_index
from studcheck.cases.lint import VARIANT_PREFIXES
from studcheck.fuzz.compare import Divergence
from studcheck.harness.compare import canonical_result
from studcheck.harness.compare import legal_text
from studcheck.fuzz.play import Exchange, ExchangeKind, HandRecord, failure_record
from studcheck.fuzz.rules_map import Area, area_at, area_for

SEAT_EXPECT = {"stack": "stacks", "committed": "committed", "up": "up", "down": "down",
               "folded": "folded", "all_in": "all_in", "shown": "shown", "mucked": "mucked"}
TOP_EXPECT = ("street", "to_act", "legal", "community", "pots", "pot_total")
EXPECT_ORDER = ("street", "to_act", "legal", "stacks", "committed", "up", "down", "folded", "all_in",
                "shown", "mucked", "community", "pots", "pot_total")
_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_ .:+()-]*$")
_YAML_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}


@dataclass(frozen=True, kw_only=True)
class WrittenCase:
    path: Path
    case_id: str
    title: str
    area: Area
    rules: tuple[str, ...]  # the rules the case cites (the area's that apply to the variant)
    steps: int
    seats: int


def expect_keys(divergence: Divergence) -> list[str]:
    """The `expect` keys that cover every differing field (plus street and to_act for context)."""
    keys = {"street", "to_act"}
    for difference in divergence.all:
        path = difference.path.split(".", 1)[1] if difference.path.startswith("state") else ""
        head = re.split(r"[.\[]", path, maxsplit=1)[0]
        if head in TOP_EXPECT:
            keys.add(head)
        elif head == "seats":
            field = re.match(r"seats\[\d+\]\.(\w+)", path)
            if field and field.group(1) in SEAT_EXPECT:
                keys.add(SEAT_EXPECT[field.group(1)])
            else:  # the seat list itself differs: assert everything about the seats
                keys.update(SEAT_EXPECT.values())
    return [key for key in EXPECT_ORDER if key in keys]


def expectation(state: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """The reference state's values for `keys`, in case-file shapes."""
    seats = state.get("seats") or []
    out: dict[str, Any] = {}
    for key in keys:
        if key == "legal":
            out[key] = [legal_text(entry) for entry in state.get("legal") or []]  # a range: `raise 4..12`
        elif key in ("stacks", "committed"):
            field = "stack" if key == "stacks" else key
            out[key] = {row["seat"]: row[field] for row in seats}
        elif key in ("up", "down"):
            out[key] = {row["seat"]: list(row[key]) for row in seats}
        elif key in ("folded", "all_in", "shown", "mucked"):
            out[key] = [row["seat"] for row in seats if row[key]]
        elif key == "pots":
            out[key] = [{"amount": pot["amount"], "eligible": sorted(pot["eligible"])} for pot in state.get("pots") or []]
        else:
            out[key] = state.get(key)
    return out


def final_of(result: Mapping[str, Any]) -> dict[str, Any]:
    canonical = canonical_result(result)
    out: dict[str, Any] = {"pots": [], "rake": canonical["rake"], "returned": _int_keys(canonical["returned"] or {}),
                           "showdown_order": canonical["showdown_order"], "stacks": _int_keys(canonical["stacks"] or {})}
    for pot in canonical["pots"] or []:
        entry: dict[str, Any] = {"amount": pot["amount"], "eligible": pot["eligible"]}
        for key in ("winners", "high", "low"):
            if key in pot:
                entry[key] = _int_keys(pot[key])
        out["pots"].append(entry)
    return out


def _int_keys(mapping: Mapping[str, Any]) -> dict[int, Any]:
    return {int(key): value for key, value in sorted(mapping.items(), key=lambda item: int(item[0]))}


def build_steps(record: HandRecord) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Steps up to the divergence and `final` (the reference's result if its hand is over)."""
    divergence = record.divergence
    assert divergence is not None
    steps: list[dict[str, Any]] = []
    last_state: Mapping[str, Any] | None = None
    for index, exchange in enumerate(record.exchanges[: divergence.exchange + 1]):
        if exchange.kind == ExchangeKind.ACT:
            steps.append(_act_step(exchange))
        if exchange.reference.get("ok") and exchange.kind != ExchangeKind.STATE:
            last_state = exchange.reference["state"]
        if index == divergence.exchange and exchange.reference.get("ok") and exchange.kind != ExchangeKind.STATE:
            keys = expect_keys(divergence)
            steps.append({"expect": expectation(exchange.reference["state"], keys)})
    final = None
    if last_state is not None and last_state.get("street") == "complete" and last_state.get("result"):
        final = final_of(last_state["result"])
    return steps, final


def _act_step(exchange: Exchange) -> dict[str, Any]:
    assert exchange.move is not None
    if exchange.reference.get("ok"):
        return {"act": exchange.move.text()}
    return {"reject": {"act": exchange.move.text(), "reason": exchange.reference["error"]["reason"]}}


def trimmed_stub(record: HandRecord) -> list[str] | None:
    """The remade-stub preference without the cards dealt before 7th street (they cannot be in the stub).

    The relative order of the remaining cards is kept, so the remake (if any) is the same.
    """
    stub = record.setup.remade_stub
    if stub is None:
        return None
    dealt: set[str] = set()
    for exchange in record.exchanges:
        state = exchange.reference.get("state") if exchange.reference.get("ok") else None
        for row in (state or {}).get("seats") or []:
            dealt.update(list(row["down"])[:2] + list(row["up"]))
    return [card for card in stub if card not in dealt]


def _document(record: HandRecord, area: Area, title: str, steps: list[dict[str, Any]],
              final: dict[str, Any] | None) -> dict[str, Any]:
    """The case as plain data, `note` still to be added and `id` to be filled in from the content hash."""
    setup = record.setup
    known = rule_index()
    rules = [rule for rule in area.rules if rule in known and setup.variant in {v.value for v in known[rule].variants}]
    data: dict[str, Any] = {
        "id": "",
        "title": title,
        "rules": rules or ["ACTION.REFUSAL"],
        "tags": ["generated", *[tag for tag in area.tags if tag != "generated"]],
        "generated": True,
        "variant": setup.variant,
        "options": _case_options(setup.options),
        "stakes": dict(setup.stakes),
        "seats": {seat: {"stack": stack} for seat, stack in setup.seats},
        "deck": list(setup.deck),
    }
    stub = trimmed_stub(record)
    if stub is not None:
        data["remade_stub"] = stub
    data["steps"] = steps
    if final is not None:
        data["final"] = final
    return data


def case_data(record: HandRecord, *, seed: int, hand_number: int, engine_label: str) -> dict[str, Any]:
    """The case as plain data (id still to be filled in from the content hash)."""
    divergence = record.divergence
    assert divergence is not None
    area = area_for(record)
    steps, final = build_steps(record)
    title = f"Generated: {divergence.first.path} differs at {_step_text(record)} ({area.name})"
    data = _document(record, area, title, steps, final)
    first = divergence.first
    evidence = f"reference {json.dumps(first.expected)}, engine {json.dumps(first.actual)}"
    if first.message:
        evidence += f" (engine's message: {first.message})"
    data["note"] = (
        f"Found by `studcheck fuzz --seed {seed}` (hand {hand_number}) against {engine_label}, then shrunk. "
        f"First difference: {first.path}: {evidence}. The expectations are the reference engine's answers, "
        "not rule text: check them against spec/rules before making this a permanent case (docs/fuzzing.md)."
    )
    return data


def _step_text(record: HandRecord, index: int | None = None) -> str:
    from studcheck.fuzz.play import describe_step

    if index is None:
        assert record.divergence is not None
        index = record.divergence.exchange
    return describe_step(record, index).replace("`", "")


def reproducer_data(record: HandRecord, *, seed: int, hand_number: int, engine_label: str) -> dict[str, Any]:
    """A case that replays a hand up to the request the engine failed on (`record.failure`).

    The steps are the hand's actions up to and including that request (refused ones as `reject`),
    then the reference's `street` and `to_act` after it; on the reference it passes, on an engine
    that fails the same way `studcheck run` gives the verdict `error`.
    """
    failure = record.failure
    assert failure is not None
    played = failure_record(record)
    last = len(played.exchanges) - 1
    area = area_at(played, last)
    steps: list[dict[str, Any]] = []
    state: Mapping[str, Any] | None = None
    for exchange in played.exchanges:
        if exchange.kind == ExchangeKind.ACT:
            steps.append(_act_step(exchange))
        if exchange.reference.get("ok") and exchange.kind != ExchangeKind.STATE:
            state = exchange.reference["state"]
    if state is not None:
        steps.append({"expect": expectation(state, ["street", "to_act"])})
    problem = failure.error.problem.value
    title = f"Generated: the engine failed ({problem}) at {_step_text(played, last)} ({area.name})"
    data = _document(played, area, title, steps, None)
    # Without its seq: the seq counts the requests one engine process was sent (each --jobs worker
    # has its own), and the case replays with the harness's own seqs anyway.
    request = json.dumps({key: value for key, value in failure.request.items() if key != "seq"})
    data["note"] = (
        f"Found by `studcheck fuzz --seed {seed}` (hand {hand_number}) against {engine_label}: the engine broke the "
        f"protocol ({problem}: {failure.error.message}) on the request "
        f"({failure.request.get('type')}) {request[:300]}{'…' if len(request) > 300 else ''}. Not shrunk: the steps are "
        "the hand up to that request. `studcheck run` on this case gives the verdict error while the engine fails "
        "the same way; the expectations are the reference engine's answers (docs/fuzzing.md)."
    )
    return data


# --- YAML text ----------------------------------------------------------------------------------


def scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _YAML_WORDS and _reads_back(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def _reads_back(text: str) -> bool:
    """`text` unquoted is the same string in a flow mapping (not a number, not `a: b`)."""
    try:
        loaded = yaml.safe_load("{k: " + text + "}")
    except yaml.YAMLError:
        return False
    return isinstance(loaded, dict) and loaded.get("k") == text


def flow(value: Any) -> str:
    """A JSON-like value in YAML flow style."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{scalar(key)}: {flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(flow(item) for item in value) + "]"
    return scalar(value)


def _cards_block(name: str, cards: Sequence[str]) -> list[str]:
    rows = [", ".join(cards[start:start + 13]) for start in range(0, len(cards), 13)]
    lines = [f"{name}: [{rows[0]}" + ("]" if len(rows) == 1 else ",")]
    for number, row in enumerate(rows[1:], start=1):
        lines.append(" " * (len(name) + 3) + row + ("]" if number == len(rows) - 1 else ","))
    return lines


DIVERGENCE_HEADER = "# Written by `studcheck fuzz`: a shrunk reproduction of a divergence from the reference engine."
FAILURE_HEADER = ("# Written by `studcheck fuzz`: the hand up to the request the engine failed on (crash, timeout, "
                  "broken answer), to replay it.")


def render(data: Mapping[str, Any], header: str = DIVERGENCE_HEADER) -> str:
    lines = [
        header,
        f"id: {data['id']}",
        f"title: {scalar(data['title'])}",
        f"rules: {flow(data['rules'])}",
        f"tags: {flow(data['tags'])}",
        "generated: true",
        f"variant: {data['variant']}",
        f"options: {flow(data['options'])}",
        f"stakes: {flow(data['stakes'])}",
        "seats:",
        *[f"  {seat}: {flow(entry)}" for seat, entry in data["seats"].items()],
        *_cards_block("deck", data["deck"]),
    ]
    if "remade_stub" in data:
        lines += _cards_block("remade_stub", data["remade_stub"]) if data["remade_stub"] else ["remade_stub: []"]
    lines.append("steps:" if data["steps"] else "steps: []")
    lines += [f"  - {flow(step)}" for step in data["steps"]]
    if "final" in data:
        lines.append("final:")
        lines += [f"  {key}: {flow(value)}" for key, value in data["final"].items()]
    lines.append(f"note: {scalar(data['note'])}")
    return "\n".join(lines) + "\n"


def _plain(value: Any) -> Any:
    """JSON round trip with seat keys as strings: how YAML and the data compare."""
    return json.loads(json.dumps(value))


def write_case(record: HandRecord, out_dir: Path, *, seed: int, hand_number: int, engine_label: str) -> WrittenCase:
    """Write the case file; its ID is a hash of the content, so the same hand gives the same file."""
    data = case_data(record, seed=seed, hand_number=hand_number, engine_label=engine_label)
    assert record.divergence is not None
    slug = re.split(r"[\[.]", record.divergence.first.path.replace("state.", "", 1))[0]
    return _write(data, record, out_dir, slug, area_for(record), DIVERGENCE_HEADER)


def write_reproducer(record: HandRecord, out_dir: Path, *, seed: int, hand_number: int,
                     engine_label: str) -> WrittenCase:
    """Write the reproducer of a hand the engine failed on (see `reproducer_data`)."""
    assert record.failure is not None
    data = reproducer_data(record, seed=seed, hand_number=hand_number, engine_label=engine_label)
    played = failure_record(record)
    return _write(data, played, out_dir, record.failure.error.problem.value, area_at(played, len(played.exchanges) - 1),
                  FAILURE_HEADER)


def _write(data: dict[str, Any], record: HandRecord, out_dir: Path, slug: str, area: Area, header: str) -> WrittenCase:
    body = render(data, header)
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:8].upper()
    data["id"] = f"{VARIANT_PREFIXES[record.setup.variant]}-GEN-{digest}"
    text = render(data, header)
    loaded = yaml.safe_load(text)
    if _plain(loaded) != _plain(data):  # the emitter is ours: never write something that reads back differently
        raise RuntimeError(f"internal error: the case YAML does not read back as written ({data['id']})")
    slug = re.sub(r"[^a-z0-9]+", "-", slug.lower()).strip("-")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{data['id'].lower()}-{slug or 'state'}.yaml"
    path.write_text(text, encoding="utf-8")
    return WrittenCase(path=path, case_id=data["id"], title=data["title"], area=area, rules=tuple(data["rules"]),
                       steps=len(data["steps"]), seats=len(record.setup.seats))


#: what only fixed-limit betting reads (BIGBET.NO-CAP, BIGBET.NO-DOUBLE); `studcheck lint` refuses
#: them in a pot- or no-limit case, since no engine could show them there
LIMIT_ONLY_OPTIONS = ("max_raises", "open_pair_double", "heads_up")


def _case_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The hand's options as a case states them: all of them, but the limit-only ones in a
    pot- or no-limit hand."""
    if options.get("betting", "fixed_limit") == "fixed_limit":
        return dict(options)
    return {name: value for name, value in options.items() if name not in LIMIT_ONLY_OPTIONS}
