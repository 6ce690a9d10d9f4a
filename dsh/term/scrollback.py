"""Looking back in a terminal: the scrolled view over history and screen, and where a search matched."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.term.rows import AnyRow, row_text

if TYPE_CHECKING:
    from dsh.term.screen import TermScreen

__all__ = ["Scrollback"]


class Scrollback:
    """The scrollback half of Terminal: `scroll_offset` rows back from the live screen, and the
    current search match."""

    screen: TermScreen
    rows: int
    cols: int
    scroll_offset: int
    search_match: tuple[int, int, int] | None  # (line index, column, length)

    def _max_offset(self) -> int:
        # History belongs to the main screen: a full-screen program's view does not scroll into it.
        return 0 if self.screen.alternate_screen else len(self.screen.history)

    def scroll_by(self, lines: int) -> None:
        """Positive scrolls back into history, negative toward the live screen."""
        self.scroll_offset = max(0, min(self.scroll_offset + lines, self._max_offset()))

    def scroll_to_bottom(self) -> None:
        self.scroll_offset = 0
        self.search_match = None

    def _view_top(self, height: int) -> int:
        return len(self.screen.history) + self.screen.lines - self.scroll_offset - height

    def line_at(self, row: int, height: int) -> int:
        """The line (counted from the oldest history row) that row `row` of a view `height` rows tall shows."""
        return self._view_top(height) + row

    def visible_lines(self, height: int) -> list[AnyRow]:
        """The `height` rows to draw: history and screen with `scroll_offset` applied."""
        history = self.screen.history
        buf = self.screen.screen_rows()
        n_hist = len(history)
        top = self._view_top(height)
        out: list[AnyRow] = []
        for i in range(top, top + height):
            if i < 0:
                out.append("")
            elif i < n_hist:
                out.append(history[i])
            elif i - n_hist < len(buf):
                out.append(buf[i - n_hist])
            else:
                out.append("")
        return out

    def cursor_in_view(self, height: int) -> tuple[int, int] | None:
        """The cursor as (cell x, row in the view), or None when scrolled out of sight."""
        y = len(self.screen.history) + self.screen.cursor.y - self._view_top(height)
        if 0 <= y < height:
            return min(self.screen.cursor.x, self.cols - 1), y
        return None

    def match_in_view(self, height: int) -> tuple[int, int, int] | None:
        """The current search match as (row in the view, column, length), if visible."""
        if self.search_match is None:
            return None
        line, col, length = self.search_match
        y = line - self._view_top(height)
        return (y, col, length) if 0 <= y < height else None

    def text_lines(self) -> list[str]:
        """History then screen, as plain text without trailing blanks."""
        cols = self.cols
        return [row_text(line, cols) for line in self.screen.all_lines()]
