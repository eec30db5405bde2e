"""Shared, expensive fixtures: the bundled cases loaded once, and one full JSON export of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cases.load import load_cases
from studcheck.cases.model import Case
from studcheck.export.write import export_cases, write_export


@pytest.fixture(scope="session")
def bundled_cases() -> list[Case]:
    return sorted(load_cases(), key=lambda case: case.id)


@pytest.fixture(scope="session")
def export_dir(tmp_path_factory: pytest.TempPathFactory, bundled_cases: list[Case]) -> Path:
    """Every bundled case exported as JSON, with its golden transcript (about 7 MB)."""
    directory = tmp_path_factory.mktemp("export")
    index, exported = export_cases(bundled_cases)
    write_export(directory, index, exported)
    return directory
