"""The evaluation profile (spec/evaluation.md): the reference's order of hands, boards and door
cards, what an engine's values must agree with, and the rule a disagreeing pair breaks."""
