"""Copy mode of one terminal: a line cursor over history and screen, an optional selection, its text."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dsh.term.terminal import Terminal


class CopyMode:
    """A line cursor (and selection anchor) over all of a terminal's lines, keeping the cursor in view.

    Line numbers are absolute: 0 is the oldest history line, the last is the screen's bottom row.
    """

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        screen = terminal.screen
        self.cursor = self._view_top() + min(screen.cursor.y, terminal.rows - 1)
        self.anchor: int | None = None

    # -- geometry -----------------------------------------------------------------------------
    def _count(self) -> int:
        return len(self.terminal.screen.history) + self.terminal.screen.lines

    def _view_top(self) -> int:
        term = self.terminal
        return len(term.screen.history) + term.screen.lines - term.scroll_offset - term.rows

    def _keep_in_view(self) -> None:
        top = self._view_top()
        bottom = top + self.terminal.rows - 1
        if self.cursor < top:
            self.terminal.scroll_by(top - self.cursor)
        elif self.cursor > bottom:
            self.terminal.scroll_by(-(self.cursor - bottom))

    # -- moving ---------------------------------------------------------------------------------
    def move(self, lines: int) -> None:
        """Positive moves up (older), like scrolling back."""
        self.cursor = max(0, min(self.cursor - lines, self._count() - 1))
        self._keep_in_view()

    def top(self) -> None:
        self.move(self._count())

    def bottom(self) -> None:
        self.move(-self._count())

    def follow_match(self) -> None:
        """Put the cursor on the line of the current search match."""
        match = self.terminal.search_match
        if match is not None:
            self.cursor = max(0, min(match[0], self._count() - 1))
            self._keep_in_view()

    # -- selecting ------------------------------------------------------------------------------
    def toggle_selection(self) -> None:
        self.anchor = None if self.anchor is not None else self.cursor

    def selected_range(self) -> tuple[int, int]:
        """First and last line selected (the cursor line alone when nothing is anchored)."""
        anchor = self.cursor if self.anchor is None else self.anchor
        return min(anchor, self.cursor), max(anchor, self.cursor)

    def selected_text(self) -> str:
        first, last = self.selected_range()
        lines = self.terminal.text_lines()[first : last + 1]
        return "\n".join(lines)

    def view_rows(self, height: int) -> tuple[int, int, int] | None:
        """(first row, last row, cursor row) of the selection in a view `height` rows tall, clipped."""
        top = len(self.terminal.screen.history) + self.terminal.screen.lines - self.terminal.scroll_offset - height
        first, last = self.selected_range()
        y0, y1 = max(first - top, 0), min(last - top, height - 1)
        if y0 > y1:
            return None
        return y0, y1, self.cursor - top
