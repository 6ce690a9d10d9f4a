"""Rewrap soft-wrapped screen rows to a new width, keeping the cursor on the same character."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dsh.term.screen import Cell, Line

__all__ = ["reflow"]


def _logical_lines(rows: Sequence[Line], cursor_y: int, cursor_x: int,
                   old_cols: int) -> list[tuple[list[Cell], int | None]]:
    """Rows joined where the terminal wrapped them: (cells, cursor offset if the cursor is in it)."""
    out: list[tuple[list[Cell], int | None]] = []
    cells: list[Cell] = []
    cursor_at: int | None = None
    last = len(rows) - 1
    for y, line in enumerate(rows):
        if line.wrapped:
            width = old_cols
        else:
            width = min(old_cols, max(line) + 1) if line else 0
        if y == cursor_y:
            cursor_at = len(cells) + cursor_x
        cells.extend(map(line.__getitem__, range(width)))
        if not line.wrapped or y == last:
            out.append((cells, cursor_at))
            cells = []
            cursor_at = None
    return out


def reflow(rows: Sequence[Line], cursor_y: int, cursor_x: int, old_cols: int, new_cols: int,
           new_line: Callable[[], Line]) -> tuple[list[Line], int, int]:
    """Rows rewrapped to `new_cols` (rows the terminal wrapped are joined first; a wide
    character is never split), with the cursor's new (row, column)."""
    out: list[Line] = []
    cursor = (0, 0)
    for cells, cursor_at in _logical_lines(rows, cursor_y, cursor_x, old_cols):
        row = new_line()
        x = 0
        i = 0
        n = len(cells)
        while i < n:
            cell = cells[i]
            wide = cell.data != "" and i + 1 < n and cells[i + 1].data == ""
            need = 2 if wide else 1
            if x + need > new_cols and x > 0:
                row.wrapped = True
                out.append(row)
                row = new_line()
                x = 0
            if cursor_at is not None and i <= cursor_at < i + need:
                cursor = (len(out), x + cursor_at - i)
            row[x] = cell
            if wide:
                row[x + 1] = cells[i + 1]
            x += need
            i += need
        if cursor_at is not None and cursor_at >= n:
            column = x + cursor_at - n  # past the written text, e.g. after a prompt's blanks
            while column > new_cols:
                row.wrapped = True
                out.append(row)
                row = new_line()
                column -= new_cols
            cursor = (len(out), column)
        out.append(row)
    return out, cursor[0], cursor[1]
