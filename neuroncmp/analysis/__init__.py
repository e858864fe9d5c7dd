"""Analysis: what a set of profiles says beyond a pairwise diff (sweeps, findings). Pure, no printing."""
