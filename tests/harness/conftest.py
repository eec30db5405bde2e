"""The `run_harness` fixture: run a studcheck harness command, capture its output, forbid tracebacks."""

from __future__ import annotations

import pytest

from harness_helpers import harness_main


@pytest.fixture
def run_harness(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    def run(*argv: str) -> tuple[int, str, str]:
        code = harness_main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err, out + err
        return code, out, err

    return run
