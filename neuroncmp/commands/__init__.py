"""The library call behind each command, which the CLI and the Python API both make: a frozen
options record checked when made, and an entry point returning the document renderers show
(each command's pair: docs/code.md). Its modules import their layers only when called.
"""
