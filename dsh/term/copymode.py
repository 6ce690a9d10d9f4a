"""Copy mode of one terminal: a cell cursor over history and screen with vi's and emacs's motions, a
selection (characters, lines or a block), search both ways, and jumps between the shell's prompts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from dsh.term.rows import row_text
from dsh.term.selection import BLOCK, CHAR, LINE, Kind, LineCells, Pos, Selection, char_class

if TYPE_CHECKING:
    from dsh.term.terminal import Terminal

__all__ = ["CopyMode"]

# A cell as the word motions walk it: (line, column, class); the end of a line that did not wrap is a
# blank between the last character and the next line's first.
_Step = tuple[int, int, int]


def _big_class(ch: str) -> int:
    """vi's WORD: anything but blanks."""
    return 0 if not ch or ch.isspace() else 1


class CopyMode:
    """A cursor (line, cell) and an optional selection over all of a terminal's lines, keeping the
    cursor in view. Lines count from the oldest history row; the last is the screen's bottom row."""

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        screen = terminal.screen
        self.line = self._view_top() + min(screen.cursor.y, terminal.rows - 1)
        self.col = min(screen.cursor.x, terminal.cols - 1)
        self.want: int | None = self.col  # the column up and down aim for (None: each line's end)
        self.selection: Selection | None = None
        self._clamp()

    # -- geometry -----------------------------------------------------------------------------
    @property
    def cursor(self) -> Pos:
        return self.line, self.col

    def _count(self) -> int:
        return len(self.terminal.screen.history) + self.terminal.screen.lines

    def _view_top(self, height: int | None = None) -> int:
        term = self.terminal
        height = term.rows if height is None else height
        return len(term.screen.history) + term.screen.lines - term.scroll_offset - height

    def _cells(self) -> LineCells:
        return LineCells(self.terminal.screen, self.terminal.cols)

    def _keep_in_view(self) -> None:
        top = self._view_top()
        bottom = top + self.terminal.rows - 1
        if self.line < top:
            self.terminal.scroll_by(top - self.line)
        elif self.line > bottom:
            self.terminal.scroll_by(-(self.line - bottom))

    def _first(self) -> int:
        """The first line the cursor may reach: a full-screen program's screen has no history above it."""
        return len(self.terminal.screen.history) if self.terminal.alternate_screen else 0

    def _clamp(self) -> None:
        self.line = max(self._first(), min(self.line, self._count() - 1))
        self.col = max(0, min(self.col, self.terminal.cols - 1))
        cells = self._cells().cells(self.line)
        while 0 < self.col < len(cells) and cells[self.col] == "":
            self.col -= 1  # never on a wide character's second half

    def _moved(self, *, keep_want: bool = False) -> None:
        self._clamp()
        if not keep_want:
            self.want = self.col
        if self.selection is not None:
            self.selection.cursor = self.cursor
        self._keep_in_view()

    def _go(self, line: int, col: int) -> None:
        self.line, self.col = line, col
        self._moved()

    def go_to(self, pos: Pos) -> None:
        """Put the cursor at (line, cell), as a click does; a selection's end follows it."""
        self._go(*pos)

    # -- up and down --------------------------------------------------------------------------
    def move(self, lines: int) -> None:
        """Up (positive, older) or down by lines, aiming for the same column (or each line's end)."""
        self.line = max(self._first(), min(self.line - lines, self._count() - 1))
        self.col = self._line_end(self._cells(), self.line) if self.want is None else self.want
        self._moved(keep_want=True)

    def scroll(self, lines: int) -> None:
        """Scroll the view by `lines` (positive: back into history) and the cursor with it, as C-u
        and C-d, C-b and C-f do; at either end the cursor goes on alone."""
        self.terminal.scroll_by(lines)
        self.move(lines)

    def top(self) -> None:
        self._go(self._first(), 0)

    def bottom(self) -> None:
        """The end of the output: the terminal's cursor line, or the last line with text below it."""
        cells = self._cells()
        last = cells.count - 1
        floor = len(self.terminal.screen.history) + self.terminal.screen.cursor.y
        while last > floor and cells.width(last) == 0:
            last -= 1
        self._go(last, 0)

    def view_line(self, where: str) -> None:
        """H, M and L: the top, middle or bottom row of the view."""
        top = self._view_top()
        rows = self.terminal.rows
        offset = {"top": 0, "middle": (rows - 1) // 2, "bottom": rows - 1}[where]
        self.line = max(0, min(top + offset, self._count() - 1))
        self.col = self.want if self.want is not None else 0
        self._moved(keep_want=True)

    # -- along a line -------------------------------------------------------------------------
    def left(self) -> None:
        self._go(self.line, self.col - 1)

    def right(self) -> None:
        cells = self._cells().cells(self.line)
        col = self.col + 1
        while col < len(cells) - 1 and cells[col] == "":
            col += 1
        self._go(self.line, col)

    def line_start(self) -> None:
        self._go(self.line, 0)

    def first_nonblank(self) -> None:
        cells = self._cells()
        texts = cells.cells(self.line)
        col = next((x for x in range(cells.width(self.line)) if texts[x] not in ("", " ")), 0)
        self._go(self.line, col)

    def line_end(self) -> None:
        self.col = self._line_end(self._cells(), self.line)
        self._moved()
        self.want = None  # up and down keep to each line's end, as after vi's $

    @staticmethod
    def _line_end(cells: LineCells, line: int) -> int:
        col = max(0, cells.width(line) - 1)
        texts = cells.cells(line)
        while col > 0 and col < len(texts) and texts[col] == "":
            col -= 1
        return col

    # -- words --------------------------------------------------------------------------------
    def _forward(self, cells: LineCells, classify: Callable[[str], int]) -> Iterator[_Step]:
        line, col = self.cursor
        while line < cells.count:
            texts = cells.cells(line)
            for x in range(col, cells.width(line)):
                if texts[x]:
                    yield line, x, classify(texts[x])
            if not cells.wrapped(line):
                yield line, cells.width(line), 0
            line, col = line + 1, 0

    def _backward(self, cells: LineCells, classify: Callable[[str], int]) -> Iterator[_Step]:
        line, col = self.cursor
        if col >= cells.width(line):
            yield line, col, 0  # the cursor in the blank after the text
        while line >= 0:
            texts = cells.cells(line)
            for x in range(min(col, cells.width(line) - 1), -1, -1):
                if texts[x]:
                    yield line, x, classify(texts[x])
            if line and not cells.wrapped(line - 1):
                yield line - 1, cells.width(line - 1), 0
            line, col = line - 1, cells.columns

    def word_forward(self, *, big: bool = False) -> None:
        """w (W): the start of the next word."""
        steps = self._forward(self._cells(), _big_class if big else char_class)
        here = next(steps, None)
        if here is None:
            return
        kind = here[2]
        for line, col, cls in steps:
            if cls != kind and cls != 0:
                self._go(line, col)
                return
            if cls == 0:
                kind = 0  # past the word: the next non-blank starts the next one

    def word_end(self, *, big: bool = False) -> None:
        """e (E): the end of this word, or of the next when already at an end."""
        self._to_run_end(self._forward(self._cells(), _big_class if big else char_class))

    def word_backward(self, *, big: bool = False) -> None:
        """b (B): the start of this word, or of the one before when already at a start."""
        self._to_run_end(self._backward(self._cells(), _big_class if big else char_class))

    def _to_run_end(self, steps: Iterator[_Step]) -> None:
        next(steps, None)  # the cursor's own cell
        found: _Step | None = None
        for step in steps:
            if found is None:
                if step[2] != 0:
                    found = step
            elif step[2] != found[2]:
                break
            else:
                found = step
        if found is not None:
            self._go(found[0], found[1])

    # -- the shell's prompts ------------------------------------------------------------------
    def prompt_lines(self) -> list[int]:
        """The lines where the shell drew a prompt (it marks them with OSC 133), oldest first."""
        screen = self.terminal.screen
        dropped = screen.history_pushed - len(screen.history)
        count = self._count()
        return [row - dropped for row in screen.shell.prompt_rows if 0 <= row - dropped < count]

    def previous_prompt(self) -> bool:
        earlier = [line for line in self.prompt_lines() if line < self.line]
        return self._to_prompt(earlier[-1]) if earlier else False

    def next_prompt(self) -> bool:
        later = [line for line in self.prompt_lines() if line > self.line]
        return self._to_prompt(later[0]) if later else False

    def _to_prompt(self, line: int) -> bool:
        """The prompt's line at the top of the view, so the command's output shows below it."""
        term = self.terminal
        top = self._view_top()
        term.scroll_by(top - line)
        self._go(line, 0)
        return True

    # -- selecting ----------------------------------------------------------------------------
    def select(self, kind: Kind = CHAR) -> None:
        """v, V, C-v: start a selection of that kind at the cursor; the same key again drops it, another
        kind changes it (as in vi's visual mode)."""
        if self.selection is None:
            self.selection = Selection(self.cursor, self.cursor, kind)
        elif self.selection.kind == kind:
            self.selection = None
        else:
            self.selection.kind = kind

    def begin_selection(self) -> None:
        """Space (C-Space in emacs keys): a new character selection from the cursor, as tmux's."""
        self.selection = Selection(self.cursor, self.cursor, CHAR)

    def toggle_block(self) -> None:
        """tmux's rectangle-toggle: the selection becomes a block, or characters again."""
        if self.selection is None:
            self.selection = Selection(self.cursor, self.cursor, BLOCK)
        else:
            self.selection.kind = CHAR if self.selection.kind == BLOCK else BLOCK

    def clear_selection(self) -> None:
        self.selection = None

    def other_end(self) -> None:
        """o: the cursor goes to the selection's other end."""
        if self.selection is not None:
            anchor = self.selection.anchor
            self.selection.anchor = self.cursor
            self._go(*anchor)

    def selected_text(self) -> str:
        """The selection's text; without a selection, the cursor's line."""
        cells = self._cells()
        if self.selection is not None:
            return self.selection.text(cells)
        return row_text(cells.row(self.line), cells.columns)

    @property
    def whole_lines(self) -> bool:
        """True when what a copy takes is whole lines (a line selection, or none)."""
        return self.selection is None or self.selection.kind == LINE

    # -- searching ----------------------------------------------------------------------------
    def search(self, text: str, *, forward: bool) -> bool:
        """Move to the next match of `text` after (or before) the cursor, wrapping around the history;
        case-insensitive unless `text` has capitals. The match is the terminal's `search_match`."""
        if not text:
            return False
        fold = text == text.lower()
        needle = text.lower() if fold else text
        lines = self.terminal.text_lines()
        cells = self._cells()
        n = len(lines)
        here = cells.index_of_column(self.line, self.col)
        for k in range(n + 1):
            i = (self.line + k) % n if forward else (self.line - k) % n
            hay = lines[i].lower() if fold else lines[i]
            if forward:
                found = hay.find(needle, here + 1) if k == 0 else hay.find(needle)
                if k == n and found > here:
                    found = -1  # back on the cursor's line: only what comes before the cursor is new
            else:
                found = hay.rfind(needle, 0, here - 1 + len(needle)) if k == 0 else hay.rfind(needle)
                if k == n and found < here:
                    found = -1
            if found >= 0:
                self.terminal.search_match = (i, found, len(text))
                self._go(i, cells.column_of_index(i, found))
                return True
        return False

    # -- drawing ------------------------------------------------------------------------------
    def view_spans(self, height: int) -> dict[int, tuple[int, int]]:
        """The selected cells [start, stop) of each row of a view `height` rows tall."""
        if self.selection is None:
            return {}
        return self.selection.view_spans(self._view_top(height), height, self.terminal.cols)

    def cursor_in_view(self, height: int) -> tuple[int, int] | None:
        """The cursor as (cell, row of the view), or None when it is out of sight."""
        y = self.line - self._view_top(height)
        return (self.col, y) if 0 <= y < height else None
