"""The arena: matches with seats rotated and duplicate deals, ratings, tables, plots."""
