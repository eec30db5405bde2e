"""Where the bundled spec and cases live.

In a source checkout (or an editable install) they are the repository's `spec/` and `cases/`; in an
installed wheel they are copied into `studcheck/_data/` at build time (see setup.py), so the
`studcheck` command works from any directory.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_root() -> Path:
    bundled = _PACKAGE / "_data"
    if (bundled / "spec").is_dir():
        return bundled
    return _PACKAGE.parent.parent


def spec_dir() -> Path:
    return data_root() / "spec"


def cases_dir() -> Path:
    return data_root() / "cases"


def schema_path(name: str) -> Path:
    """`schema_path("case")` -> spec/schema/case.schema.json."""
    return spec_dir() / "schema" / f"{name}.schema.json"
