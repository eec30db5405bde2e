"""Copy the repository's spec/ and cases/ into the package at build time.

They are the product's data (rules, schemas, scenarios) and must ship with the wheel, but they
live at the top of the repository where people read and edit them.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "studcheck" / "_data"
        for name in ("spec", "cases"):
            source = ROOT / name
            if source.is_dir():
                shutil.rmtree(target / name, ignore_errors=True)
                shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))


setup(cmdclass={"build_py": BuildWithData})
