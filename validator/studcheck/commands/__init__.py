"""The command layer: each module turns arguments into objects, calls the packages below, returns an exit code.

No package imports this one (tests/unit/test_layers.py checks it): `run` (serve, run, smoke),
`merge`, `cases` (lint, show, list, coverage), `fuzz`, `report`, `rulebook`, `export` (export,
import), each registered by cli.py (`merge` by `run`, which it joins the reports of).
"""
