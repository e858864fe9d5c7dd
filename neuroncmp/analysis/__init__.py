"""Analysis: what a set of profiles says beyond a pairwise diff. Pure, no printing.

``shifts`` finds level shifts in one metric's history (``rank_scan`` tests, ``placement`` places);
``synthetic`` generates histories with known truth to measure it.
"""
