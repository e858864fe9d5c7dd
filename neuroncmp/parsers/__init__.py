"""Parsers: one module per input format, each registered in ``registry``."""

from .registry import Parser, by_name, parsers

__all__ = ["Parser", "by_name", "parsers"]
