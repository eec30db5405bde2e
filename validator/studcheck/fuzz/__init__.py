"""Differential fuzzing: random hands on an engine and on the reference, divergences shrunk to cases.

One hand goes through one pipeline, a module per stage, each importing only the stages before it:

    generate  strategies.py  hand k of seed S from (S, k) alone: variant, options, stakes, seats, deck, moves
    play      play.py        the hand on both sides: the engine through the protocol (pipelined), the reference in-process
    compare   compare.py     the two answers: the first difference, its signature
    shrink    shrink.py      a divergent hand made minimal: Hypothesis on its choices, then delta debugging
    write     write.py       the minimal hand as a case file (rules_map.py: the rules it points to)

Around it: search.py runs the hands of a run in one process (pipelined, divergences grouped by
signature, --duration), pool.py the same on worker processes (--jobs), with identical results,
forked from a fork server that warm.py warms up once;
census.py tallies them (and merges shards' censuses); known.py reads --known; report.py prints;
config.py holds the run's settings; commands.py is the thin `studcheck fuzz` command. evaluation.py is
`--profile evaluation`: random batches of hands to rank, run as generated cases through
harness/evaluation.py (which shrinks a disagreeing pair through the engine), not through this pipeline.
"""
