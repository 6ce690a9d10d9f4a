"""A selection over a terminal's lines by cell (character-wise, whole lines or a block) and its text.

Positions are (line, column): `line` counts from the oldest history row (history, then the rows on
screen, as `TermScreen.all_lines` gives them), `column` is a cell. A wide character's second cell is
a placeholder whose text is empty, so a row's cells joined give its text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from dsh.term.rows import AnyRow, row_cells, row_width
from dsh.values import Value

if TYPE_CHECKING:
    from dsh.term.screen import TermScreen

__all__ = ["BLOCK", "CHAR", "LINE", "LineCells", "Pos", "Selection", "char_class"]

Pos: TypeAlias = tuple[int, int]
Kind: TypeAlias = Literal["char", "line", "block"]
CHAR: Kind = "char"
LINE: Kind = "line"
BLOCK: Kind = "block"


class LineCells:
    """The lines of a screen (history then the rows on screen) as they are now, read as cell texts
    on demand: a compact row becomes cells only when a motion or a selection reads it."""

    def __init__(self, screen: TermScreen, columns: int) -> None:
        self._history = screen.history
        self._screen = screen.screen_rows()
        self._n_hist = len(self._history)
        self.count = self._n_hist + len(self._screen)
        self.columns = columns
        self._cells: dict[int, list[str]] = {}

    def row(self, line: int) -> AnyRow:
        if line < self._n_hist:
            return self._history[line]
        return self._screen[line - self._n_hist]

    def cells(self, line: int) -> list[str]:
        """The text of each cell of `line` (a placeholder's is empty); [] for a line that is not there."""
        found = self._cells.get(line)
        if found is None:
            if not 0 <= line < self.count:
                return []
            found = self._cells[line] = [cell.data for cell in row_cells(self.row(line), self.columns)]
        return found

    def width(self, line: int) -> int:
        """Cells of `line` that hold text (trailing blanks are not text)."""
        return min(row_width(self.row(line)), self.columns) if 0 <= line < self.count else 0

    def wrapped(self, line: int) -> bool:
        """True when the terminal wrapped `line` into the next (one logical line goes on)."""
        if not 0 <= line < self.count:
            return False
        row = self.row(line)
        return type(row) is not str and bool(getattr(row, "wrapped", False))

    def char_at(self, line: int, column: int) -> str:
        """The character shown at a cell (a wide character's placeholder shows the character)."""
        cells = self.cells(line)
        if not 0 <= column < len(cells) or column >= self.width(line):
            return " "
        while column > 0 and cells[column] == "":
            column -= 1
        return cells[column] or " "

    def column_of_index(self, line: int, index: int) -> int:
        """The cell holding character `index` of the line's text (as `row_text` gives it)."""
        seen = 0
        for column, text in enumerate(self.cells(line)):
            seen += len(text)
            if seen > index:
                return column
        return min(max(0, index), self.columns - 1)

    def index_of_column(self, line: int, column: int) -> int:
        """The index in the line's text of the character at cell `column`."""
        cells = self.cells(line)
        return sum(len(text) for text in cells[: max(0, column)]) if cells else max(0, column)


def char_class(ch: str) -> int:
    """0 for a blank, 1 for a word character (letters, digits, _), 2 for anything else, as vi's
    word motions tell words apart."""
    if not ch or ch.isspace():
        return 0
    return 1 if ch[0].isalnum() or ch[0] == "_" else 2


class Selection(Value, fields=("anchor", "cursor", "kind")):
    """What is selected: from `anchor` to `cursor`, both included; by character, by line or a block."""

    anchor: Pos
    cursor: Pos
    kind: Kind

    def __init__(self, anchor: Pos, cursor: Pos, kind: Kind = CHAR) -> None:
        self.anchor = anchor
        self.cursor = cursor
        self.kind = kind

    def ordered(self) -> tuple[Pos, Pos]:
        """The first and last position, in reading order."""
        return (self.anchor, self.cursor) if self.anchor <= self.cursor else (self.cursor, self.anchor)

    def span(self, line: int, columns: int) -> tuple[int, int] | None:
        """The cells [start, stop) of `line` that are selected, or None."""
        first, last = self.ordered()
        if not first[0] <= line <= last[0]:
            return None
        if self.kind == LINE:
            return 0, columns
        if self.kind == BLOCK:
            low, high = sorted((self.anchor[1], self.cursor[1]))
            return min(low, columns), min(high + 1, columns)
        start = first[1] if line == first[0] else 0
        stop = last[1] + 1 if line == last[0] else columns
        return min(start, columns), min(stop, columns)

    def view_spans(self, top: int, height: int, columns: int) -> dict[int, tuple[int, int]]:
        """The selected cells [start, stop) of each row of a view whose first row is line `top`."""
        first, last = self.ordered()
        spans = {}
        for y in range(max(0, first[0] - top), min(height, last[0] - top + 1)):
            span = self.span(top + y, columns)
            if span is not None and span[0] < span[1]:
                spans[y] = span
        return spans

    def text(self, source: LineCells) -> str:
        """The selected text: trailing blanks of each line dropped, a line the terminal wrapped joined to
        the next (as it was printed), a block's rows one per line."""
        first, last = self.ordered()
        columns = source.columns
        out: list[str] = []
        for line in range(max(0, first[0]), min(last[0], source.count - 1) + 1):
            span = self.span(line, columns)
            if span is None:
                continue
            start, stop = span
            cells = source.cells(line)
            while 0 < start < len(cells) and cells[start] == "":
                start -= 1  # the selection begins on a wide character's second half: take the character
            piece = "".join(cells[start:stop])
            goes_on = self.kind != BLOCK and line < last[0] and stop >= columns and source.wrapped(line)
            out.append(piece if goes_on else piece.rstrip(" ") + "\n")
        return "".join(out).removesuffix("\n")
