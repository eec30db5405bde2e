"""`studcheck lint`: everything that can be wrong with case files, as `file:line: problem`.

Loading checks what a case needs to run (schema, cards, deck, stakes, options, steps); lint adds
what the suite needs to stay honest: known rule IDs and tags, rules that apply to the variant,
IDs unique across all files, one case per file.
"""

from __future__ import annotations

import re

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from studcheck.cards import parse_card
from studcheck.cases.deck import card_name
from studcheck.cases.load import (
    Analysis,
    Problem,
    analyse,
    is_evaluation_file,
    retired_rules,
    rule_index,
    tag_vocabulary,
    yaml_files,
)
from studcheck.cases.model import Case, StepKind
from studcheck.cases.refusal import SETUP_RULES, describe, setup_violations
from studcheck.cases.source import VARIANT_PREFIXES as VARIANT_PREFIXES  # re-exported (fuzz/write.py)
from studcheck.cases.source import line_of
from studcheck.resources import cases_dir
from studcheck.rules import LAYOUTS, Options, Street, Variant


def lint_files(paths: Sequence[Path | str] | None = None) -> tuple[list[Path], list[Problem]]:
    """The files looked at and every problem found, sorted by file then line."""
    files, _, problems = _lint(paths)
    return files, problems


def lint_cases(paths: Sequence[Path | str] | None = None) -> tuple[list[Case], list[Problem]]:
    """Lint and load in one pass: the cases that loaded (in file order) and every lint problem.

    What `studcheck run --cases` uses, so a case lint refuses is never run (and never read twice).
    """
    _, analyses, problems = _lint(paths)
    return [result.case for result in analyses if result.case is not None], problems


def _lint(paths: Sequence[Path | str] | None) -> tuple[list[Path], list[Analysis], list[Problem]]:
    from studcheck.cases.evaluation import lint_evaluation_cases

    files: list[Path] = []
    evaluation: list[Path] = []  # the evaluation profile's cases: their own format (cases/evaluation.py)
    problems: list[Problem] = []
    for item in [Path(p) for p in paths] if paths else [cases_dir()]:
        if item.is_dir():
            files.extend(yaml_files(item))
            evaluation.extend(yaml_files(item, evaluation=True))
            for stray in sorted(item.rglob("*.yml")):
                problems.append(Problem(path=stray, line=1, message="case files end in .yaml (this file is ignored)"))
        elif item.exists():
            (evaluation if is_evaluation_file(item) else files).append(item)
        else:
            problems.append(Problem(path=item, line=1, message="no such file or directory"))
    if evaluation:
        problems.extend(lint_evaluation_cases(evaluation)[1])
    analyses = [analyse(path) for path in files]
    for result in analyses:
        problems.extend(result.problems)
        if not result.problems or _schema_ok(result):
            problems.extend(_spec_problems(result))
        if result.case is not None:
            problems.extend(_chip_problems(result))
            problems.extend(_deal_problems(result))
            problems.extend(_refusal_problems(result))
            problems.extend(_expectation_problems(result))
        if result.raw is not None:  # a file libyaml could not read already has its problem
            problems.extend(_portability_problems(result.path))
    problems.extend(_duplicate_ids(analyses))
    problems.extend(_retired_ids(analyses))
    files += evaluation
    order = {path: number for number, path in enumerate(files)}
    problems.sort(key=lambda p: (order.get(p.path, -1), str(p.path), p.line, p.message))
    return files, analyses, problems


#: the placeholder rule ID of a case skeleton `studcheck import` wrote from a hand history
IMPORTED_RULE = "TODO"
_UNQUOTED_WILDCARD_IN_FLOW = re.compile(r"\{[^'\"#]*\?\?")


