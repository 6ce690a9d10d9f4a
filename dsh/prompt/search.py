"""Reverse incremental history search as bash's C-r: the first match at once, C-r goes further back."""

from __future__ import annotations

from collections.abc import Sequence


class ReverseSearch:
    """A search over history lines (newest first) started from the line being edited.

    Smart case, as fzf: a query with no capital letter ignores case.
    """

    def __init__(self, lines_newest_first: Sequence[str], original: str, cursor: int) -> None:
        self.lines = lines_newest_first
        self.original = original
        self.original_cursor = cursor
        self.query = ""
        self.index: int | None = None  # into lines, of the current match
        self.failed = False

    def _find(self, start: int) -> int | None:
        query = self.query
        fold = query == query.lower()
        for i in range(start, len(self.lines)):
            line = self.lines[i]
            if (query in line.lower()) if fold else (query in line):
                return i
        return None

    def type(self, text: str) -> None:
        """The query grew: the newest match of the longer query, at once (from the current one on, as
        bash stays on a line that still matches)."""
        self.query += text
        found = self._find(self.index if self.index is not None else 0)
        self.failed = found is None
        if found is not None:
            self.index = found

    def backspace(self) -> None:
        self.query = self.query[:-1]
        found = self._find(0) if self.query else None
        self.index = found
        self.failed = bool(self.query) and found is None

    def older(self) -> None:
        """C-r again: the next match further back (or stay, failing, at the oldest)."""
        if not self.query:
            return
        found = self._find(self.index + 1 if self.index is not None else 0)
        self.failed = found is None
        if found is not None:
            self.index = found

    @property
    def match(self) -> str | None:
        return self.lines[self.index] if self.index is not None else None

    def cursor(self) -> int:
        """Where the cursor goes in the match: at the query, as bash shows it."""
        match = self.match
        if match is None:
            return self.original_cursor
        fold = self.query == self.query.lower()
        position = (match.lower() if fold else match).find(self.query)
        return max(0, position)

    @property
    def label(self) -> str:
        return f"({'failed ' if self.failed else ''}reverse-i-search)`{self.query}': "
