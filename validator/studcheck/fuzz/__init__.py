"""Differential fuzzing: random hands on an engine and on the reference, divergences shrunk to cases.

`studcheck fuzz` (commands.py) drives search.py (the hands of a seed, divergences grouped by
signature), strategies.py and choosers.py (what is generated, from which choices), play.py (one
hand on both engines, compared), wire.py (the engine's side of each request), shrink.py and
reduce.py (Hypothesis on the recorded choices, then delta debugging), known.py (`--known`),
write.py (the case file), rules_map.py (which rule area a divergence belongs to) and report.py.
"""
