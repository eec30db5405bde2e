"""The protocol schema: the fast compiled check (jsonschema-rs) never says yes where jsonschema says no."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from harness_helpers import CASES
from studcheck.cases.load import load_cases
from studcheck.cases.source import case_validator, parse_yaml, schema_problems, to_json_view
from studcheck.harness.runner import Runner
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck import schemacheck
from studcheck.protocol.messages import protocol_schema, schema_problem
from studcheck.cases.load import yaml_files
from studcheck.resources import cases_dir, schema_path


def responses() -> list[dict[str, Any]]:
    client = EngineClient(InProcessTransport)
    client.start()
    runner = Runner(client)
    found = []
    for case in load_cases([CASES]):
        runner.run(case)
        found += [entry["response"] for entry in client.transcript if entry["response"].get("ok")]
    client.stop()
    return found


STATES = responses()


def mutations(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, replacement) pairs: wrong types, a dropped key, out-of-range values."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from mutations(item, (*path, key))
            yield (*path, key), _DROP
    elif isinstance(value, list):
        for index, item in enumerate(value[:2]):
            yield from mutations(item, (*path, index))
        yield path, "not a list"
    elif isinstance(value, bool):
        yield path, 1
    elif isinstance(value, int):
        yield path, -1
        yield path, str(value)
    elif isinstance(value, str):
        yield path, value + "x"
    elif value is None:
        yield path, 0


_DROP = object()


def mutate(message: dict[str, Any], path: tuple[Any, ...], replacement: Any) -> dict[str, Any]:
    copied = copy.deepcopy(message)
    target: Any = copied
    for part in path[:-1]:
        target = target[part]
    if replacement is _DROP:
        del target[path[-1]]
    else:
        target[path[-1]] = replacement
    return copied


def test_schemas_are_valid_json_schema() -> None:
    Draft202012Validator.check_schema(protocol_schema())
    Draft202012Validator.check_schema(json.loads(schema_path("report").read_text()))


def test_reference_answers_are_valid() -> None:
    assert len(STATES) > 10
    for response in STATES:
        assert schema_problem("response_state", response) is None


def test_fast_and_authoritative_validators_agree_on_mutations() -> None:
    fast = schemacheck.fast("protocol", "response_state")
    if fast is None:
        pytest.skip("jsonschema-rs is not installed")
    authoritative = schemacheck.authoritative("protocol", "response_state")
    checked = 0
    for response in STATES[:6]:
        for path, replacement in mutations(response):
            message = mutate(response, path, replacement)
            assert fast(message) == authoritative.is_valid(message), (path, replacement)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize(("field", "value", "valid"), [
    ("up", "Ah\n", True),  # jsonschema-rs refuses it (Rust's `$`), jsonschema lets the final newline through
    ("seat", {1: 2}, False),  # jsonschema-rs cannot convert an int key and raises
    ("pot_total", 2**80, True), ("pot_total", True, False), ("pot_total", 1.0, True), ("pot_total", -1, False),
])
def test_where_the_fast_check_differs_or_fails_jsonschema_decides(field: str, value: Any, valid: bool,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdict and words are jsonschema's, the same as with jsonschema-rs not installed."""
    response = copy.deepcopy(STATES[0])
    if field == "up":
        response["state"]["seats"][0]["up"] = [value]
    elif field == "seat":
        response["state"]["seats"][0] = value
    else:
        response["state"][field] = value
    with_fast = schema_problem("response_state", response)
    monkeypatch.setattr(schemacheck, "fast", lambda name, definition: None)
    assert with_fast == schema_problem("response_state", response)
    assert (with_fast is None) == valid, with_fast


def test_problem_names_the_path() -> None:
    response = copy.deepcopy(STATES[0])
    response["state"]["seats"][1]["up"] = ["10h"]
    problem = schema_problem("response_state", response)
    assert problem is not None and problem.startswith("state.seats[1].up[0]:")


