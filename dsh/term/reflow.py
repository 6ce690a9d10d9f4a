"""Scrollback reflow: rewrapping history and screen to a new width, and compacting history.

Reflow walks every row once; a row that needs no change (not wrapped, narrow enough) is kept as
the same object after a constant-time check, so the per-cell work is proportional to the rows
that do change. Wrapped narrow text is rewrapped by slicing strings; only rows with wide
characters (and the cursor's line) go through cells.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from dsh.term.cells import BLANK, NARROW_TEXT, Cell, Row, is_narrow
from dsh.term.rows import AnyRow, Packed, Raw, compact_row, content, pack, row_cells, row_fill, row_width, text_width

__all__ = ["compact", "reflow"]


def _unchanged(row: AnyRow, columns: int) -> bool:
    """True when a row stays as it is at width `columns`: not wrapped, and its content fits."""
    if isinstance(row, str):
        return len(row) <= columns and (
            row.isascii()
            or 2 * len(row) <= columns
            or NARROW_TEXT.fullmatch(row) is not None
            or text_width(row) <= columns
        )
    if row.wrapped:
        return False
    if type(row) is Row and len(row) <= columns:
        return True
    return row_width(row) <= columns


def _slice_runs(runs: list[tuple[int, Cell]], start: int, stop: int) -> tuple[tuple[int, Cell], ...]:
    out: list[tuple[int, Cell]] = []
    begin = 0
    for end, attrs in runs:
        if end > start and begin < stop:
            out.append((min(end, stop) - start, attrs))
        begin = end
        if begin >= stop:
            break
    return tuple(out)


def _rewrap_text(group: Sequence[AnyRow], old_cols: int, new_cols: int) -> list[AnyRow] | None:
    """A logical line of narrow compact rows rewrapped by slicing; None if any row is not one."""
    texts: list[str] = []
    runs: list[tuple[int, Cell]] = []
    offset = 0
    fill = BLANK
    last = len(group) - 1
    row_runs: tuple[tuple[int, Cell], ...]
    for k, row in enumerate(group):
        if type(row) is Raw:
            row = row.packed()
        if type(row) is str:
            text, row_runs, fill = row, ((len(row), BLANK),), BLANK
        elif type(row) is Packed:
            text, row_runs, fill = row.text, row.runs, row.fill
        else:
            return None
        if not is_narrow(text):
            return None
        if k == last:
            # spaces at the end are no content, but a row the line wrapped into holds at least
            # the character that wrapped
            text = text[: max(len(content(text, row_runs, fill)), 1 if k else 0)]
        texts.append(text)
        runs.extend((offset + end, attrs) for end, attrs in row_runs)
        offset += len(text)
        if k < last:
            pad = old_cols - len(text)
            if pad > 0:  # a wrapped row's blanks are part of the line
                texts.append(" " * pad)
                offset += pad
                runs.append((offset, fill))
    line = "".join(texts)
    out: list[AnyRow] = []
    if not line:
        return [compact_row("", (), fill, new_cols)]
    for start in range(0, len(line), new_cols):
        stop = min(start + new_cols, len(line))
        final = stop == len(line)
        out.append(
            compact_row(line[start:stop], _slice_runs(runs, start, stop), fill if final else BLANK, new_cols, not final)
        )
    return out


def _rewrap_cells(
    group: Sequence[AnyRow], old_cols: int, new_cols: int, cursor_row: int | None, cursor_x: int
) -> tuple[list[AnyRow], tuple[int, int] | None]:
    """A logical line rewrapped through its cells (wide characters are never split; a wide
    character that does not fit leaves a blank and moves to the next row); the cursor's new
    (row in the result, column) when it is in this line."""
    cells: list[Cell] = []
    cursor_at: int | None = None
    last = len(group) - 1
    fill = BLANK
    for k, row in enumerate(group):
        if type(row) is Raw:
            row = row.packed()
        fill = row.fill if type(row) is Packed else row_fill(row) if type(row) is Row else BLANK
        width = old_cols if k < last else max(row_width(row), 1 if k else 0)
        if k == cursor_row:
            cursor_at = len(cells) + cursor_x
        cells.extend(row_cells(row, max(width, 1))[:width])
    out: list[AnyRow] = []
    cursor: tuple[int, int] | None = None
    new = Row([BLANK] * new_cols)
    x = 0
    i = 0
    n = len(cells)
    while i < n:
        cell = cells[i]
        wide = cell.data != "" and i + 1 < n and cells[i + 1].data == ""
        need = 2 if wide else 1
        if x + need > new_cols and x > 0:
            new.wrapped = True
            out.append(new)
            new = Row([BLANK] * new_cols)
            x = 0
        if cursor_at is not None and i <= cursor_at < i + need:
            cursor = (len(out), x + cursor_at - i)
        if x < new_cols:
            new[x] = cell
            if wide and x + 1 < new_cols:
                new[x + 1] = cells[i + 1]
        x += need
        i += need
    if cursor_at is not None and cursor_at >= n:
        column = x + cursor_at - n  # past the written text, e.g. after a prompt's blanks
        while column > new_cols:
            new.wrapped = True
            out.append(new)
            new = Row([BLANK] * new_cols)
            column -= new_cols
        cursor = (len(out), column)
    if fill is not BLANK and x < new_cols:
        new[x:] = [fill] * (new_cols - x)
    out.append(new)
    return out, cursor


def reflow(
    rows: Sequence[AnyRow], cursor_index: int, cursor_x: int, old_cols: int, new_cols: int
) -> tuple[list[AnyRow], int, int]:
    """All rows (history then screen) rewrapped from `old_cols` to `new_cols`: rows the terminal
    wrapped are joined and split again; the rest stay the same objects. Returns the rows and the
    cursor's new (index, column); the cursor was at (`cursor_index`, `cursor_x`)."""
    out: list[AnyRow] = []
    append = out.append
    cursor = (cursor_index, min(cursor_x, new_cols))
    n = len(rows)
    i = 0
    while i < n:
        row = rows[i]
        if i != cursor_index and _unchanged(row, new_cols):
            append(row)
            i += 1
            continue
        j = i
        # rows[j] is not a str once the test before `and` passed (mypy narrows no rows[j] by its type).
        while j < n - 1 and type(rows[j]) is not str and rows[j].wrapped:  # type: ignore[union-attr]
            j += 1
        group = rows[i : j + 1]
        if i <= cursor_index <= j:
            new, at = _rewrap_cells(group, old_cols, new_cols, cursor_index - i, cursor_x)
            if at is not None:
                cursor = (len(out) + at[0], at[1])
        else:
            new = _rewrap_text(group, old_cols, new_cols) or _rewrap_cells(group, old_cols, new_cols, None, 0)[0]
        out.extend(new)
        i = j + 1
    return out, cursor[0], cursor[1]


def compact(history: deque[AnyRow], start: int, count: int) -> None:
    """Rows `start`..`start+count` of history in compact form (`pack`); rows already compact are
    left alone. Meant for idle time, not the feed."""
    for i in range(start, start + count):
        row = history[i]
        if type(row) is Row:
            history[i] = pack(row)
