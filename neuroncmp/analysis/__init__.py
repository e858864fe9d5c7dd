"""Analysis: what a set of profiles says beyond a pairwise diff. Pure, no printing (its modules:
docs/code.md)."""
