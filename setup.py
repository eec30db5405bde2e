"""Copy the repository's spec/ and cases/ into the package at build time; optionally compile with mypyc.

spec/ and cases/ are the product's data (rules, schemas, scenarios) and must ship with the wheel,
but they live at the top of the repository where people read and edit them.

`STUDCHECK_COMPILE=1 pip install .` also compiles the reference engine and the evaluator with
mypyc (about twice as fast; docs/benchmarks.md). It is opt-in: without the variable the wheel is
pure Python and the build needs neither mypy nor a C compiler. With it, setuptools reports `mypy`
as a build requirement (`setup_requires`, which its PEP 517 backend hands to pip), so pip installs
mypy into the isolated build environment; with `--no-build-isolation` mypy must already be
installed, and the build stops with a clear message when it is not.
"""

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent

#: Compiled when STUDCHECK_COMPILE=1. Not cards.py and rules.py: compiled code checks argument
#: types before the functions' own checks run, which changes their error messages.
COMPILED_MODULES = (
    "validator/studcheck/engine/__init__.py",
    "validator/studcheck/engine/errors.py",
    "validator/studcheck/engine/dealing.py",
    "validator/studcheck/engine/explain.py",
    "validator/studcheck/engine/explain_award.py",
    "validator/studcheck/engine/explain_legal.py",
    "validator/studcheck/engine/notes.py",
    "validator/studcheck/engine/betting.py",
    "validator/studcheck/engine/showdown.py",
    "validator/studcheck/engine/state.py",
    "validator/studcheck/engine/values.py",
    "validator/studcheck/evaluate.py",
)


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "studcheck" / "_data"
        for name in ("spec", "cases"):
            source = ROOT / name
            if source.is_dir():
                shutil.rmtree(target / name, ignore_errors=True)
                shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))


def compile_requested() -> bool:
    value = os.environ.get("STUDCHECK_COMPILE", "").strip().lower()
    if value in ("", "0", "no", "false"):
        return False
    if value in ("1", "yes", "true"):
        return True
    sys.exit(f"STUDCHECK_COMPILE={value!r}: use 1 to compile with mypyc, 0 or unset for pure Python")


def compiled_options() -> dict[str, Any]:
    """setup() arguments of a mypyc build: the extensions, or a build that stops and says why."""
    if {"editable_wheel", "develop"} & set(sys.argv):
        sys.exit("STUDCHECK_COMPILE=1 is for non-editable installs: compiled modules next to the sources "
                 "would shadow the .py files you edit")
    try:
        from mypyc.build import mypycify
    except ImportError:
        # First pass of a PEP 517 build (get_requires_for_build_wheel): setuptools raises inside
        # setup() to report `mypy` to pip before any command runs, so MypyMissing never runs there.
        return {"setup_requires": ["mypy>=1.8"], "cmdclass": {"build_py": MypyMissing}}
    if Path.cwd().resolve() != ROOT:
        sys.exit(f"STUDCHECK_COMPILE=1: run the build from {ROOT} (mypyc's paths are relative to it)")
    # group_name names the shared library `studcheck__mypyc`, so an installation shows what it holds.
    extensions = mypycify(list(COMPILED_MODULES), opt_level="3", group_name="studcheck")
    return {"setup_requires": ["mypy>=1.8"], "ext_modules": extensions, "cmdclass": {"build_py": BuildWithData}}


class MypyMissing(build_py):
    def run(self) -> None:
        raise SystemExit("STUDCHECK_COMPILE=1 needs mypy (which provides mypyc) in the build environment: "
                         "`pip install mypy` first when building with --no-build-isolation")


setup(**(compiled_options() if compile_requested() else {"cmdclass": {"build_py": BuildWithData}}))
