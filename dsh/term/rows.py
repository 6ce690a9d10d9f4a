"""The three shapes a row takes and what every reader needs of them: cells, text, width, runs.

A row is a `Row` (a list of cells, as on screen), a plain `str` (text drawn from column 0 in the
default rendition, not wrapped: what most output becomes in history, made without any per-cell
work), a `Packed` row (text plus the rendition of each stretch of it and the blank after it), or a
`Raw` row (the text and SGR a program sent for the line, kept as sent: the cheapest to make and
the smallest to keep; it is read as the `Packed` row it stands for). A `str`, `Packed` or `Raw`
row's cells are what drawing its text from column 0 on a blank row gives, so wide and combining
characters need no placeholders in them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import final

from dsh.term.cells import BLANK, SINGLE, ZWJ, Cell, Row, blank_for, glyphs_for, is_narrow
from dsh.term.sgr import canonical, sgr_step
from dsh.term.widths import cell_width, char_width, clusters, joins, text_width

__all__ = [
    "SEGMENT",
    "AnyRow",
    "Packed",
    "Raw",
    "content",
    "pack",
    "pack_source",
    "row_cells",
    "row_fill",
    "row_runs",
    "row_text",
    "row_width",
    "text_cells",
    "text_width",
]

# Inside a line of output: SGR (final m) or a bare EL (final K) between pieces of text.
SEGMENT = re.compile(r"\x1b\[([0-9;:]*)([mK])")


@final  # so `type(row) is Packed` tells mypy the row is no other kind too
class Packed:
    """A compact row: `text` as drawn from column 0, `runs` of (end index in text, rendition)
    covering it in order, `fill` for the cells after it, and whether the terminal wrapped it."""

    __slots__ = ("fill", "runs", "text", "wrapped")

    def __init__(
        self, text: str, runs: tuple[tuple[int, Cell], ...], fill: Cell = BLANK, wrapped: bool = False
    ) -> None:
        self.text = text
        self.runs = runs
        self.fill = fill
        self.wrapped = wrapped

    def __repr__(self) -> str:
        return f"Packed({self.text!r}, {len(self.runs)} runs, wrapped={self.wrapped})"


@final
class Raw:
    """A line as the program sent it (text with SGR and bare EL), drawn from column 0 on a new row
    `span` cells wide whose blank was `fill`, starting in rendition `attrs`; `width` is its
    `row_width` (-1 until measured; it fits the row)."""

    __slots__ = ("attrs", "fill", "source", "span", "width")
    wrapped = False

    def __init__(self, source: str, attrs: Cell, fill: Cell, width: int, span: int) -> None:
        self.source = source
        self.attrs = attrs
        self.fill = fill
        self.width = width
        self.span = span

    def packed(self) -> str | Packed:
        return pack_source(self.source, self.attrs, self.fill, self.span)

    def __repr__(self) -> str:
        return f"Raw({self.source!r})"


def pack_source(source: str, attrs: Cell, fill: Cell, span: int) -> str | Packed:
    """A line of text, SGR and bare EL drawn from column 0 on a new row `span` cells wide (whose
    blank is `fill`) in rendition `attrs`, as a compact row (a `str` when nothing in it is
    styled). The blank is kept only if some of it shows, after the text."""
    parts = SEGMENT.split(source)
    texts: list[str] = []
    runs: list[tuple[int, Cell]] = []
    text = parts[0]
    length = len(text)
    if text:
        texts.append(text)
        runs.append((length, attrs))
    for i in range(1, len(parts), 3):
        if parts[i + 1] == "m":
            attrs = sgr_step(attrs, parts[i])[1]
        else:
            fill = blank_for(attrs)  # EL: the rest of the row, whatever text follows
        text = parts[i + 2]
        if text:
            texts.append(text)
            length += len(text)
            if runs and runs[-1][1] is attrs:
                runs[-1] = (length, attrs)
            else:
                runs.append((length, attrs))
    return compact_row("".join(texts), tuple(runs), fill, span)


def compact_row(
    text: str, runs: tuple[tuple[int, Cell], ...], fill: Cell, span: int, wrapped: bool = False
) -> str | Packed:
    """A compact row for `text` drawn from column 0 on a row `span` cells wide over `fill`, said
    the way `pack` says the same cells: spaces at the end in a background alone are blanks (the
    fill, when they reach the row's end), and the fill is kept only if some of it shows."""
    width = len(text) if is_narrow(text) else text_width(text)
    if fill is not BLANK and width >= span:
        fill = BLANK  # the text covers the row: no blank of it shows
    if text.endswith(" ") and runs:
        last = runs[-1][1]
        if last == blank_for(last) and (width >= span or last == fill):
            start = runs[-2][0] if len(runs) > 1 else 0
            kept = _unspaced(text, start)
            if width >= span:
                fill = blank_for(last)  # the spaces reach the row's end: they are its blank
            runs = (*runs[:-1], (len(kept), last)) if len(kept) > start else runs[:-1]
            text = kept
    if fill is BLANK and not wrapped and (not runs or (len(runs) == 1 and runs[0][1] is BLANK)):
        return text
    return Packed(text, runs, fill, wrapped)


AnyRow = Row | str | Packed | Raw


def text_cells(text: str, runs: tuple[tuple[int, Cell], ...], fill: Cell, columns: int) -> Row:
    """The cells of `text` drawn from column 0 in `runs`' renditions, `fill` after it; cut at
    `columns`. The rules are the screen's: a wide character takes a placeholder after it, a
    zero-width one joins the cell before it (after ZWJ, so does the next character)."""
    row = Row([fill] * columns)
    if not runs:
        runs = ((len(text), BLANK),)
    start = 0
    if is_narrow(text):
        for end, attrs in runs:
            if start >= columns:
                break
            stop = min(end, columns)
            row[start:stop] = map(glyphs_for(attrs).__getitem__, text[start:stop])
            start = end
        return row
    x = 0
    bounds = iter(runs)
    end, attrs = next(bounds)
    glyphs = glyphs_for(attrs)
    for start, stop, width in clusters(text):
        while start >= end:
            end, attrs = next(bounds, (len(text), attrs))
            glyphs = glyphs_for(attrs)
        if not width:
            continue  # nothing before it to join (a joining character at the start)
        if x + width > columns:
            return row
        row[x] = glyphs[text[start:stop]]
        if width == 2:
            row[x + 1] = glyphs[""]
        x += width
    return row


def _plain_runs(row: str) -> tuple[tuple[int, Cell], ...]:
    return ((len(row), BLANK),)


def row_cells(row: AnyRow, columns: int) -> Row:
    """A row as `columns` cells (a new Row for compact rows; a Row itself is padded or cut)."""
    if type(row) is Raw:
        row = row.packed()
    if isinstance(row, str):
        return text_cells(row, _plain_runs(row), BLANK, columns)
    if isinstance(row, Packed):
        cells = text_cells(row.text, row.runs, row.fill, columns)
        cells.wrapped = row.wrapped
        return cells
    if len(row) == columns:
        return row
    cells = Row(row[:columns])
    if len(cells) < columns:
        cells.extend([row_fill(row)] * (columns - len(cells)))  # a row erased in a colour stays so
    if row.wrapped:
        cells.wrapped = True
    if row.size != SINGLE:
        cells.size = row.size
    return cells


def _trimmed(row: Row) -> int:
    """How many cells of a Row matter: up to the last one that is not a default blank."""
    n = len(row)
    if not n or row[n - 1] != BLANK:
        return n
    # A cell at a time from the end cost 16 µs for each blank row of a 140-column pane, on every frame
    # drawn. `count` is one C loop: a blank row is told in 0.3 µs, and the blank tail of any other is
    # found by a binary search over counts of its slices.
    if row.count(BLANK) == n:
        return 0
    low, high = 1, n - 1  # a tail of `low` cells is blank; one longer than `high` is not
    while low < high:
        mid = (low + high + 1) // 2
        if row[n - mid :].count(BLANK) == mid:
            low = mid
        else:
            high = mid - 1
    return n - low


def row_text(row: AnyRow, columns: int) -> str:
    """A row as plain text without trailing blanks (a wide character once, placeholders dropped)."""
    if type(row) is Raw:
        row = row.packed()
    if isinstance(row, str):
        text = row
    elif isinstance(row, Packed):
        text = row.text
    else:
        last = min(_trimmed(row), columns)
        text = "".join([cell.data for cell in row[:last]])
        if len(text) == last and text.isascii():
            return text.rstrip()
        return "".join(text for _, text in _row_cell_runs(row, columns)).rstrip()
    if len(text) > columns and (is_narrow(text)):
        text = text[:columns]
    return text.rstrip()


def row_fill(row: Row) -> Cell:
    """The blank a Row ends in when erasing left it there (in some background): what fills the
    row past its text however wide it gets."""
    last = row[-1] if row else BLANK
    return last if last.data == " " and last == blank_for(last) else BLANK


def _unspaced(text: str, start: int = 0) -> str:
    """`text` without the spaces at its end (after `start`), but for one a ZWJ joins to the
    character before it."""
    end = start + len(text[start:].rstrip(" "))
    if end < len(text) and end and text[end - 1] == ZWJ:
        end += 1
    return text[:end]


def content(text: str, runs: tuple[tuple[int, Cell], ...], fill: Cell) -> str:
    """A compact row's text without the spaces at its end that are the same as the blanks after
    them (in the same rendition as the fill): they are no more content than those blanks."""
    if not text.endswith(" ") or (runs[-1][1] if runs else BLANK) != fill:
        return text
    return _unspaced(text, runs[-2][0] if len(runs) > 1 else 0)


def row_width(row: AnyRow) -> int:
    """Cells a row's content takes: trailing blanks, and trailing spaces that look like them, are
    not content; nor are the blanks erasing left in a background colour (they are the row's fill)."""
    if type(row) is Raw:
        if row.width < 0:
            row.width = row_width(row.packed())
        return row.width
    if isinstance(row, str):
        text = _unspaced(row)
        return len(text) if is_narrow(text) else text_width(text)
    if type(row) is Packed:
        text = content(row.text, row.runs, row.fill)
        return len(text) if is_narrow(text) else text_width(text)
    n = _trimmed(row)
    fill = row_fill(row)
    if fill is not BLANK:
        while n and row[n - 1] == fill:
            n -= 1
    return n


def _row_cell_runs(row: Row, columns: int) -> Iterator[tuple[Cell, str]]:
    """(cell, text to draw) per drawn cell of a Row: a wide character and its placeholder are one
    entry; half of a broken wide character draws as a space, so columns line up."""
    last = min(columns, _trimmed(row))
    x = 0
    while x < last:
        cell = row[x]
        ch = cell.data
        if not ch:
            yield cell, " "
        elif not ch.isascii() and cell_width(ch) == 2:
            if x + 1 < len(row) and row[x + 1].data == "":
                yield cell, ch
                x += 2
                continue
            yield cell, " "
        else:
            yield cell, ch
        x += 1


def row_runs(row: AnyRow, columns: int) -> list[tuple[Cell, str]]:
    """A row as (rendition, text) runs to draw, merged where the rendition is the same; trailing
    default blanks are left out. The rendition is a cell of that rendition (its data is not used)."""
    if type(row) is Raw:
        row = row.packed()
    if isinstance(row, str):
        text = row if len(row) <= columns or not is_narrow(row) else row[:columns]
        return [(BLANK, text)] if text else []
    if isinstance(row, Packed):
        out: list[tuple[Cell, str]] = []
        start = 0
        text = row.text
        cut = columns if is_narrow(text) else len(text)
        for end, attrs in row.runs:
            piece = text[start : min(end, cut)]
            if piece:
                out.append((attrs, piece))
            start = end
        if row.fill is not BLANK:
            width = len(text) if cut == columns else text_width(text)
            if width < columns:
                out.append((row.fill, " " * (columns - width)))
        return out
    out = []
    key_prev: tuple | None = None
    chars: list[str] = []
    first: Cell = BLANK
    for cell, ch in _row_cell_runs(row, columns):
        key = cell[1:]
        if key != key_prev:
            if chars:
                out.append((first, "".join(chars)))
            chars = [ch]
            first = cell
            key_prev = key
        else:
            chars.append(ch)
    if chars:
        out.append((first, "".join(chars)))
    return out


def pack(row: Row) -> AnyRow:
    """A Row in compact form (a `str` when it is plain text), or the Row itself when its cells are
    not what drawing their text would give (a broken wide character, a double-width row)."""
    if row.size != SINGLE:
        return row
    fill = row_fill(row)
    n = len(row)
    while n and row[n - 1] == fill:
        n -= 1
    texts: list[str] = []
    runs: list[tuple[int, Cell]] = []
    length = 0
    key_prev: tuple | None = None
    attrs = BLANK
    x = 0
    while x < n:
        cell = row[x]
        ch = cell.data
        if not ch:
            return row  # a placeholder without its wide character
        step = 1
        if not ch.isascii() and cell_width(ch) == 2:
            if x + 1 >= len(row) or row[x + 1].data != "":
                return row
            step = 2
        elif not ch.isascii() and (cell_width(ch) != 1 or cell_width(ch[0]) == 0):
            return row  # starts with a zero-width character: drawing would join it to the cell before
        if ch[-1] == ZWJ or (texts and not ch.isascii() and joins(texts[-1], ch[0], char_width(ch[0]), False)):
            return row  # drawing would join this cell's character, or the next one's, to the cell before
        key = cell[1:]
        if key != key_prev:
            if texts and key_prev is not None:
                runs.append((length, attrs))
            attrs = canonical(cell._replace(data=" "))
            key_prev = key
        texts.append(ch)
        length += len(ch)
        x += step
    if key_prev is not None:
        runs.append((length, attrs))
    text = "".join(texts)
    if fill is BLANK and not row.wrapped and (not runs or (len(runs) == 1 and runs[0][1] == BLANK)):
        return text
    return Packed(text, tuple(runs), fill, row.wrapped)
