"""The example adapter in docs/ works as documented (so the tutorial cannot rot)."""

from __future__ import annotations

import shlex
import sys

from harness_helpers import CASES, HERE

TEMPLATE = HERE.parent.parent / "docs" / "examples" / "adapter_template.py"
COMMAND = shlex.join([sys.executable, str(TEMPLATE)])


def test_template_passes_smoke(run_harness) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_harness("smoke", "--engine", COMMAND)
    assert code == 0 and "FAILED" not in out


def test_template_passes_the_fixture_cases(run_harness) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_harness("run", "--engine", COMMAND, "--cases", str(CASES))
    assert code == 0 and "total         5     0" in out