def new_hand_request() -> dict[str, Any]:
    """A valid new_hand as the Runner sends it (the first request of a bundled case)."""
    case = next(case for case in load_cases([CASES]) if case.setup_refused is None)
    client = EngineClient(InProcessTransport)
    client.start()
    try:
        Runner(client).run(case)
        request: dict[str, Any] = client.transcript[0]["request"]
    finally:
        client.stop()
    assert request["type"] == "new_hand"
    return request


@pytest.mark.parametrize("deck_change", ["duplicate", "short", "long", "ten", "newline", "lower", "number", "object"])
def test_every_bad_deck_gets_jsonschemas_verdict_and_words(deck_change: str) -> None:
    """Every bad deck gets the authoritative validator's verdict and words, and a good one passes."""
    request = new_hand_request()
    assert schema_problem("request_new_hand", request) is None
    deck = list(request["deck"])
    changed = {"duplicate": [deck[1], *deck[1:]], "short": deck[:51], "long": [*deck, deck[0]], "ten": ["10h", *deck[1:]],
               "newline": [deck[0] + "\n", *deck[1:]], "lower": [deck[0].lower(), *deck[1:]], "number": [1, *deck[1:]],
               "object": [{}, *deck[1:]]}[deck_change]
    bad = {**request, "deck": changed}
    authoritative = schemacheck.authoritative("protocol", "request_new_hand")
    error = next(iter(authoritative.iter_errors(bad)), None)
    problem = schema_problem("request_new_hand", bad)
    assert (problem is None) == (error is None), (problem, error)
    if deck_change != "newline":  # a pattern's `$` lets a final newline through
        assert problem is not None and problem.startswith("deck"), problem


def test_a_jsonschema_rs_that_cannot_compile_the_schema_leaves_jsonschema_to_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    jsonschema_rs = pytest.importorskip("jsonschema_rs")

    def refuse(schema: Any) -> Any:
        raise ValueError("unsupported keyword")

    monkeypatch.setattr(jsonschema_rs, "Draft202012Validator", refuse)
    schemacheck.fast.cache_clear()
    try:
        assert schemacheck.fast("protocol", "response_state") is None
        assert schema_problem("response_state", STATES[0]) is None
        bad = copy.deepcopy(STATES[0])
        bad["state"]["pot_total"] = -1
        assert schema_problem("response_state", bad) == "state.pot_total: -1 is less than the minimum of 0"
    finally:
        schemacheck.fast.cache_clear()


def case_documents() -> list[Any]:
    """Bundled case files as the loader hands them to the schema check: every 180th, and a refused setup."""
    files = yaml_files(Path(cases_dir()))  # the hand cases (the evaluation cases have a schema of their own)
    picked = files[::180] + [next(path for path in files if "setup_refused:" in path.read_text(encoding="utf-8"))]
    return [to_json_view(parse_yaml(path.read_text(encoding="utf-8"))[0][1]) for path in picked]


def test_the_fast_case_check_never_says_yes_where_jsonschema_says_no() -> None:
    """Case files (cases/source.py's schema_problems asks jsonschema-rs first): on real files and
    mutations of them, a "yes" of the fast check is jsonschema's yes, and the problems found are
    jsonschema's (none exactly when it says yes)."""
    fast = schemacheck.fast_document("case")
    if fast is None:
        pytest.skip("jsonschema-rs is not installed")
    authoritative = case_validator()
    checked = agreed = 0
    for document in case_documents():
        assert fast(document) and authoritative.is_valid(document)
        for path, replacement in mutations(document):
            changed = mutate(document, path, replacement)
            expected = authoritative.is_valid(changed)
            surely = schemacheck.surely_valid_document("case", changed)
            assert surely <= expected, (path, replacement)
            assert (schema_problems(changed) == []) == expected, (path, replacement)
            checked += 1
            agreed += surely == expected
    assert checked > 300 and agreed == checked  # no difference on these: the fast check answers them all
