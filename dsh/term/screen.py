"""The screen model of one pane: rows of cells, the cursor, modes, alternate screen, history and
resize. Drawing, editing and replies live in their own modules (mixed in here); the parser that
calls all of them is `dsh.term.parser`."""

from __future__ import annotations

import codecs
from collections import deque
from collections.abc import Callable
from typing import NamedTuple

from dsh.term import sequences as sq
from dsh.term.cells import BLANK, SINGLE, Cell, Row
from dsh.term.drawing import CHARSETS, Drawing
from dsh.term.editing import Editing
from dsh.term.parser import Parser
from dsh.term.reflow import compact, reflow
from dsh.term.replies import TITLE_MAX, Palette, Replies, ShellMarks
from dsh.term.rows import AnyRow, row_cells, row_width
from dsh.term.sgr import canonical
from dsh.term.widths import cell_width

__all__ = ["TITLE_MAX", "Cursor", "Palette", "TermScreen"]


class Cursor:
    """Position (x == columns means a wrap is pending), rendition for new text, visibility."""

    __slots__ = ("attrs", "hidden", "x", "y")

    def __init__(self, x: int = 0, y: int = 0, attrs: Cell = BLANK, hidden: bool = False) -> None:
        self.x = x
        self.y = y
        self.attrs = attrs
        self.hidden = hidden

    def copy(self) -> Cursor:
        return Cursor(self.x, self.y, self.attrs, self.hidden)


class _Saved(NamedTuple):
    """What DECSC saves."""

    x: int
    y: int
    attrs: Cell
    origin: bool
    autowrap: bool
    charsets: tuple[str, ...]
    gl: int


# Modes a program sets for itself that must not outlive it in the pane.
PROGRAM_MODES = (
    *sq.MOUSE_MODES,
    sq.MOUSE_UTF8,
    sq.MOUSE_SGR,
    sq.MOUSE_URXVT,
    sq.FOCUS_EVENTS,
    sq.BRACKETED_PASTE,
    sq.DECCKM,
    sq.DECNKM,
    sq.SYNCHRONIZED_OUTPUT,
)


