"""`studcheck rulebook`: the spec and the cases as a static, offline site for rules readers."""