def _portability_problems(path: Path) -> list[Problem]:
    """YAML that libyaml reads but the pure-Python and other parsers reject: `{cards: 2s ??}`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []  # reported by the loader
    return [
        Problem(path=path, line=number, message="quote a card list with ?? inside {...} (cards: '2s 3s ??'): "
                "some YAML parsers reject it unquoted")
        for number, line in enumerate(text.splitlines(), start=1)
        if _UNQUOTED_WILDCARD_IN_FLOW.search(line)
    ]


def lint(paths: Sequence[Path | str] | None = None) -> list[Problem]:
    """Every problem in the case files under `paths` (default: the bundled cases/)."""
    return lint_files(paths)[1]


def _schema_ok(result: Analysis) -> bool:
    """True if the raw data has the shape the spec checks read (even if building the case failed)."""
    raw = result.raw
    return (isinstance(raw, dict) and isinstance(raw.get("rules"), list) and isinstance(raw.get("tags"), list)
            and all(isinstance(item, str) for item in [*raw["rules"], *raw["tags"]])
            and isinstance(raw.get("variant"), str) and isinstance(raw.get("id"), str))


def _spec_problems(result: Analysis) -> list[Problem]:
    raw: Any = result.raw
    found: list[Problem] = []

    def add(line: int, message: str) -> None:
        found.append(Problem(path=result.path, line=line, message=message))

    rules = rule_index()
    variant = raw["variant"]
    prefix = raw["id"].split("-", 1)[0]
    if "setup_refused" in raw and variant not in VARIANT_PREFIXES:
        # an unknown variant value is the deliberate invalidity: the ID prefix names the suite
        variant = {short: name for name, short in VARIANT_PREFIXES.items()}.get(prefix, variant)
    for number, rule_id in enumerate(raw["rules"]):
        line = line_of(raw, ["rules", number])
        info = rules.get(rule_id)
        if rule_id == IMPORTED_RULE:
            add(line, f"rules: {IMPORTED_RULE}: a skeleton imported from a hand history (`studcheck import`): cite the "
                      "rule IDs it tests, work out its expectations from the rules and drop `generated` "
                      "(docs/hand-histories.md)")
        elif info is None:
            add(line, _unknown_rule_message(rule_id, rules))
        elif variant in VARIANT_PREFIXES and variant not in {v.value for v in info.variants}:
            applies = ", ".join(v.value for v in info.variants)
            add(line, f"rules: {rule_id} does not apply to {variant} (it applies to {applies})")
    tags = tag_vocabulary()
    for number, tag in enumerate(raw["tags"]):
        if tag not in tags:
            add(line_of(raw, ["tags", number]), f"tags: unknown tag {tag!r} (not in spec/tags.yaml)")
    expected = VARIANT_PREFIXES.get(variant)  # None for an unknown variant, which the schema reports
    if expected is not None and prefix in VARIANT_PREFIXES.values() and prefix != expected:
        add(line_of(raw, ["id"]), f"id: {raw['id']} starts with {prefix} but the variant is {variant} "
                                  f"(use {expected}-...)")
    generated = raw.get("generated") is True
    if generated != ("generated" in raw["tags"]):
        add(line_of(raw, ["generated"] if "generated" in raw else ["tags"]),
            "`generated: true` and the tag `generated` go together")
    return found


def _unknown_rule_message(rule_id: str, rules: dict[str, Any]) -> str:
    """A rule ID not in spec/rules.yaml; a prefix of real IDs (`BRING-IN`) says which ones it covers."""
    retired = retired_rules().get(rule_id)
    if retired is not None:
        return f"rules: {rule_id!r} is retired ({retired}); cite the rule that replaced it"
    below = [known for known in rules if known.startswith(rule_id.rstrip(".") + ".")]
    if not below:
        return f"rules: unknown rule id {rule_id!r} (not in spec/rules.yaml)"
    listed = ", ".join(below[:4]) + (f", ... ({len(below)} rules)" if len(below) > 4 else "")
    return f"rules: {rule_id!r} is a prefix of rule ids, not a rule: cite the rules the case tests ({listed})"


def _duplicate_ids(analyses: Sequence[Analysis]) -> list[Problem]:
    places: dict[str, list[tuple[Path, int]]] = {}
    for result in analyses:
        raw = result.raw
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            places.setdefault(raw["id"], []).append((result.path, line_of(raw, ["id"])))
    found: list[Problem] = []
    for case_id, where in places.items():
        if len(where) < 2:
            continue
        for path, line in where:
            others = ", ".join(f"{p}:{n}" for p, n in where if (p, n) != (path, line))
            found.append(Problem(path=path, line=line, message=f"duplicate id {case_id} (also at {others})"))
    return found


def retired_case_ids() -> dict[str, str]:
    """cases/retired-ids.txt: ID -> "date: why". An ID is permanent, so a retired one is never reused."""
    found: dict[str, str] = {}
    path = cases_dir() / "retired-ids.txt"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            case_id, date, why = line.split(maxsplit=2)
            found[case_id] = f"{date}: {why}"
    return found


def _retired_ids(analyses: Sequence[Analysis]) -> list[Problem]:
    retired = retired_case_ids()
    found: list[Problem] = []
    for result in analyses:
        raw = result.raw
        if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"] in retired:
            message = f"id {raw['id']} is retired ({retired[raw['id']]}); take the next unused number"
            found.append(Problem(path=result.path, line=line_of(raw, ["id"]), message=message))
    return found


def _chip_problems(result: Analysis) -> list[Problem]:
    """`final` amounts no engine can produce: chips are only moved, never made or lost (POT rules).

    At the end of a hand every chip is in a stack or in the rake, antes and bets included, so the
    final stacks of all seats add up to the starting stacks minus the rake. The rake is final.rake
    if the case gives it, else 0 without rake_percent, else anything from 0 to the most the options
    allow (floor(starting chips x rake_percent / 100), capped by rake_cap): only stacks outside that
    range are refused. A pot's winners (high plus low in stud_hilo8) share exactly its amount.
    """
    case, raw = result.case, result.raw
    if case is None or case.final is None or case.setup_refused is not None:
        return []
    final = case.final
    found: list[Problem] = []

    def add(path: list[Any], message: str) -> None:
        found.append(Problem(path=result.path, line=line_of(raw, ["final", *path]), message=message))

    start = sum(seat.stack for seat in case.seats)
    percent = int(case.options.get("rake_percent", 0))
    cap = int(case.options.get("rake_cap", 0))
    most = start * percent // 100
    if cap > 0:
        most = min(most, cap)
    rake = final.get("rake")
    if isinstance(rake, int) and rake > most:
        allowed = ("there is no rake (rake_percent 0)" if percent == 0 else
                   f"the rake is at most {most} (rake_percent {percent}"
                   + (f", rake_cap {cap}" if cap else "") + f", {start} chips in play)")
        add(["rake"], f"final.rake: {rake}, but {allowed}")  # the stacks are still checked against it
    low, high = (rake, rake) if isinstance(rake, int) else (0, most)
    stacks = final.get("stacks")
    if isinstance(stacks, dict) and stacks:
        total = sum(stacks.values())
        every = set(stacks) == {str(seat.seat) for seat in case.seats}
        if every and low == high and total != start - low:
            rake_text = f" and the rake is {low}" if low else ""
            add(["stacks"], f"final.stacks: the stacks of all seats add up to {total}, but the starting stacks add up "
                            f"to {start}{rake_text}: antes and bets only move chips, so the final stacks must add up "
                            f"to {start - low}")
        elif every and not start - high <= total <= start:
            add(["stacks"], f"final.stacks: the stacks of all seats add up to {total}, but the starting stacks add up "
                            f"to {start} and the rake (rake_percent {percent}, no final.rake) is 0 to {high}: the "
                            f"final stacks must add up to {start - high} to {start}")
        elif not every and total > start - low:
            rake_text = f" after the rake of {low}" if low else ""
            add(["stacks"], f"final.stacks: the listed seats end with {total} chips, but the starting stacks of all "
                            f"seats add up to {start}, so only {start - low} chips are in play{rake_text}")
    for number, pot in enumerate(final.get("pots") or []):
        found.extend(_pot_problems(result, number, pot))
    return found


def _pot_problems(result: Analysis, number: int, pot: dict[str, Any]) -> list[Problem]:
    """A pot pays out its `amount` (what is left after the rake), no more and no less."""
    amount = pot.get("amount")
    if not isinstance(amount, int):
        return []
    shares = {name: sum(pot[name].values()) for name in ("winners", "high", "low") if isinstance(pot.get(name), dict)}
    if not shares:
        return []
    total = sum(shares.values())
    complete = "winners" in shares or ("high" in shares and "low" in shares)
    if total == amount or (not complete and total < amount):
        return []
    if "winners" in shares:
        paid = f"the winners get {total}"
    elif complete:
        paid = f"the high and low halves pay out {shares['high']} + {shares['low']} = {total}"
    else:
        paid = f"the {next(iter(shares))} half alone pays out {total}"
    line = line_of(result.raw, ["final", "pots", number, next(iter(shares))])
    return [Problem(path=result.path, line=line, message=(
        f"final.pots[{number}]: {paid}, but the pot's amount is {amount}: a pot is paid out in full (its amount "
        "is what is left after any rake)"))]


def _deal_problems(result: Analysis) -> list[Problem]:
    """Play the steps on the reference engine and compare what each seat is dealt with its `cards`.

    The card count a seat lists must match the street it folds on; if it does not, the deck is
    built for a different deal and other seats silently get other cards. Only run when the engine
    is installed; a step the engine refuses ends the check (the harness reports that).
    """
    case, raw = result.case, result.raw
    if case is None or "deck" in raw or case.setup_refused is not None or case.stakes is None:
        return []
    try:
        from studcheck.engine import Action, Hand, IllegalAction
    except ImportError:
        return []
    try:
        hand = Hand(variant=case.variant, options=case.options_with(Options()), stakes=case.stakes,
                    seats=case.seats, deck=case.deck, remade_stub=case.remade_stub)
        for step in case.steps:
            if step.kind is StepKind.EXPECT or step.seat is None or step.action is None:
                continue
            try:
                hand.apply(Action(seat=step.seat, action=step.action, amount=step.amount))
            except IllegalAction:
                if step.kind is StepKind.ACT:
                    break
        seats = hand.snapshot()["seats"]
    except Exception:  # noqa: BLE001 - an engine failure is the harness's to report, not lint's
        return []
    found: list[Problem] = []
    variant = Variant(raw["variant"])
    for seat in seats:
        key = str(seat["seat"])
        listed_value = raw["seats"][key]["cards"]
        listed = listed_value.split() if isinstance(listed_value, str) else list(listed_value)
        down, up = list(seat["down"]), list(seat["up"])
        dealt = down[:2] + up + down[2:]
        line = line_of(raw, ["seats", key, "cards"])
        if len(dealt) > len(listed):
            found.append(Problem(path=result.path, line=line, message=(
                f"seats.{key}.cards: lists {len(listed)} cards but seat {key} is dealt a {card_name(len(listed), variant)} "
                "when the steps are played: list every card up to the street the seat folds on")))
            continue
        for number, (want, got) in enumerate(zip(listed, dealt)):
            if want != "??" and parse_card(want) != parse_card(got):
                found.append(Problem(path=result.path, line=line, message=(
                    f"seats.{key}.cards: the {card_name(number, variant)} is {got} when the steps are played, not {want}: "
                    "the card counts do not match the streets the seats fold on")))
                break
    return found


def _refusal_problems(result: Analysis) -> list[Problem]:
    """A setup-refusal case must break exactly the setup rules it cites, and the reference must refuse it.

    The invalidity is deliberate and declared: a setup that breaks no rule (or another rule than the
    case says) would give engine authors a wrong verdict.
    """
    case, raw = result.case, result.raw
    if case is None or case.setup_refused is None or case.new_hand is None:
        return []
    found: list[Problem] = []

    def add(path: list[Any], message: str) -> None:
        found.append(Problem(path=result.path, line=line_of(raw, path), message=message))

    for number, rule_id in enumerate(case.rules):
        if rule_id not in SETUP_RULES:
            add(["rules", number], f"rules: a setup_refused case cites only setup rules ({', '.join(sorted(SETUP_RULES))}), "
                                   f"not {rule_id}")
    violations = setup_violations(case.new_hand)
    if not violations:
        add(["setup_refused"], "setup_refused: this setup breaks no setup rule, so an engine must accept it; "
                               "make it break the rule the case is about")
        return found
    broken = {item.rule for item in violations if item.rule is not None}
    for rule_id in sorted(broken - set(case.rules)):
        detail = describe([item for item in violations if item.rule == rule_id])
        add(["rules"], f"rules: the setup also breaks {rule_id} ({detail}); cite it or make the setup break only "
                       "the rules the case is about")
    for number, rule_id in enumerate(case.rules):
        if rule_id in SETUP_RULES and rule_id not in broken:
            add(["rules", number], f"rules: the setup does not break {rule_id} (it breaks: {describe(violations)})")
    reference = _reference_answer(case.new_hand, case.options)
    if reference is not None and reference.get("ok"):
        add(["setup_refused"], "setup_refused: the reference engine accepts this setup")
    elif reference is not None and reference["error"]["reason"] not in case.setup_refused.reasons:
        add(["setup_refused"], f"setup_refused: the reference engine answers {reference['error']['reason']}, "
                               f"not {' or '.join(case.setup_refused.reasons)}")
    return found


def _reference_answer(setup: Any, options: dict[str, Any]) -> dict[str, Any] | None:
    """The reference server's answer to this new_hand (None if the server cannot be imported)."""
    try:
        from studcheck.protocol.serve import Server
    except ImportError:
        return None
    request = {"type": "new_hand", "seq": 1, **setup, "options": {**Options().to_json(), **options}, "label": "lint"}
    return Server().handle(request)


