"""HTML tables read back as rows of cell texts, for tests that check what a page shows."""

from __future__ import annotations

from html.parser import HTMLParser


class Tables(HTMLParser):
    """Every ``<table>`` as rows of cell texts, and whether each sits inside a ``<details>``."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.folded: list[bool] = []
        self.summaries: list[str] = []
        self._details = 0
        self._cell: list[str] | None = None
        self._summary: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "details":
            self._details += 1
        elif tag == "summary":
            self._summary = []
        elif tag == "table":
            self.tables.append([])
            self.folded.append(self._details > 0)
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")  # a value and its change under it: two lines of one cell

    def handle_endtag(self, tag: str) -> None:
        if tag == "details":
            self._details -= 1
        elif tag == "summary" and self._summary is not None:
            self.summaries.append("".join(self._summary))
            self._summary = None
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        for part in (self._cell, self._summary):
            if part is not None:
                part.append(data)


def tables_in(html: str) -> Tables:
    parser = Tables()
    parser.feed(html)
    return parser
