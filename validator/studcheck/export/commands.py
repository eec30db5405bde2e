"""`studcheck export --format json DIR`: the suite as JSON with golden transcripts (spec/export.md)."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from studcheck.cases.model import Case
from studcheck.export.write import ExportFailure, export_cases, write_export

EXIT_FAILED = 1


def run_json_export(directory: Path, cases: Sequence[Case]) -> int:
    """Write DIR/index.json and DIR/cases/<ID>.json; exit 1 if the reference engine fails a case."""
    started = time.perf_counter()
    try:
        index, exported = export_cases(cases)
    except ExportFailure as exc:
        print(f"studcheck export: {exc} (nothing written: a golden transcript must come from a passing run)",
              file=sys.stderr)
        return EXIT_FAILED
    size = write_export(directory, index, exported)
    print(f"{len(exported)} cases written to {directory} as JSON (index.json, cases/<ID>.json; "
          f"{size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s)")
    return 0
