"""Comparison: baseline against variants, with noise bands, statistics, comparability and gates (its
modules: docs/code.md)."""
