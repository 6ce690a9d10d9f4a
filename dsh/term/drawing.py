"""Drawing text on a screen: runs of text, SGR and CR LF, character sets, wide and combining
characters, REP, and the bulk path that turns lines scrolling out of view into compact rows."""

from __future__ import annotations

import re
from collections import deque
from typing import TYPE_CHECKING

from dsh.term.cells import (
    BLANK,
    NARROW_RUNS,
    NARROW_TEXT,
    SINGLE,
    ZWJ,
    Cell,
    Row,
    blank_for,
    glyphs_for,
)
from dsh.term.rows import SEGMENT, AnyRow, Packed, Raw, compact_row, row_cells, text_width
from dsh.term.sgr import SGR_CACHE, sgr_step
from dsh.term.widths import cell_width, char_width, joins

if TYPE_CHECKING:
    from collections.abc import Sequence

    from dsh.term.screen import Cursor

__all__ = ["CHARSETS", "Drawing"]

# Character sets a program can designate (ESC ( 0 and so on): DEC special graphics (the line
# drawing ncurses uses when the locale is not UTF-8, as xterm maps it) and the UK set; anything
# else draws as ASCII.
_DEC_GRAPHICS = dict(zip(range(0x5F, 0x7F), " ◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·", strict=True))
CHARSETS: dict[str, dict[int, str]] = {"0": _DEC_GRAPHICS, "A": {ord("#"): "£"}}

_CR_LF = re.compile(r"\r+\n")
_SGR_PARAMS = re.compile(r"\x1b\[([0-9;:]*)m")
ESCAPES = re.compile(r"\x1b\[[0-9;:]*[mK]")  # SEGMENT without its groups: stripped a little faster


