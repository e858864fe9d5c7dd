"""Comparison: baseline against variants, with noise bands, statistics, comparability and gates.

``differ.compare`` builds an immutable ``result.Comparison``; ``view.select`` picks and orders
the rows to show; ``gates.evaluate`` checks ``--fail-on`` rules and returns their outcome;
``sides`` groups captures and picks the baseline; ``bands`` holds the noise bands; ``stats`` the
median and permutation test; ``comparability`` the warnings that runs may not be comparable.
"""
