"""Fuzz targets for every reader of a file studcheck writes or accepts: random and mutated inputs
must give a value or the reader's own error (which the CLI turns into exit 2 with file and line),
never another exception, and within bounded memory.

Each target starts from a real file of its kind and mutates it with Hypothesis: bytes replaced,
dropped or repeated, and tokens spliced in that broke a reader before (deep nesting, a huge
integer, NaN, a lone surrogate, a line separator, YAML anchors and aliases, TOML tables). The
number of examples per target is STUDCHECK_READER_EXAMPLES (default 40, so the suite stays quick;
CI runs 300 in its own step). The examples are the same on every run (derandomized), so a failure
is never luck; STUDCHECK_READER_RANDOM=1 draws new ones for a campaign.
"""

from __future__ import annotations

import json
import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studcheck.cases.load import CaseError, load_case
from studcheck.fuzz.census import CensusError, read_census
from studcheck.fuzz.known import KnownError, load_known
from studcheck.phh.import_ import PhhError, import_text
from studcheck.report.load import ReportInputError, read_report
from studcheck.resources import cases_dir

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("STUDCHECK_READER_EXAMPLES", "40"))
#: peak memory one read may take: the seeds are a few kB, so even a mutated one needs far less
PEAK = 64 * 1024 * 1024

TOKENS = [
    "[" * 300, "{" * 300, "]" * 50, "9" * 5000, "-" + "9" * 40, "NaN", "-Infinity", "1e400", '"\\ud800"', "\\ud800",
    "\u2028", "\u2029", "\u0085", "\x00", "\x1b[2J", "\x7f", "&a", "*a", "&a [x, x, x, x]", "<<: *a", "!!python/object",
    "---\n", "...\n", "\t", "\r", "\n", '"', "'", ":", "#", "- ", "? ", "[[x]]\n", "[x]\n", "x = 1\n", "\u00b2", "\ufeff",
    '{"kind": "header"}', '{"kind": "footer"}', '{"kind": "case"}', "null", "true", "0", "-1", "1.5", "[]", "{}",
]


