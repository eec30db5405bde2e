"""Differential fuzzing: random hands on an engine and on the reference, divergences shrunk to cases.

`studcheck fuzz` (commands.py) drives strategies.py (what is generated), play.py (one hand on both
engines, compared), shrink.py (the Hypothesis search and shrinker), write.py (the case file) and
rules_map.py (which rule area a divergence belongs to).
"""
