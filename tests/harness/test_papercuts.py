"""Small things an engine author trips over: each must give a clear answer, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from harness_helpers import engine

HANG_GUARD_S = 600  # seconds before a subprocess counts as hung: a guard, not a measurement (load cannot break it)


def test_list_into_a_closed_pipe_is_quiet() -> None:
    """`studcheck list | head`: no BrokenPipe traceback, and the shell's 141 for a closed pipe.

    The reader closes its end at once, before the command (still importing) writes: whatever the
    load, its first write then meets a closed pipe (reading a line first would race the whole
    listing into the pipe's buffer on a slow reader).
    """
    process = subprocess.Popen([sys.executable, "-m", "studcheck", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read().decode()
    code = process.wait(timeout=HANG_GUARD_S)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    assert code == 141


@pytest.mark.parametrize("value", ["-3", "0", "nan", "inf", "soon"])
def test_timeout_must_be_positive_seconds(run_harness, capsys, value: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exit_info:
        run_harness("run", "--in-process", "--timeout", value)
    assert exit_info.value.code == 2
    assert "--timeout" in capsys.readouterr().err


@pytest.mark.parametrize(("option", "value", "named"), [
    ("--variant", "omaha", "stud_high, razz, stud_hilo8"),
    ("--tag", "bringin", "bring-in"),
    ("--rule", "BRING", "BRING-IN"),
])
def test_unknown_selection_values_are_named(run_harness, option: str, value: str, named: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_harness("run", "--in-process", option, value)
    assert code == 2
    assert f"{option} {value}" in err and named in err
    assert out == ""


def test_a_run_where_no_case_applies_is_not_a_pass(run_harness) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_harness("run", "--engine", engine("stud_high_only"), "--variant", "razz", "--no-progress")
    assert code == 2
    assert "nothing was checked" in err
    assert " 0 applicable" in out


def test_junit_times_are_fixed_point() -> None:
    """The JUnit XSDs type `time` as xs:decimal: 8.7e-05 is refused, 0.000087 is not."""
    import re

    from studcheck.harness.junit import junit_xml

    lines = [
        {"kind": "header", "engine": {"name": "e", "version": "1"}, "studcheck": "0"},
        {"kind": "case", "id": "SH-X-001", "variant": "stud_high", "outcome": "pass", "duration_ms": 0.087},
        {"kind": "case", "id": "SH-X-002", "variant": "stud_high", "outcome": "pass", "duration_ms": 12345.6},
    ]
    xml = junit_xml(lines)
    times = [element.get("time") for element in xml._elem.iter() if element.get("time") is not None]
    assert times, "no time attributes written"
    assert all(re.fullmatch(r"\d+\.\d+", value) for value in times), times
    assert "0.000087" in times