#: options that only fixed-limit betting reads (BIGBET.NO-CAP, BIGBET.NO-DOUBLE): a pot- or no-limit
#: case that names one asserts something no engine can show
_LIMIT_ONLY_OPTIONS = ("max_raises", "open_pair_double", "heads_up")
_AFTER_BETTING = (Street.SHOWDOWN.value, Street.COMPLETE.value)


def _expectation_problems(result: Analysis) -> list[Problem]:
    """Expectations no engine can meet: a street the variant does not have, a range upside down,
    a range in fixed limit or two of one kind, and limit-only options in a pot/no-limit case."""
    case, raw = result.case, result.raw
    if case is None:
        return []
    found: list[Problem] = []
    big_bet = case.options.get("betting", "fixed_limit") != "fixed_limit"
    for name in _LIMIT_ONLY_OPTIONS:
        if big_bet and name in case.options:
            found.append(Problem(path=result.path, line=line_of(raw, ["options", name]),
                                 message=f"options.{name}: only fixed-limit betting has it (BIGBET.NO-CAP, "
                                         f"BIGBET.NO-DOUBLE); a {case.options['betting']} case must not name it"))
    streets = [street.value for street in LAYOUTS[case.variant].streets]
    for index, step in enumerate(case.steps):
        expect = step.expect or {}
        where = ["steps", index, "expect"]
        street = expect.get("street")
        if isinstance(street, str) and street not in (*streets, *_AFTER_BETTING):
            found.append(Problem(path=result.path, line=line_of(raw, [*where, "street"]),
                                 message=f"street: {street} is not a street of {case.variant.value} "
                                         f"({', '.join((*streets, *_AFTER_BETTING))})"))
        found += [Problem(path=result.path, line=line_of(raw, [*where, "legal"]), message=message)
                  for message in _legal_set_problems(expect.get("legal"), big_bet=big_bet)]
    return found


def _legal_set_problems(legal: Any, *, big_bet: bool) -> list[str]:
    if not isinstance(legal, list):
        return []
    problems: list[str] = []
    kinds: dict[str, int] = {}
    for entry in legal:
        if not isinstance(entry, dict):
            continue
        kind = str(entry.get("action"))
        kinds[kind] = kinds.get(kind, 0) + 1
        if "min" not in entry:
            continue
        text = f"{kind} {entry['min']}..{entry['max']}"
        if entry["min"] > entry["max"]:
            problems.append(f"legal: {text} runs downwards: a range is min..max with min <= max")
        if not big_bet:
            problems.append(f"legal: {text} is a range, and only pot and no limit have ranges (fixed limit lists amounts)")
    ranged = {str(entry.get("action")) for entry in legal if isinstance(entry, dict) and "min" in entry}
    problems += [f"legal: {kind} is listed {kinds[kind]} times with a range: one range holds every amount of its kind"
                 for kind in sorted(ranged) if kinds[kind] > 1]
    return problems
