"""Poker Hand History (PHH) files: export cases for PokerKit and the PHH dataset, import hands as case skeletons.

PHH is the TOML hand-history format of PokerKit (variants F7S, F7S/8 and FR for our games); see
docs/hand-histories.md for what maps to what and what PHH cannot say.
"""