def _seed_report(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    from studcheck.cli import main

    path = tmp_path_factory.mktemp("seed") / "report.jsonl"
    main(["run", "--in-process", "--rule", "BET.CAP", "--variant", "razz", "--jobs", "1", "--no-progress",
          "--report", str(path)])
    lines = path.read_text(encoding="utf-8").split("\n")
    return "\n".join(lines[:4] + lines[-3:]).encode("utf-8")  # header, a few cases, groups, footer


CENSUS = json.dumps({
    "format": "studcheck-fuzz-census", "version": 1, "engine": "e", "seed": 1, "variants": ["razz"],
    "shards": {"count": 2, "indexes": [1]}, "last_hand": 10, "complete": True, "hands": 5, "actions": 40,
    "refused": 2, "skipped": 0, "past_failures": 0, "divergent_hands": 1,
    "signatures": [{"signature": "state legal razz", "hands": 1, "first": 3, "known": None, "case": "c.yaml"}],
}, indent=2).encode("utf-8")


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        where = draw(st.integers(min_value=0, max_value=len(data)))
        kind = draw(st.sampled_from(["token", "byte", "drop", "repeat"]))
        if kind == "token":
            data[where:where] = draw(st.sampled_from(TOKENS)).encode("utf-8", "surrogatepass")
        elif kind == "byte":
            data[where:where + 1] = bytes([draw(st.integers(min_value=0, max_value=255))])
        elif kind == "drop":
            del data[where:where + draw(st.integers(min_value=1, max_value=40))]
        else:
            piece = bytes(data[where:where + draw(st.integers(min_value=1, max_value=200))])
            data[where:where] = piece * draw(st.integers(min_value=1, max_value=50))
    return bytes(data)


def _total(read: Callable[[Path], Any], expected: type[Exception], path: Path, data: bytes) -> None:
    path.write_bytes(data)
    tracemalloc.start()
    try:
        read(path)
    except expected:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < PEAK, f"{peak} bytes to read {len(data)} bytes"


FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=os.environ.get("STUDCHECK_READER_RANDOM") is None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def report_seed(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return _seed_report(tmp_path_factory)


@FUZZ
@given(data=st.data())
def test_jsonl_report_reader_is_total(data: st.DataObject, report_seed: bytes, tmp_path: Path) -> None:
    _total(read_report, ReportInputError, tmp_path / "report.jsonl", data.draw(mutated(report_seed)))


@FUZZ
@given(blob=mutated(CENSUS))
def test_census_reader_is_total(blob: bytes, tmp_path: Path) -> None:
    _total(read_census, CensusError, tmp_path / "census.json", blob)


@FUZZ
@given(blob=mutated((ROOT / "adapters" / "pokerkit.fuzz-known.yaml").read_bytes()[:3000]))
def test_known_divergences_reader_is_total(blob: bytes, tmp_path: Path) -> None:
    _total(load_known, KnownError, tmp_path / "known.yaml", blob)


@FUZZ
@given(blob=mutated((ROOT / "tests" / "phh" / "data" / "razz-fold-on-sixth.phh").read_bytes()))
def test_phh_reader_is_total(blob: bytes, tmp_path: Path) -> None:
    def read(path: Path) -> Any:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            return None  # the command refuses a file that is not UTF-8 before parsing (run_import)
        return import_text(text, source=str(path))

    _total(read, PhhError, tmp_path / "hand.phh", blob)


CASE_SEED = next(iter(sorted((cases_dir() / "stud_high" / "bring-in").glob("*.yaml")))).read_bytes()


@FUZZ
@given(blob=mutated(CASE_SEED))
def test_case_reader_is_total(blob: bytes, tmp_path: Path) -> None:
    _total(load_case, CaseError, tmp_path / "case.yaml", blob)


EVALUATION_SEED = (cases_dir() / "evaluation" / "high" / "ev-hi-003-wheel-is-lowest-straight.yaml").read_bytes()


@FUZZ
@given(blob=mutated(EVALUATION_SEED))
def test_evaluation_case_reader_is_total(blob: bytes, tmp_path: Path) -> None:
    from studcheck.cases.evaluation import load_evaluation_cases

    _total(lambda path: load_evaluation_cases([path]), CaseError, tmp_path / "case.yaml", blob)


@FUZZ
@given(blob=mutated(b'{"seq": 2, "ok": true, "values": [1, [2, 3], null, 4]}'))
def test_evaluate_answers_are_read_or_refused(blob: bytes) -> None:
    """An evaluator's answer to `evaluate`, mutated: the client reads it or raises EngineError (a
    verdict), and the order check takes whatever the schema lets through."""
    from studcheck.evaluation.kinds import Kind
    from studcheck.evaluation.order import Better, first_disagreement
    from studcheck.protocol.client import EngineClient, EngineError
    from studcheck.protocol.messages import RequestType

    client = EngineClient(lambda: None)  # type: ignore[arg-type, return-value]  # _check needs no engine
    try:
        response = client._check(RequestType.EVALUATE, blob + b"\n", {}, 2)
    except EngineError:
        return
    if response.get("ok"):
        values = response["values"]
        first_disagreement(Kind.LOW8, [(1, index) for index in range(len(values))], values, Better.HIGHER)


@FUZZ
@given(blob=st.binary(max_size=4096))
def test_the_case_cache_reader_is_total(blob: bytes, tmp_path: Path) -> None:
    """Any bytes where the cache file is: entries or None, never an exception (and nothing unpickled
    unless sealed with this user's key)."""
    from studcheck.cases.cache import read_cache_file

    path = tmp_path / "cases.pickle"
    path.write_bytes(blob)
    path.chmod(0o600)
    assert read_cache_file(path, b"k" * 32) in (None, {})
