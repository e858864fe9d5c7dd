"""Renderers: one module per output; each returns a string or a rich renderable, never prints."""
