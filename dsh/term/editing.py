"""Editing a screen: line feeds and scrolling, tabs, inserting, deleting and erasing (each fills
with the current background only, as xterm and tmux do), selective erase, line sizes."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from dsh.term.cells import DOUBLE_BOTTOM, DOUBLE_TOP, DOUBLE_WIDTH, SINGLE, Cell, Row, blank_for
from dsh.term.rows import AnyRow

if TYPE_CHECKING:
    from dsh.term.screen import Cursor

__all__ = ["Editing"]


class Editing:
    """The editing half of TermScreen (see there for the state it uses)."""

    columns: int
    lines: int
    _buffer: list[AnyRow]
    cursor: Cursor
    margins: tuple[int, int] | None
    history: deque[AnyRow]
    history_pushed: int
    tabstops: set[int]
    _newline_mode: bool
    _iso_protect: bool
    _reverse_wrap: bool  # modes 45/1045 with DECAWM

    if TYPE_CHECKING:  # provided by TermScreen and Drawing

        def _alternate(self) -> bool: ...
        def _scroll_in(self, rows: list[AnyRow]) -> None: ...
        def _cursor_row(self) -> Row: ...
        def _row(self, y: int) -> Row: ...
        def _row_size(self, y: int) -> int: ...
        def _back_wrapping(self, count: int) -> bool: ...

    # -- rows -----------------------------------------------------------------------------------
    def _new_row(self, fill: Cell) -> Row:
        return Row([fill] * self.columns)

    def _region(self) -> tuple[int, int]:
        return self.margins or (0, self.lines - 1)

    def _scroll_region_up(self, top: int, bottom: int, count: int) -> None:
        """Rows top..bottom move up `count`; new rows (in the current background) at the bottom.
        Rows leaving the top of the whole main screen go to history."""
        buf = self._buffer
        count = min(count, bottom - top + 1)
        fill = blank_for(self.cursor.attrs)
        if top == 0 and bottom == self.lines - 1 and not self._alternate() and self.history.maxlen:
            self.history.extend(buf[:count])
            self.history_pushed += count
        del buf[top : top + count]
        buf[bottom - count + 1 : bottom - count + 1] = [self._new_row(fill) for _ in range(count)]

    def _scroll_region_down(self, top: int, bottom: int, count: int) -> None:
        buf = self._buffer
        count = min(count, bottom - top + 1)
        fill = blank_for(self.cursor.attrs)
        del buf[bottom - count + 1 : bottom + 1]
        buf[top:top] = [self._new_row(fill) for _ in range(count)]

    # -- line feeds -------------------------------------------------------------------------------
    def index(self) -> None:
        """IND: down a row; at the bottom of the scrolling region, the region scrolls up."""
        cursor = self.cursor
        margins = self.margins
        bottom = self.lines - 1 if margins is None else margins[1]
        if cursor.y == bottom:
            if margins is None:
                self._scroll_in([])
            else:
                self._scroll_region_up(0 if margins is None else margins[0], bottom, 1)
        elif cursor.y < self.lines - 1:
            cursor.y += 1

    def reverse_index(self) -> None:
        """RI: up a row; at the top of the scrolling region, the region scrolls down."""
        cursor = self.cursor
        top, bottom = self._region()
        if cursor.y == top:
            self._scroll_region_down(top, bottom, 1)
        elif cursor.y > 0:
            cursor.y -= 1

    def linefeed(self) -> None:
        self.index()
        if self._newline_mode:
            self.cursor.x = 0

    def next_line(self) -> None:
        self.cursor.x = 0
        self.index()

    def carriage_return(self) -> None:
        self.cursor.x = 0

    def backspace(self) -> None:
        if self._reverse_wrap and self._back_wrapping(1):
            return
        cursor = self.cursor
        if cursor.x >= self.columns:  # a wrap is pending: the cursor stands on the last column
            cursor.x = self.columns - 1
        cursor.x = max(0, cursor.x - 1)

    # -- tabs ---------------------------------------------------------------------------------------
    def _limit(self) -> int:
        """Columns usable on the cursor's row (half of them on a double-width row)."""
        return self.columns if self._row_size(self.cursor.y) == SINGLE else max(1, self.columns // 2)

    def tab(self) -> None:
        """HT: to the next tab stop, else the last column; never past it, so a pending wrap stays
        pending (tmux)."""
        cursor = self.cursor
        limit = self._limit()
        if cursor.x >= limit - 1:
            return
        x = cursor.x
        cursor.x = min((s for s in self.tabstops if x < s < limit), default=limit - 1)

    def forward_tabs(self, count: int = 0, *_: int) -> None:
        for _step in range(min(count or 1, self.columns)):
            self.tab()

    def back_tabs(self, count: int = 0, *_: int) -> None:
        cursor = self.cursor
        cursor.x = min(cursor.x, self.columns - 1)
        for _step in range(min(count or 1, self.columns)):
            x = cursor.x
            cursor.x = max((s for s in self.tabstops if s < x), default=0)

    def set_tab_stop(self) -> None:
        self.tabstops.add(min(self.cursor.x, self.columns - 1))

    def clear_tab_stop(self, how: int = 0, *_: int) -> None:
        if how == 0:
            self.tabstops.discard(self.cursor.x)
        elif how == 3:
            self.tabstops.clear()

    # -- lines --------------------------------------------------------------------------------------
    def insert_lines(self, count: int = 0, *_: int) -> None:
        top, bottom = self._region()
        cursor = self.cursor
        if top <= cursor.y <= bottom:
            self._scroll_region_down(cursor.y, bottom, count or 1)
            cursor.x = 0

    def delete_lines(self, count: int = 0, *_: int) -> None:
        top, bottom = self._region()
        cursor = self.cursor
        if top <= cursor.y <= bottom:
            buf = self._buffer
            count = min(count or 1, bottom - cursor.y + 1)
            fill = blank_for(cursor.attrs)
            del buf[cursor.y : cursor.y + count]
            buf[bottom - count + 1 : bottom - count + 1] = [self._new_row(fill) for _ in range(count)]
            cursor.x = 0

    def scroll_up(self, count: int = 0, *_: int) -> None:
        """SU (CSI S): the scrolling region moves up."""
        top, bottom = self._region()
        self._scroll_region_up(top, bottom, count or 1)

    def scroll_down(self, count: int = 0, *rest: int) -> None:
        """SD (CSI T): the scrolling region moves down."""
        if rest:
            return  # five parameters: xterm's mouse highlight tracking, not a scroll
        top, bottom = self._region()
        self._scroll_region_down(top, bottom, count or 1)

    # -- characters -----------------------------------------------------------------------------------
    def insert_characters(self, count: int = 0, *_: int) -> None:
        """ICH: blanks at the cursor; what is pushed past the right edge is gone."""
        cursor = self.cursor
        cols = self.columns
        x = min(cursor.x, cols - 1)
        count = min(count or 1, cols - x)
        row = self._cursor_row()
        row[x:x] = [blank_for(cursor.attrs)] * count
        del row[cols:]

    def delete_characters(self, count: int = 0, *_: int) -> None:
        """DCH: the rest of the row moves left; blanks come in at the right edge."""
        cursor = self.cursor
        cols = self.columns
        x = min(cursor.x, cols - 1)
        count = min(count or 1, cols - x)
        row = self._cursor_row()
        del row[x : x + count]
        row.extend([blank_for(cursor.attrs)] * count)

    def erase_characters(self, count: int = 0, *_: int) -> None:
        """ECH: blanks over `count` cells from the cursor; the cursor stays."""
        cursor = self.cursor
        cols = self.columns
        x = min(cursor.x, cols - 1)
        count = min(count or 1, cols - x)
        row = self._cursor_row()
        blank = blank_for(cursor.attrs)
        if self._iso_protect:
            row[x : x + count] = [cell if cell.protected else blank for cell in row[x : x + count]]
        else:
            row[x : x + count] = [blank] * count

    # -- erasing ---------------------------------------------------------------------------------------
    def erase_in_line(self, how: int = 0, *_: int, selective: bool = False) -> None:
        """EL (DECSEL when selective: protected cells stay; after SPA they stay for EL too)."""
        selective = selective or self._iso_protect
        cursor = self.cursor
        cols = self.columns
        if how == 0:
            lo, hi = min(cursor.x, cols), cols
        elif how == 1:
            lo, hi = 0, min(cursor.x + 1, cols)
        elif how == 2:
            lo, hi = 0, cols
        else:
            return
        row = self._cursor_row()
        blank = blank_for(cursor.attrs)
        if selective:
            for x in range(lo, hi):
                if not row[x].protected:
                    row[x] = blank
        else:
            row[lo:hi] = [blank] * (hi - lo)
        if hi == cols and row.wrapped:
            row.wrapped = False  # its end is gone: it no longer runs on into the next row

    def erase_in_display(self, how: int = 0, *_: int, selective: bool = False) -> None:
        """ED (DECSED when selective; after SPA, ED leaves protected cells too). ED 3 clears the
        history only, as xterm."""
        selective = selective or self._iso_protect
        cursor = self.cursor
        if how == 0:
            rows = range(cursor.y + 1, self.lines)
        elif how == 1:
            rows = range(cursor.y)
        elif how == 2:
            rows = range(self.lines)
        elif how == 3:
            self.history.clear()
            return
        else:
            return
        buf = self._buffer
        blank = blank_for(cursor.attrs)
        for y in rows:
            if selective:
                row = self._row(y)
                row[:] = [cell if cell.protected else blank for cell in row]
            else:
                buf[y] = self._new_row(blank)
        if how != 2:
            self.erase_in_line(how, selective=selective)

    def selective_erase_in_line(self, how: int = 0, *_: int) -> None:
        self.erase_in_line(how, selective=True)

    def selective_erase_in_display(self, how: int = 0, *_: int) -> None:
        self.erase_in_display(how, selective=True)

    def alignment_display(self) -> None:
        """DECALN: the screen full of E's, margins reset, cursor home."""
        e = Cell("E")
        self.buffer = [Row([e] * self.columns) for _ in range(self.lines)]
        self.margins = None
        self.cursor.x = self.cursor.y = 0

    # -- line sizes --------------------------------------------------------------------------------------
    def _line_size(self, size: int) -> None:
        cursor = self.cursor
        self._cursor_row().size = size
        if size != SINGLE:
            cursor.x = min(cursor.x, max(1, self.columns // 2) - 1)

    def single_width_line(self) -> None:
        self._line_size(SINGLE)

    def double_width_line(self) -> None:
        self._line_size(DOUBLE_WIDTH)

    def double_height_top(self) -> None:
        self._line_size(DOUBLE_TOP)

    def double_height_bottom(self) -> None:
        self._line_size(DOUBLE_BOTTOM)