class TermScreen(Drawing, Editing, Replies):
    """A terminal screen fed bytes: pyte's cell data (and more), fast, with history, alternate
    screen, replies, title, cwd and bell.

    `buffer` is a list of `Row`s (each `columns` cells); `history` holds the rows scrolled off the
    top of the main screen, oldest first, at most `scrollback` of them, in any of the row shapes
    of `dsh.term.rows`.
    """

    def __init__(
        self,
        columns: int,
        lines: int,
        *,
        scrollback: int = 10000,
        write_process_input: Callable[[str], None] | None = None,
    ) -> None:
        self.columns = max(1, columns)
        self.lines = max(1, lines)
        self.history: deque[AnyRow] = deque(maxlen=max(0, scrollback))
        self.history_pushed = 0  # rows ever pushed into history (to keep a scrolled view still)
        self._compacted_mark = 0  # history_pushed when compact_history last caught up
        self.cwd: str | None = None
        self.shell = ShellMarks()  # what a shell with dsh's integration says (OSC 133)
        self.attention = False
        self.bell_count = 0
        self.clipboard_writes: list[tuple[str, str]] = []  # OSC 52 (selections, base64) not yet passed on
        self.notices: list[str] = []  # desktop notifications asked for since the terminal last looked
        self.notice_parts: dict[str, list[str]] = {}  # OSC 99 chunks waiting for their last
        self.palette = Palette()
        self.colours_set = 0
        self.allow_column_mode = False  # DECCOLM resizes (a pane's size is its layout's: off there)
        self._reply = write_process_input
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._parser = Parser(self)
        self.reset()

    # -- state ------------------------------------------------------------------------------------
    def reset(self) -> None:
        """RIS: everything but history back to how a new terminal starts."""
        # the main screen (rows, cursor, DECSC save) while the alternate one shows
        self._main: tuple[list[Row], Cursor, _Saved | None] | None = None
        self._main_saves_cursor = False
        self.buffer = [Row([BLANK] * self.columns) for _ in range(self.lines)]
        self.cursor = Cursor()
        self.margins: tuple[int, int] | None = None
        self.modes: set[int] = set()
        self.private_modes: set[int] = {sq.DECAWM, sq.DECTCEM}
        self.tabstops = set(range(8, self.columns, 8))
        self.charsets = ["B", "B", "B", "B"]
        self._gl = 0
        self._single_shift: int | None = None
        self._join = False
        self._iso_protect = False  # SPA was used last: plain erasing leaves protected cells
        self._saved: _Saved | None = None
        self.title = ""
        self.icon_name = ""
        self.title_stack: list[tuple[str | None, str | None]] = []
        self.conformance_level: int | None = None
        self.colour_sets: dict[int | str, str] = {}
        self.colours_set += 1  # (RIS drops the sets: a change too)
        self.cursor_shape = 0  # DECSCUSR
        self.last_char = ""
        self._mode_flags()

    def soft_reset(self, *_: int) -> None:
        """DECSTR: modes, margins, rendition and character sets to their defaults; text stays."""
        self.modes.clear()
        self.private_modes.difference_update(
            {sq.DECOM, sq.DECCKM, sq.DECNKM, sq.REVERSE_WRAP, sq.REVERSE_WRAP_EXTENDED}
        )
        self.private_modes.update({sq.DECAWM, sq.DECTCEM})
        self.cursor.hidden = False
        self.cursor.attrs = BLANK
        self.margins = None
        self.charsets = ["B", "B", "B", "B"]
        self._gl = 0
        self._single_shift = None
        self._saved = None
        self._mode_flags()

    def _mode_flags(self) -> None:
        self._autowrap = sq.DECAWM in self.private_modes
        self._insert = sq.IRM in self.modes
        self._newline_mode = sq.LNM in self.modes
        self._origin_mode = sq.DECOM in self.private_modes
        self._reverse_wrap = self._autowrap and not self.private_modes.isdisjoint(
            (sq.REVERSE_WRAP, sq.REVERSE_WRAP_EXTENDED)
        )
        self._update_plain()

    def _charset_table(self, slot: int) -> dict[int, str] | None:
        return CHARSETS.get(self.charsets[slot])

    def _update_plain(self) -> None:
        self._gl_table = self._charset_table(self._gl)
        self._plain = (
            self._autowrap
            and not self._insert
            and self._gl_table is None
            and self._single_shift is None
            and not self._iso_protect
        )

    def _alternate(self) -> bool:
        return self._main is not None

    @property
    def alternate_screen(self) -> bool:
        return self._main is not None

    def has_private_mode(self, mode: int) -> bool:
        return mode in self.private_modes

    @property
    def bracketed_paste(self) -> bool:
        return sq.BRACKETED_PASTE in self.private_modes

    @property
    def app_cursor(self) -> bool:
        return sq.DECCKM in self.private_modes

    @property
    def app_keypad(self) -> bool:
        return sq.DECNKM in self.private_modes

    @property
    def reverse_video(self) -> bool:
        """DECSCNM: the whole screen is drawn reversed (the cells keep their own reverse flag)."""
        return sq.DECSCNM in self.private_modes

    @property
    def cursor_visible(self) -> bool:
        return not self.cursor.hidden

    @property
    def mouse_tracking(self) -> bool:
        return any(m in self.private_modes for m in sq.MOUSE_MODES)

    @property
    def mouse_sgr(self) -> bool:
        return sq.MOUSE_SGR in self.private_modes

    # -- feeding ----------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Decode (invalid UTF-8 becomes U+FFFD; a split character waits for the next read) and feed."""
        self._parser.feed(self._decoder.decode(data))

    def feed_text(self, text: str) -> None:
        """Parse decoded output; an escape sequence cut at the end waits for the next call."""
        self._parser.feed(text)

    # -- cursor -----------------------------------------------------------------------------------
    def _x_on_screen(self) -> int:
        return min(self.cursor.x, self.columns - 1)

    def cursor_up(self, count: int = 0, *_: int) -> None:
        """CUU: stops at the top margin when the cursor is inside the region, else at the top."""
        cursor = self.cursor
        top = self.margins[0] if self.margins is not None and cursor.y >= self.margins[0] else 0
        cursor.y = max(cursor.y - (count or 1), top)
        cursor.x = self._x_on_screen()

    def cursor_down(self, count: int = 0, *_: int) -> None:
        cursor = self.cursor
        bottom = self.margins[1] if self.margins is not None and cursor.y <= self.margins[1] else self.lines - 1
        cursor.y = min(cursor.y + (count or 1), bottom)
        cursor.x = self._x_on_screen()

    def cursor_up1(self, count: int = 0, *_: int) -> None:
        self.cursor_up(count)
        self.cursor.x = 0

    def cursor_down1(self, count: int = 0, *_: int) -> None:
        self.cursor_down(count)
        self.cursor.x = 0

    def cursor_forward(self, count: int = 0, *_: int) -> None:
        cursor = self.cursor
        cursor.x = min(self._x_on_screen() + (count or 1), self._limit() - 1)

    def cursor_back(self, count: int = 0, *_: int) -> None:
        if self._reverse_wrap and self._back_wrapping(count or 1):
            return
        cursor = self.cursor
        cursor.x = max(self._x_on_screen() - (count or 1), 0)

    def _back_wrapping(self, count: int) -> bool:
        """BS or CUB under reverse wraparound (modes 45/1045 with DECAWM, as xterm before patch 383):
        past column 1 to the previous row's last column, from the top of the region (or screen) to
        its bottom; a wrap pending at the last column is taken back by the first step. False on a
        double-width row (left to the plain move)."""
        cursor = self.cursor
        width = self.columns
        if self._row_size(cursor.y) != SINGLE:
            return False
        if cursor.x >= width:  # a wrap pending: the cursor stands on the last column again
            cursor.x = width - 1
            count -= 1
        top, bottom = self.margins if self.margins is not None else (0, self.lines - 1)
        if not top <= cursor.y <= bottom:
            top, bottom = 0, self.lines - 1
        count %= width * (bottom - top + 1)  # a whole turn of the region comes back where it began
        x, y = cursor.x - count, cursor.y
        while x < 0:
            x += width
            y = bottom if y == top else y - 1
        cursor.x, cursor.y = x, y
        return True

    def _origin(self) -> tuple[int, int]:
        """Rows a cursor address may reach: the scrolling region in origin mode, else the screen."""
        if self._origin_mode and self.margins is not None:
            return self.margins
        return 0, self.lines - 1

    def cursor_position(self, line: int = 0, column: int = 0, *_: int) -> None:
        """CUP/HVP: 1-based; in origin mode relative to the scrolling region and kept inside it."""
        if self._origin_mode and self.margins is not None:
            top, bottom = self.margins
        else:
            top, bottom = 0, self.lines - 1
        cursor = self.cursor
        y = cursor.y = min(max(top + (line or 1) - 1, top), bottom)
        row = self._buffer[y]
        limit = self.columns if type(row) is not Row or row.size == SINGLE else max(1, self.columns // 2)
        cursor.x = min(max((column or 1) - 1, 0), limit - 1)

    def cursor_to_row_start(self, line: int) -> None:
        """CUP to column 1 of row `line` (what a full-screen program sends before each row)."""
        if self._origin_mode and self.margins is not None:
            top, bottom = self.margins
        else:
            top, bottom = 0, self.lines - 1
        cursor = self.cursor
        cursor.y = min(max(top + (line or 1) - 1, top), bottom)
        cursor.x = 0

    def cursor_to_column(self, column: int = 0, *_: int) -> None:
        self.cursor.x = min(max((column or 1) - 1, 0), self._limit() - 1)

    def cursor_to_line(self, line: int = 0, *_: int) -> None:
        top, bottom = self._origin()
        cursor = self.cursor
        cursor.y = min(max(top + (line or 1) - 1, top), bottom)
        cursor.x = self._x_on_screen()

    def set_margins(self, top: int = 0, bottom: int = 0, *_: int) -> None:
        """DECSTBM: the scrolling region (1-based, inclusive); at least two rows; cursor home."""
        t = max((top or 1) - 1, 0)
        b = min((bottom or self.lines) - 1, self.lines - 1)
        if b - t < 1:
            return
        self.margins = None if (t, b) == (0, self.lines - 1) else (t, b)
        self.cursor_position()

    def save_cursor(self) -> None:
        cursor = self.cursor
        self._saved = _Saved(
            cursor.x,
            cursor.y,
            cursor.attrs,
            sq.DECOM in self.private_modes,
            self._autowrap,
            tuple(self.charsets),
            self._gl,
        )

    def save_cursor_ansi(self, *args: int) -> None:
        if not any(args):  # with parameters `CSI s` is DECSLRM (left/right margins), not supported
            self.save_cursor()

    def restore_cursor(self, *_: int) -> None:
        saved = self._saved
        cursor = self.cursor
        if saved is None:
            self.private_modes.discard(sq.DECOM)
            cursor.x = cursor.y = 0
            self._mode_flags()
            return
        cursor.x = min(saved.x, self.columns - 1)
        cursor.y = min(saved.y, self.lines - 1)
        cursor.attrs = saved.attrs
        # (DECAWM is left as it is: xterm and tmux do not restore it)
        if saved.origin:
            self.private_modes.add(sq.DECOM)
        else:
            self.private_modes.discard(sq.DECOM)
        self.charsets = list(saved.charsets)
        self._gl = saved.gl
        self._mode_flags()

    def set_protection(self, mode: int = 0, *_: int) -> None:
        """DECSCA: 1 protects the characters drawn from now on against selective erase (DECSED,
        DECSEL); plain erasing still erases them."""
        self._protect(mode == 1, iso=False)

    def start_protected_area(self) -> None:
        """SPA: what is drawn from now on is protected against erasing of any kind (ISO 6429)."""
        self._protect(True, iso=True)

    def end_protected_area(self) -> None:
        self._protect(False, iso=True)

    def _protect(self, on: bool, *, iso: bool) -> None:
        self.cursor.attrs = canonical(self.cursor.attrs._replace(protected=on))
        self._iso_protect = iso
        self._update_plain()

    # -- modes --------------------------------------------------------------------------------------
    def set_mode(self, *modes: int) -> None:
        self.modes.update(modes)
        self._mode_flags()

    def reset_mode(self, *modes: int) -> None:
        self.modes.difference_update(modes)
        self._mode_flags()

    def set_private_mode(self, *modes: int) -> None:
        for mode in modes:
            if mode in sq.ALT_SCREEN_MODES:
                self._enter_alternate(save_cursor=mode == sq.ALT_SCREEN_SAVE)
            elif mode == sq.SAVE_CURSOR:
                self.save_cursor()
            elif mode == sq.DECTCEM:
                self.cursor.hidden = False
            self.private_modes.add(mode)
            if mode == sq.DECCOLM:
                self._column_mode(wide=True)
            elif mode == sq.DECOM:
                self._mode_flags()  # (home is the region's top-left now: cursor_position reads the flag)
                self.cursor_position()
        self._mode_flags()

    def reset_private_mode(self, *modes: int) -> None:
        for mode in modes:
            if mode in sq.ALT_SCREEN_MODES:
                self._leave_alternate(restore_cursor=mode == sq.ALT_SCREEN_SAVE)
            elif mode == sq.SAVE_CURSOR:
                self.restore_cursor()
            elif mode == sq.DECTCEM:
                self.cursor.hidden = True
            self.private_modes.discard(mode)
            if mode == sq.DECCOLM:
                self._column_mode(wide=False)
            elif mode == sq.DECOM:
                self._mode_flags()
                self.cursor_position()
        self._mode_flags()

    def _column_mode(self, *, wide: bool) -> None:
        """DECCOLM: a pane keeps the size its layout gives it (unless `allow_column_mode`, as
        xterm's allowColumnMode: then 132 or 80 columns), but the screen is cleared, the margins
        reset and the cursor homed, as the mode change does on a VT100."""
        if self.allow_column_mode:
            self.resize(self.lines, 132 if wide else 80)
        self.margins = None
        self.erase_in_display(2)
        self.cursor.x = self.cursor.y = 0

    def keypad_application(self) -> None:
        self.private_modes.add(sq.DECNKM)

    def keypad_numeric(self) -> None:
        self.private_modes.discard(sq.DECNKM)

    def reset_program_modes(self) -> None:
        """Undo what a previous program set for itself and would confuse the next one: mouse
        reporting, focus events, bracketed paste, application cursor and keypad keys, synchronized
        output, a hidden cursor, the alternate screen."""
        self.private_modes.difference_update(PROGRAM_MODES)
        if self._main is not None:
            self._leave_alternate(restore_cursor=True)
        self.private_modes.add(sq.DECTCEM)
        self.cursor.hidden = False
        self.cursor_shape = 0
        self._mode_flags()

    def _enter_alternate(self, *, save_cursor: bool) -> None:
        if self._main is not None:
            return
        self._main = (self.buffer, self.cursor.copy(), self._saved)
        self._main_saves_cursor = save_cursor
        self.buffer = [Row([BLANK] * self.columns) for _ in range(self.lines)]

    def _leave_alternate(self, *, restore_cursor: bool) -> None:
        if self._main is None:
            return
        buf, cursor, saved = self._main
        self._main = None
        self.buffer = buf
        self._saved = saved
        self.private_modes.difference_update(sq.ALT_SCREEN_MODES)
        if restore_cursor or self._main_saves_cursor:
            self.cursor = cursor
            cursor.x = min(cursor.x, self.columns)  # == columns: a wrap is pending
            cursor.y = min(cursor.y, self.lines - 1)

    # -- resize -------------------------------------------------------------------------------------
    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Resize; rows that no longer fit above the cursor go into history, growing brings
        history back (like tmux), and a width change rewraps history and screen. The cursor stays
        on the same text."""
        lines = max(1, lines or self.lines)
        columns = max(1, columns or self.columns)
        if lines == self.lines and columns == self.columns:
            return
        old_columns = self.columns
        if self._main is not None:
            main_buf, main_cursor, _ = self._main
        else:
            main_buf, main_cursor = self.buffer, self.cursor
        if columns != old_columns:
            self._reflow(main_buf, main_cursor, lines, columns)
        else:
            self._resize_rows(main_buf, main_cursor, lines, keep_history=True)
        if self._main is not None:
            # a full-screen program redraws at its new size: its screen is only cut to fit
            self._resize_rows(self.buffer, self.cursor, lines, keep_history=False)
            self.buffer[:] = [row_cells(row, columns) for row in self.buffer]
            self.cursor.x = min(self.cursor.x, columns - 1)
        if columns > old_columns:
            self.tabstops.update(range(8 * (old_columns // 8 + 1), columns, 8))
        self.lines, self.columns = lines, columns
        self.margins = None
        if self._saved is not None:
            self._saved = self._saved._replace(x=min(self._saved.x, columns - 1), y=min(self._saved.y, lines - 1))

    def _reflow(self, buf: list[Row], cursor: Cursor, rows: int, columns: int) -> None:
        """The main screen and all of history at a new width (see `dsh.term.reflow.reflow`)."""
        history = self.history
        old_len = len(history)
        every, y, x = reflow([*history, *buf], old_len + cursor.y, cursor.x, self.columns, columns)
        while len(every) > y + 1 and _blank(every[-1]):
            every.pop()  # blank rows below the cursor
        start = min(max(0, len(every) - rows), y)
        history.clear()
        history.extend(every[:start])
        self.history_pushed += max(0, len(history) - old_len)
        self._compacted_mark = min(self._compacted_mark, self.history_pushed - len(history))
        shown = [row_cells(row, columns) for row in every[start : start + rows]]
        shown.extend(Row([BLANK] * columns) for _ in range(rows - len(shown)))
        buf[:] = shown
        cursor.y = min(max(y - start, 0), rows - 1)
        cursor.x = min(x, columns)

    def _resize_rows(self, buf: list[Row], cursor: Cursor, rows: int, *, keep_history: bool) -> None:
        old = len(buf)
        history = self.history
        if rows < old:
            drop = max(0, cursor.y + 1 - rows)
            if drop:
                if keep_history and history.maxlen:
                    history.extend(buf[:drop])
                    self.history_pushed += drop
                del buf[:drop]
                cursor.y -= drop
            del buf[rows:]
        elif rows > old:
            pull = min(rows - old, len(history)) if keep_history else 0
            if pull:
                back = [history.pop() for _ in range(pull)]
                back.reverse()
                buf[0:0] = [row_cells(row, self.columns) for row in back]
                cursor.y += pull
            buf.extend(Row([BLANK] * self.columns) for _ in range(rows - len(buf)))
        cursor.y = min(max(cursor.y, 0), rows - 1)

    # -- history ------------------------------------------------------------------------------------
    def compact_history(self, limit: int) -> int:
        """Put up to `limit` of the newest not yet compacted history rows in compact form; returns
        how many are still waiting. Meant for idle time, not the feed."""
        history = self.history
        waiting = min(self.history_pushed - self._compacted_mark, len(history))
        count = min(waiting, max(0, limit))
        compact(history, len(history) - waiting, count)
        self._compacted_mark = self.history_pushed - (waiting - count)
        return waiting - count

    def take_rows(self, other: TermScreen) -> int:
        """Take `other`'s history and main-screen rows (as they are: `other` is given up), the cursor
        at the bottom; how many of the rows on screen hold anything, through the last that does.
        Both screens have the same size."""
        other.reset_program_modes()  # the main screen, should the alternate one show
        self.history.extend(other.history)
        self.history_pushed += len(other.history)
        rows = other.screen_rows()
        self.buffer = [row if type(row) is Row else row_cells(row, self.columns) for row in rows]
        used = len(rows)
        while used and _blank(rows[used - 1]):
            used -= 1
        self.cursor.y = self.lines - 1
        self.cursor.x = 0
        return used

    def all_lines(self) -> list[AnyRow]:
        """History (oldest first) then the rows on screen."""
        return [*self.history, *self.screen_rows()]

    # -- reading ------------------------------------------------------------------------------------
    @property
    def display(self) -> list[str]:
        """Rows as text, like pyte's (a wide character once, its placeholder skipped), except that
        a placeholder left by a half-overwritten wide character reads as a space."""
        rows = []
        for row in self.buffer:
            text = "".join([cell.data for cell in row])
            if len(text) == len(row) and text.isascii():
                rows.append(text)
                continue
            chars = []
            skip = False
            for cell in row:
                if skip:
                    skip = False
                    continue
                ch = cell.data
                if not ch:
                    chars.append(" ")
                    continue
                chars.append(ch)
                skip = cell_width(ch) == 2
            rows.append("".join(chars))
        return rows


def _blank(row: AnyRow) -> bool:
    if type(row) is str:
        return not row
    if type(row) is Row:
        return not row.wrapped and row.size == SINGLE and row_width(row) == 0
    return False