class Drawing:
    """The drawing half of TermScreen (see there for the state it uses)."""

    columns: int
    lines: int
    _buffer: list[AnyRow]  # the rows on screen; a row only ever drawn whole may be compact
    _compact_rows: bool  # some row in _buffer is compact
    cursor: Cursor
    margins: tuple[int, int] | None
    history: deque[AnyRow]
    history_pushed: int
    last_char: str
    _plain: bool
    _gl_table: dict[int, str] | None
    _single_shift: int | None
    _autowrap: bool
    _insert: bool
    _join: bool  # a ZWJ ended the last text drawn: the next character joins its cell
    _origin_mode: bool
    _newline_mode: bool  # LNM: a line feed returns the carriage too
    _main: object  # the main screen while the alternate one shows (None otherwise)
    _gl: int
    charsets: list[str]

    if TYPE_CHECKING:  # provided by the other halves of TermScreen

        def index(self) -> None: ...
        def erase_in_line(self, how: int = 0, *_: int, selective: bool = False) -> None: ...
        def _charset_table(self, slot: int) -> dict[int, str] | None: ...
        def _update_plain(self) -> None: ...
        def _alternate(self) -> bool: ...

    # -- runs ---------------------------------------------------------------------------------
    def write(self, run: str) -> None:
        """Draw a run of text, SGR, bare EL, CR and LF (the parser's `run`)."""
        if "\n" not in run and "\r" not in run:
            if self.cursor.x or not self._replace_row(run):
                self._segment(run)
            return
        if "\r\r" in run:
            run = _CR_LF.sub("\r\n", run)  # CR CR LF is what a tty's onlcr makes of CR LF
        if not run.count("\r") == run.count("\n") == run.count("\r\n"):
            # A CR or LF on its own. Where a read split a CR LF, at the ends of the run, the lines
            # between still go the fast way; a progress bar or a raw-mode program goes the slow one.
            end = len(run.rstrip("\r"))
            start = 1 if run[0] == "\n" else 0
            inner = run[start:end]
            if (start or end < len(run)) and inner.count("\r") == inner.count("\n") == inner.count("\r\n"):
                if start:
                    self._write_controls("\n")
                if inner:
                    self.write(inner)
                if end < len(run):
                    self._write_controls("\r")
            else:
                self._write_controls(run)
            return
        pieces = run.split("\r\n")
        self._segment(pieces[0])
        last = len(pieces) - 1
        i = 1
        plain_run = run.isascii() and "\x1b" not in run
        cursor = self.cursor
        while i <= last:
            self._join = False  # a line feed: nothing left to join
            if i < last and self._bulk_ready():
                i = self._bulk(pieces, i, last, plain_run)  # with the line feed before pieces[i]
            else:
                self.index()
            cursor.x = 0
            self._segment(pieces[i])
            i += 1

    def _write_controls(self, run: str) -> None:
        """A run with CR and LF anywhere in it, each doing what it does on its own."""
        cursor = self.cursor
        lines = run.split("\n")
        last = len(lines) - 1
        for i, line in enumerate(lines):
            parts = line.split("\r")
            for j, part in enumerate(parts):
                if j:
                    cursor.x = 0
                    self._join = False
                self._segment(part)
            if i < last:
                self._join = False
                self.index()
                if self._newline_mode:
                    cursor.x = 0

    def _replace_row(self, run: str) -> bool:
        """A whole row drawn at once, as full-screen programs redraw a line (text from column 0,
        then EL): the row is kept as sent, and gets cells only if something reads it before it
        is drawn over again. False (nothing done) for any other run."""
        end = run.rfind("\x1b[K")
        if end < 0 or not self._plain or self._join:
            return False
        tail = end + 3 < len(run)
        if tail and SEGMENT.sub("", run[end + 3 :]):
            return False  # text after the EL
        text = SEGMENT.sub("", run)  # (the tail has no text)
        width = len(text)
        cols = self.columns
        if width > cols or not (text.isascii() or NARROW_TEXT.fullmatch(text)):
            width = text_width(text)
            if width > cols or text[:1] == ZWJ or (text and char_width(text[0]) == 0):
                return False
        cursor = self.cursor
        buf = self._buffer
        y = cursor.y
        old = buf[y]
        if type(old) is Row and old.size != SINGLE:
            return False
        attrs = cursor.attrs
        buf[y] = Raw(run, attrs, BLANK, -1 if text.endswith(" ") else width, cols)
        self._compact_rows = True
        cursor.x = width
        k = run.rfind("\x1b[", 0, end)  # the rendition after it: most such lines end in a reset
        if (run.startswith("\x1b[0m", k) or run.startswith("\x1b[m", k)) and not tail and not attrs.protected:
            cursor.attrs = BLANK
        else:
            cursor.attrs = self._attrs_after(run, attrs)
        self.last_char = ""
        return True

    def redraw_rows(self, rows: list[tuple[str, str]]) -> None:
        """Rows a full-screen program redraws one after another, each (row number, line): CUP to
        the row's first column, then text and SGR up to an EL (and maybe SGR after it). Each is
        what `_replace_row` makes of it, but a row that plainly fits (ASCII, at most `columns`
        characters less three for each escape) is kept as sent without being measured: the next
        row's CUP moves the cursor anyway, so only the last row's width is ever needed."""
        cursor = self.cursor
        cols = self.columns
        if self._origin_mode and self.margins is not None:
            top, bottom = self.margins
        else:
            top, bottom = 0, self.lines - 1
        buf = self._buffer
        attrs = cursor.attrs
        for line, source in rows[:-1]:
            y = int(line) + top - 1
            if not top <= y <= bottom:
                y = top if y < top else bottom
            if self._plain and source.isascii() and len(source) - 3 * source.count("\x1b") <= cols:
                old = buf[y]
                if type(old) is not Row or old.size == SINGLE:
                    buf[y] = Raw(source, attrs, BLANK, -1, cols)
                    # the rendition after it: most such rows end in a reset, before the EL or after it
                    k = source.rfind("\x1b[", 0, len(source) - 3 if source.endswith("\x1b[K") else len(source))
                    if (source.startswith("\x1b[0m", k) or source.startswith("\x1b[m", k)) and not attrs.protected:
                        attrs = BLANK
                    else:
                        attrs = self._attrs_after(source, attrs)
                    continue
            cursor.attrs = attrs
            self._redraw_row(y, source)
            attrs = cursor.attrs
        self._compact_rows = True
        cursor.attrs = attrs
        line, source = rows[-1]
        self._redraw_row(min(max(top + (int(line) or 1) - 1, top), bottom), source)

    def _redraw_row(self, y: int, source: str) -> None:
        """Row `y` drawn over from its first column with `source` (text and SGR up to an EL)."""
        cursor = self.cursor
        cursor.y = y
        cursor.x = 0
        self._join = False
        if not self._replace_row(source):
            self._segment(source)

    @staticmethod
    def _attrs_after(source: str, attrs: Cell) -> Cell:
        """The rendition after the SGRs in `source`, from `attrs`."""
        k = source.rfind("\x1b[")
        while k >= 0 and source.startswith("\x1b[K", k):
            k = source.rfind("\x1b[", 0, k)
        if k < 0:
            return attrs
        if (source.startswith("\x1b[0m", k) or source.startswith("\x1b[m", k)) and not attrs.protected:
            return BLANK  # the line ends in a reset, as most do
        for params in _SGR_PARAMS.findall(source):
            attrs = sgr_step(attrs, params)[1]
        return attrs

    def _segment(self, piece: str) -> None:
        """Text with SGR and bare EL in it, drawn at the cursor."""
        if "\x1b" not in piece:
            if piece:
                self._draw(piece)
                self.last_char = piece[-1]
            else:
                self.last_char = ""
            return
        parts = SEGMENT.split(piece)
        cursor = self.cursor
        text = parts[0]
        if text:
            self._draw(text)
        row = self._cursor_row()
        cols = self.columns
        fast = self._plain and row.size == SINGLE and not self._join
        cache = SGR_CACHE
        attrs = cursor.attrs
        getc = glyphs_for(attrs).__getitem__
        x = cursor.x
        triples = iter(parts)
        next(triples)
        # x and attrs live in locals; the cursor is brought up to date before anything else runs
        for params, final, text in zip(triples, triples, triples, strict=True):
            if final == "m":
                hit = cache.get((id(attrs), params))
                if hit is None or hit[0] is not attrs:
                    hit = sgr_step(attrs, params)
                attrs = hit[1]
                getc = hit[2]
            elif x < cols and fast:  # EL: to the end of the row, in the background only
                row[x:] = [BLANK if attrs.bg == "default" else blank_for(attrs)] * (cols - x)
                row.wrapped = False
            else:
                cursor.x = x
                cursor.attrs = attrs
                self.erase_in_line(0)
            if text:
                end = x + len(text)
                if fast and end <= cols and text.isascii():
                    row[x:end] = map(getc, text)
                    x = end
                else:
                    cursor.x = x
                    cursor.attrs = attrs
                    self._draw(text)
                    x = cursor.x
                    row = self._row(cursor.y)
                    fast = self._plain and row.size == SINGLE and not self._join
        cursor.x = x
        cursor.attrs = attrs
        self.last_char = text[-1] if text else ""

    def select_graphic_rendition(self, params: str = "") -> None:
        cursor = self.cursor
        attrs = cursor.attrs
        hit = SGR_CACHE.get((id(attrs), params))
        if hit is None or hit[0] is not attrs:
            hit = sgr_step(attrs, params)
        cursor.attrs = hit[1]

    # -- the bulk path --------------------------------------------------------------------------
    def _bulk_ready(self) -> bool:
        """True when the lines of a run can scroll in without being drawn cell by cell: the cursor
        on the bottom row, no scrolling region, and nothing special about how text is drawn."""
        return (
            self.cursor.y == self.lines - 1 and self.margins is None and self._plain and self._row_size(-1) == SINGLE
        )  # _plain: autowrap, no IRM, ASCII sets

    def _bulk(self, pieces: list[str], start: int, stop: int, plain_run: bool) -> int:
        """Lines `pieces[start:stop]`, each after a CR LF, made into compact rows and scrolled in
        at once, with the line feed for the piece after them. No cells are made for any of them.
        Returns the index of the first piece it did not take (say, one that would wrap in a way a
        compact row cannot say)."""
        cols = self.columns
        cursor = self.cursor
        attrs = cursor.attrs
        if plain_run and attrs is BLANK:
            texts = pieces[start:stop]
            lines: list[str] | list[AnyRow] = texts
            if max(map(len, texts)) > cols:
                # ASCII text without escapes: a long line is rows of `cols` characters the
                # terminal wrapped, then the rest of it
                runs = ((cols, BLANK),)
                rows: list[AnyRow] = []
                lines = rows
                append = rows.append
                for line in texts:
                    if len(line) > cols:
                        end = (len(line) - 1) // cols * cols
                        x = 0
                        while x < end:
                            append(Packed(line[x : x + cols], runs, BLANK, True))
                            x += cols
                        line = line[end:]
                    append(line)
            self._scroll_in(lines)
            return stop
        out: list[AnyRow] = []
        append = out.append
        i = start
        while i < stop:
            piece = pieces[i]
            if "\x1b" in piece:
                # kept as sent (a Raw row): only its width and the rendition after it are worked
                # out now, each the cheapest way that is exact
                bound = len(piece) - 3 * piece.count("\x1b")  # every escape here takes 3 characters or more
                if bound <= cols and (bound * 2 <= cols or piece.isascii()):
                    width = -1  # it fits; measured when it is read
                else:
                    text = ESCAPES.sub("", piece)
                    width = len(text) if text.isascii() or NARROW_TEXT.fullmatch(text) else text_width(text)
                    if width > cols:
                        break
                    if text.endswith(" "):
                        width = -1  # (spaces at the end may be no content: measured when read)
                append(Raw(piece, attrs, BLANK if attrs is BLANK else blank_for(attrs), width, cols))
                # the rendition after it: most lines end in a reset (maybe then an EL, as grep's)
                k = piece.rfind("\x1b[")
                if piece.startswith("\x1b[K", k):
                    k = piece.rfind("\x1b[", 0, k)
                if (piece.startswith("\x1b[0m", k) or piece.startswith("\x1b[m", k)) and not attrs.protected:
                    attrs = BLANK
                else:
                    attrs = self._attrs_after(piece, attrs)
            elif len(piece) <= cols and (
                piece.isascii() or 2 * len(piece) <= cols or NARROW_TEXT.fullmatch(piece) or text_width(piece) <= cols
            ):
                if attrs is BLANK:
                    append(piece)
                else:  # over the line feed's blank
                    append(compact_row(piece, ((len(piece), attrs),), blank_for(attrs), cols))
            elif piece.isascii() or NARROW_TEXT.fullmatch(piece):
                # a long line: the terminal wraps it every `cols` characters
                fill = blank_for(attrs)
                runs = ((cols, attrs),)
                for x in range(0, len(piece) - cols, cols):
                    append(Packed(piece[x : x + cols], runs, fill, True))
                tail = piece[(len(piece) - 1) // cols * cols :]
                append(tail if attrs is BLANK else compact_row(tail, ((len(tail), attrs),), fill, cols))
            else:
                break
            i += 1
        cursor.attrs = attrs
        self._scroll_in(out)
        return i

    def _scroll_in(self, rows: Sequence[AnyRow]) -> None:
        """Scroll the whole screen up by len(rows) + 1: `rows` (compact) come in above a new bottom
        row, blank in the current background, where the cursor is. What leaves the top goes to
        history (on the main screen). Nothing here makes cells."""
        buf = self._buffer
        history = self.history
        if not rows:  # a line feed at the bottom: the common case on its own
            top = buf.pop(0)
            if history.maxlen and self._main is None:
                history.append(top)
                self.history_pushed += 1
            buf.append(Row([blank_for(self.cursor.attrs)] * self.columns))
            return
        count = self.lines
        leave = len(rows) + 1
        if not self._alternate() and history.maxlen:
            if leave <= count:
                history.extend(buf[:leave])
            else:
                history.extend(buf)
                history.extend(rows[: leave - count])
            self.history_pushed += leave
        bottom = Row([blank_for(self.cursor.attrs)] * self.columns)
        if leave <= count:
            del buf[:leave]
            buf.extend(rows)
        else:
            buf[:] = rows[leave - count :]
        buf.append(bottom)
        if rows:
            self._compact_rows = True

    def _row(self, y: int) -> Row:
        """Row `y` of the screen, with cells (a compact row on screen gets them now)."""
        row = self._buffer[y]
        if type(row) is not Row:
            row = self._buffer[y] = row_cells(row, self.columns)
        return row

    def _cursor_row(self) -> Row:
        return self._row(self.cursor.y)

    def _row_size(self, y: int) -> int:
        row = self._buffer[y]
        return row.size if type(row) is Row else SINGLE

    @property
    def buffer(self) -> list[Row]:
        """The rows on screen, each with cells."""
        if self._compact_rows:
            cols = self.columns
            self._buffer[:] = [row if type(row) is Row else row_cells(row, cols) for row in self._buffer]
            self._compact_rows = False
        return self._buffer  # type: ignore[return-value]  # Rows only, now: the line above made them so

    @buffer.setter
    def buffer(self, rows: list[Row]) -> None:
        self._buffer = rows  # type: ignore[assignment]  # list[Row] is one kind of list[AnyRow] (invariant)
        self._compact_rows = False

    def screen_rows(self) -> list[AnyRow]:
        """The rows on screen as they are kept (some may be compact): for readers that take any
        row shape, so output nobody looks at is never made into cells just to be drawn."""
        return list(self._buffer)

    # -- text ---------------------------------------------------------------------------------
    def _draw(self, text: str) -> None:
        if self._gl_table is not None or self._single_shift is not None:
            text = self._translate(text)
        if not self._join and (text.isascii() or NARROW_TEXT.fullmatch(text)):
            self._draw_narrow(text)
            return
        for run in NARROW_RUNS.findall(text):
            if self._join:  # a ZWJ came last: the next character joins its cell
                self._draw_wide(run[0])
                run = run[1:]
            if run.isascii() or NARROW_TEXT.fullmatch(run):
                if run:
                    self._draw_narrow(run)
            else:
                self._draw_wide(run)

    def _translate(self, text: str) -> str:
        if self._single_shift is not None:
            table = self._charset_table(self._single_shift)
            self._single_shift = None
            self._update_plain()
            first = text[0].translate(table) if table else text[0]
            rest = text[1:]
            return first + (rest.translate(self._gl_table) if self._gl_table and rest else rest)
        return text.translate(self._gl_table) if self._gl_table else text

    def _draw_narrow(self, text: str) -> None:
        """Draw text whose every character takes one cell."""
        cursor = self.cursor
        getc = glyphs_for(cursor.attrs).__getitem__
        cols = self.columns
        insert = self._insert
        n = len(text)
        i = 0
        x = cursor.x
        row = self._cursor_row()
        limit = cols if row.size == SINGLE else cols // 2
        while i < n:
            if x >= limit:
                if self._autowrap:
                    row.wrapped = True
                    cursor.x = 0
                    self.index()
                    row = self._row(cursor.y)
                    limit = cols if row.size == SINGLE else cols // 2
                    x = 0
                else:
                    row[limit - 1] = getc(text[-1])  # each further character overwrites the last column
                    break
            k = min(limit - x, n - i)
            chunk = text[i : i + k] if i or k < n else text
            if insert:
                row[x:x] = [blank_for(cursor.attrs)] * k
                del row[cols:]
            row[x : x + k] = map(getc, chunk)
            x += k
            i += k
        # with autowrap off the cursor stays on the last column (xterm, tmux), no wrap pending
        cursor.x = x if x < limit or self._autowrap else limit - 1

    def _draw_wide(self, text: str) -> None:
        """Draw text with wide and zero-width characters, one character at a time (the cells by
        `dsh.term.widths`: what joins a character goes into its cell, which may widen)."""
        cursor = self.cursor
        glyphs = glyphs_for(cursor.attrs)
        cols = self.columns
        for ch in text:
            width = char_width(ch)
            if width <= 0 or self._join or ch > "\U0001f1e5":  # (flags and skin tones join too)
                prev = self._cell_before()
                if prev is not None and joins(prev[1], ch, width, self._join):
                    self._join = ch == ZWJ
                    self._combine(prev[0], ch)
                    continue
                if width <= 0:
                    self._join = ch == ZWJ  # (dropped at column 0, as tmux)
                    continue
            self._join = False
            row = self._row(cursor.y)
            limit = cols if row.size == SINGLE else cols // 2
            if width > limit:
                continue
            x = cursor.x
            if x + width > limit:
                if self._autowrap:
                    row.wrapped = True
                    cursor.x = 0
                    self.index()
                    row = self._row(cursor.y)
                    x = 0
                else:
                    x = limit - width
            if self._insert:
                row[x:x] = [blank_for(cursor.attrs)] * width
                del row[cols:]
            row[x] = glyphs[ch]
            if width == 2:
                row[x + 1] = glyphs[""]
            cursor.x = x + width if x + width < limit or self._autowrap else limit - 1

    def _cell_before(self) -> tuple[int, str] | None:
        """The column and text of the cell the cursor comes right after (a wide character, not its
        placeholder); None at column 0."""
        x = self.cursor.x
        if not x:
            return None
        row = self._cursor_row()
        prev = min(x, len(row)) - 1
        if prev and row[prev].data == "":
            prev -= 1  # onto the wide character, not its placeholder
        return prev, row[prev].data

    def _combine(self, prev: int, ch: str) -> None:
        """`ch` joins the cell at `prev`; a cell that becomes wide by it (⚠ with VS16, a flag's
        second half) takes the next column too when there is room, as tmux 3.4 does."""
        cursor = self.cursor
        row = self._cursor_row()
        cell = row[prev]
        data = cell.data + ch
        row[prev] = cell._replace(data=data)
        if cell_width(data) == 2 and cell_width(cell.data) == 1 and prev == cursor.x - 1:
            limit = self.columns if row.size == SINGLE else self.columns // 2
            if prev + 1 < limit:
                row[prev + 1] = cell._replace(data="")
                cursor.x = prev + 2

    def repeat_last(self, count: int = 0, *_: int) -> None:
        """REP: the character drawn right before it, again (nothing after any control)."""
        if self.last_char:
            self._draw(self.last_char * min(count or 1, self.columns * self.lines))

    def shift_out(self) -> None:
        self._gl = 1
        self._update_plain()

    def shift_in(self) -> None:
        self._gl = 0
        self._update_plain()

    def locking_shift_2(self) -> None:
        self._gl = 2
        self._update_plain()

    def locking_shift_3(self) -> None:
        self._gl = 3
        self._update_plain()

    def single_shift_2(self) -> None:
        self._single_shift = 2
        self._update_plain()

    def single_shift_3(self) -> None:
        self._single_shift = 3
        self._update_plain()

    def designate_charset(self, slot: int, code: str) -> None:
        """ESC ( 0 and the like: `code` becomes G0..G3."""
        self.charsets[slot] = code
        self._update_plain()
