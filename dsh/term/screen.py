"""A fast pyte screen: own parser, history, alternate screen and the xterm extensions a pane needs."""

from __future__ import annotations

import codecs
import copy
import re
import unicodedata
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

import pyte
from pyte import modes as mo
from pyte.screens import Cursor, Margins, wcwidth

from dsh.term.reflow import reflow
from dsh.term.sgr import apply_sgr
from dsh.text import sanitize, strip_format

__all__ = ["Cell", "FrozenLine", "Line", "Lines", "TermScreen"]

TITLE_MAX = 256
# An unterminated OSC/DCS longer than this is dropped rather than buffered forever.
_STRING_MAX = 65536
# An escape sequence still unfinished after this many characters is garbage, not a split read.
_PENDING_MAX = 4096

# Private modes (unshifted numbers) the screen reports on.
MODE_APP_CURSOR = 1
MODE_CURSOR_VISIBLE = 25
MODE_MOUSE_X10 = 9
MODE_MOUSE_NORMAL = 1000
MODE_MOUSE_BUTTON = 1002
MODE_MOUSE_ANY = 1003
MODE_MOUSE_SGR = 1006
MODE_BRACKETED_PASTE = 2004
_ALT_MODES = (1049, 1047, 47)
# At most this many of the newest history rows are rewrapped with the screen on a width change.
_REFLOW_HISTORY_MAX = 500
MODE_FOCUS_EVENTS = 1004
MODE_SYNCHRONIZED_OUTPUT = 2026
_REPORTED_PRIVATE_MODES = frozenset({1, 5, 6, 7, 9, 12, 25, 47, 1000, 1002, 1003, 1004, 1006, 1047, 1049, 2004,
                                     2026})

DA_PRIMARY_REPLY = "\x1b[?62;22c"  # VT220 with ANSI colour, as xterm says
DA_SECONDARY_REPLY = "\x1b[>1;10;0c"


class Cell(NamedTuple):
    """One screen cell: pyte's Char fields in pyte's order, plus `dim`."""

    data: str
    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    italics: bool = False
    underscore: bool = False
    strikethrough: bool = False
    reverse: bool = False
    blink: bool = False
    dim: bool = False


_BLANK = Cell(" ")
_BLANK_REVERSE = Cell(" ", reverse=True)


class Line(dict):
    """One row: column -> Cell; a column never written reads as `default`.

    `default` is a class attribute (so a new row is one C call); only rows made under reverse
    video (DECSCNM) carry their own."""

    default: Cell = Cell(" ")
    wrapped = False  # the terminal wrapped this row's text onto the next (set per row when it does)

    def __missing__(self, key: int) -> Cell:
        return self.default


class FrozenLine(tuple):
    """A row in history, compacted: its cells from column 0 to the last one written (a tuple of
    pointers takes about a fifth of a Line's memory). Read-only."""

    __slots__ = ()
    wrapped = False

    @staticmethod
    def of(line: Line) -> FrozenLine:
        kind = _WrappedFrozenLine if line.wrapped else FrozenLine
        return kind(map(line.__getitem__, range(max(line) + 1))) if line else kind()

    def thaw(self) -> Line:
        line = Line(enumerate(self))
        if self.wrapped:
            line.wrapped = True
        return line


class _WrappedFrozenLine(FrozenLine):
    __slots__ = ()
    wrapped = True


class Lines(list):
    """The rows of a screen: a list (scrolling is a C-level delete/insert) that also answers
    the few dict calls pyte's Screen methods make on `buffer`."""

    __slots__ = ("_new",)

    def __init__(self, count: int, new: Callable[[], Line]) -> None:
        super().__init__(new() for _ in range(count))
        self._new = new

    def __contains__(self, y: object) -> bool:
        return isinstance(y, int) and 0 <= y < len(self)

    def pop(self, y: int = -1, default: Any = None) -> Any:  # type: ignore[override]
        """pyte's `buffer.pop(y, None)` blanks row y (and returns what was there)."""
        if 0 <= y < len(self):
            old = self[y]
            self[y] = self._new()
            return old
        return default

    def values(self) -> Iterator[Line]:
        return iter(self)

    def keys(self) -> range:
        return range(len(self))

    def items(self) -> Iterator[tuple[int, Line]]:
        return enumerate(self)

    def clear(self) -> None:
        self[:] = [self._new() for _ in range(len(self))]


class _Glyphs(dict):
    """Cells of one attribute combination, by character, made once."""

    __slots__ = ("attrs",)

    def __missing__(self, ch: str) -> Cell:
        cell = self[ch] = self.attrs._replace(data=ch)
        return cell


# Text runs: anything but C0, DEL and C1 controls. A trailing CRLF is taken with the run (most lines).
_TOKEN = re.compile(
    r"([^\x00-\x1f\x7f-\x9f]+)(\r+\n)?"  # 1 text, 2 CR LF after it (CR CR LF: the tty's onlcr)
    r"|(\r+\n)"  # 3
    r"|\x1b\[([0-9;]*)m([^\x00-\x1f\x7f-\x9f]+)?"  # 4 plain SGR, 5 text after it
    r"|(?:\x1b\[|\x9b)([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e])"  # 6 params, 7 intermediates, 8 final
)
_TEXT_RUN = re.compile(r"[^\x00-\x1f\x7f-\x9f]+")
# A CSI that did not match cleanly: controls inside it, an unfinished one, or a bad final byte.
_CSI_LOOSE = re.compile(r"(?:\x1b\[|\x9b)([\x07-\x0d\x30-\x3f]*)([\x20-\x2f]*)(.)?", re.S)
# OSC/DCS strings end at BEL or ST; any other ESC ends them too and starts a new sequence, and
# CAN/SUB cancel them (the VT500 parser), so a lost terminator cannot swallow the rest of the output.
_STRING_END = re.compile(r"\x07|\x1b\\?|\x9c|[\x18\x1a]")


def _narrow_class() -> str:
    """A regex class of the characters below U+3000 that take exactly one cell (by pyte's
    wcwidth) and do not combine: text made only of these is drawn by the one-cell fast path."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x20, 0x3000):
        ch = chr(code)
        if 0x7f <= code <= 0x9f or wcwidth(ch) != 1 or unicodedata.combining(ch):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                   for a, b in ranges)


_NARROW = _narrow_class()
_NARROW_TEXT = re.compile(f"[{_NARROW}]+")
_NARROW_RUNS = re.compile(f"[{_NARROW}]+|[^{_NARROW}]+")
_CSI_CONTROLS = re.compile(r"[\x07-\x0d]")


class TermScreen(pyte.Screen):
    """A pyte Screen fed bytes directly (no pyte Stream): same cells as stock pyte for ordinary
    output, much faster, with history, alternate screen, replies, title, cwd and bell.

    `buffer` is a `Lines` list of `Line` dicts; `history` holds the rows scrolled off the top
    of the main screen (oldest first), at most `scrollback` of them.
    """

    def __init__(
        self,
        columns: int,
        lines: int,
        *,
        scrollback: int = 10000,
        write_process_input: Callable[[str], None] | None = None,
    ) -> None:
        self.history: deque[Line | FrozenLine] = deque(maxlen=max(0, scrollback))
        self.history_pushed = 0  # rows ever pushed into history (to keep a scrolled view still)
        self._compacted_mark = 0  # history_pushed when compact_history last caught up
        self.cwd: str | None = None
        self.attention = False
        self.bell_count = 0
        self._reply = write_process_input
        self._glyphs: dict[Cell, _Glyphs] = {}
        self._sgr_fast: dict[tuple[int, str], tuple[Cell, Cell, Callable[[str], Cell]]] = {}
        self._attrs: dict[Cell, Cell] = {}
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = ""
        self._discarding_string = False
        self._main: tuple[Lines, Cursor] | None = None  # the main screen while the alternate one shows
        self._last_text = " "
        super().__init__(columns, lines)
        self._csi_handlers: dict[str, Callable[..., None]] = {
            "@": self.insert_characters,
            "A": self.cursor_up,
            "B": self.cursor_down,
            "C": self.cursor_forward,
            "D": self.cursor_back,
            "E": self.cursor_down1,
            "F": self.cursor_up1,
            "G": self.cursor_to_column,
            "H": self.cursor_position,
            "I": self._forward_tabs,
            "J": self.erase_in_display,
            "K": self.erase_in_line,
            "L": self.insert_lines,
            "M": self.delete_lines,
            "P": self.delete_characters,
            "S": self.scroll_up,
            "T": self.scroll_down,
            "X": self.erase_characters,
            "Z": self._back_tabs,
            "`": self.cursor_to_column,
            "a": self.cursor_forward,
            "b": self._repeat_last,
            "c": self.report_device_attributes,
            "d": self.cursor_to_line,
            "e": self.cursor_down,
            "f": self.cursor_position,
            "g": self.clear_tab_stop,
            "h": self.set_mode,
            "l": self.reset_mode,
            "n": self.report_device_status,
            "r": self.set_margins,
            "s": self._save_cursor_plain,
            "u": self._restore_cursor_plain,
        }

    # -- data model -------------------------------------------------------------------------
    @property
    def default_char(self) -> Cell:  # type: ignore[override]
        return _BLANK_REVERSE if mo.DECSCNM in self.mode else _BLANK

    def _blank(self) -> Line:
        line = Line()
        if mo.DECSCNM in self.mode:
            line.default = _BLANK_REVERSE
        return line

    def reset(self) -> None:
        self._main = None
        self.mode = set()  # default_char reads it before pyte sets it
        self.buffer = Lines(self.lines, self._blank)  # type: ignore[assignment]
        super().reset()
        self.cursor = Cursor(0, 0, self.default_char)  # type: ignore[arg-type]
        self._glyphs.clear()

    @property
    def alternate_screen(self) -> bool:
        return self._main is not None

    def has_private_mode(self, mode: int) -> bool:
        return (mode << 5) in self.mode

    @property
    def bracketed_paste(self) -> bool:
        return (MODE_BRACKETED_PASTE << 5) in self.mode

    @property
    def app_cursor(self) -> bool:
        return (MODE_APP_CURSOR << 5) in self.mode

    @property
    def cursor_visible(self) -> bool:
        return not self.cursor.hidden

    @property
    def mouse_tracking(self) -> bool:
        mode = self.mode
        return any((m << 5) in mode for m in (MODE_MOUSE_X10, MODE_MOUSE_NORMAL, MODE_MOUSE_BUTTON,
                                              MODE_MOUSE_ANY))

    @property
    def mouse_sgr(self) -> bool:
        return (MODE_MOUSE_SGR << 5) in self.mode

    # -- feeding ----------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Decode (invalid UTF-8 becomes U+FFFD; a split character waits for the next read) and feed."""
        self.feed_text(self._decoder.decode(data))

    def feed_text(self, text: str) -> None:
        """Parse decoded output; an escape sequence cut at the end waits for the next call."""
        if self._pending:
            text = self._pending + text
            self._pending = ""
        pos = 0
        n = len(text)
        if self._discarding_string:
            end = _STRING_END.search(text)
            if end is None:
                return
            self._discarding_string = False
            pos = end.start() if end.group() == "\x1b" else end.end()
        # The hot loop keeps screen state in locals; anything other than text, CR LF and SGR
        # goes through a method that may change that state, so the locals are re-read after it.
        match = _TOKEN.match
        narrow_text = _NARROW_TEXT.fullmatch
        cols = self.columns
        last_row = self.lines - 1
        glyphs_for = self._glyphs_for
        sgr_fast = self._sgr_fast
        history_append = self.history.append
        attrs_seen: Cell | None = None
        getc: Callable[[str], Cell] = str  # replaced before first use
        pushed = 0
        run = ""
        cursor = self.cursor
        buf = self.buffer
        simple = self._simple_state()
        main = self._main is None
        try:
            while pos < n:
                m = match(text, pos)
                try:
                    if m is None:
                        self._last_text = run or self._last_text
                        pos = self._slow(text, pos)
                        cursor, buf, simple, main = self.cursor, self.buffer, self._simple_state(), \
                            self._main is None
                        if pos < 0:
                            return
                        continue
                    kind = m.lastindex
                    pos = m.end()
                    if kind == 8:
                        self._last_text = run or self._last_text
                        self._csi(m.group(6), m.group(7), m.group(8))
                        cursor, buf, simple, main = self.cursor, self.buffer, self._simple_state(), \
                            self._main is None
                        continue
                    if kind == 4 or kind == 5:
                        params = m.group(4)
                        attrs = cursor.attrs
                        hit = sgr_fast.get((id(attrs), params))
                        if hit is not None and hit[0] is attrs:
                            cursor.attrs = attrs_seen = hit[1]
                            getc = hit[2]
                        else:
                            self._sgr(params)
                        if kind == 4:
                            continue
                        run = m.group(5)
                    elif kind == 3:
                        run = ""
                    else:
                        run = m.group(1)
                    if run:
                        x = cursor.x
                        end = x + len(run)
                        if end <= cols and simple and (run.isascii() or narrow_text(run)):
                            attrs = cursor.attrs
                            if attrs is not attrs_seen:
                                getc = glyphs_for(attrs).__getitem__  # type: ignore[arg-type]
                                attrs_seen = attrs
                            buf[cursor.y].update(zip(range(x, end), map(getc, run), strict=False))
                            cursor.x = end
                        else:
                            self._draw(run)
                        if kind != 2:
                            continue
                    # CR LF, inline for the common case: no margins, no LNM
                    cursor.x = 0
                    if simple:
                        y = cursor.y
                        if y < last_row:
                            cursor.y = y + 1
                            continue
                        if y == last_row:
                            if main:
                                history_append(buf[0])
                                pushed += 1
                            del buf[0]
                            buf.append(Line())
                            continue
                    self.index()
                except Exception:  # a child's bytes must never stop the feed
                    if m is None:
                        pos += 1
                    cursor, buf, simple, main = self.cursor, self.buffer, self._simple_state(), \
                        self._main is None
        finally:
            self.history_pushed += pushed
            if run:
                self._last_text = run

    def _simple_state(self) -> bool:
        """True when text and line feeds need no special care: no margins, insert mode, LNM or
        reverse video (which gives new rows another default)."""
        mode = self.mode
        return (self.margins is None and mo.IRM not in mode and mo.LNM not in mode
                and mo.DECSCNM not in mode)

    def _slow(self, text: str, pos: int) -> int:
        """Controls and escape sequences the token regex does not take. Returns the next position,
        or -1 after keeping an unfinished sequence for the next feed."""
        ch = text[pos]
        n = len(text)
        if ch == "\x1b":
            if pos + 1 >= n:
                return self._keep(text, pos)
            nxt = text[pos + 1]
            if nxt == "[":
                return self._loose_csi(text, pos)
            if nxt in "]PX^_":
                return self._string(text, pos, 2, nxt)
            if nxt in "()*+-./%# ":
                if pos + 2 >= n:
                    return self._keep(text, pos)
                if nxt == "#" and text[pos + 2] == "8":
                    self.alignment_display()
                return pos + 3
            if nxt == "\x1b":
                return pos + 1
            self._escape(nxt)
            return pos + 2
        if ch == "\x9b":
            return self._loose_csi(text, pos)
        if ch == "\x9d":
            return self._string(text, pos, 1, "]")
        if ch in "\x90\x98\x9e\x9f":
            return self._string(text, pos, 1, "P")
        if ch == "\r":
            self.cursor.x = 0
        elif ch == "\n" or ch == "\x0b" or ch == "\x0c":
            self.linefeed()
        elif ch == "\x08":
            self.backspace()
        elif ch == "\t":
            self.tab()
        elif ch == "\x07":
            self.bell()
        return pos + 1

    def _keep(self, text: str, pos: int) -> int:
        rest = text[pos:]
        if len(rest) <= _PENDING_MAX:
            self._pending = rest
        return -1

    def _loose_csi(self, text: str, pos: int) -> int:
        m = _CSI_LOOSE.match(text, pos)
        assert m is not None  # the pattern matches any CSI introducer
        final = m.group(3)
        if final is None:
            return self._keep(text, pos)
        params = m.group(1)
        for control in _CSI_CONTROLS.findall(params):
            self._slow(control, 0)
        if "\x40" <= final <= "\x7e":
            self._csi(_CSI_CONTROLS.sub("", params), m.group(2), final)
            return m.end()
        if final == "\x1b":
            return m.end() - 1  # a new sequence starts: the broken one is dropped
        return m.end()  # CAN, SUB or junk ends the sequence

    def _string(self, text: str, pos: int, intro: int, kind: str) -> int:
        end = _STRING_END.search(text, pos + intro)
        if end is None:
            if len(text) - pos > _STRING_MAX:
                self._discarding_string = True
                return -1
            return self._keep_string(text, pos)
        token = end.group()
        if token == "\x1b" and end.end() == len(text):
            return self._keep_string(text, pos)  # ESC \ may be split across reads
        if kind == "]" and token not in "\x18\x1a":
            self._osc(text[pos + intro:end.start()])
        return end.start() if token == "\x1b" else end.end()

    def _keep_string(self, text: str, pos: int) -> int:
        self._pending = text[pos:]
        return -1

    def _escape(self, ch: str) -> None:
        if ch == "D":
            self.index()
        elif ch == "E":
            self.cursor.x = 0
            self.index()
        elif ch == "M":
            self.reverse_index()
        elif ch == "7":
            self.save_cursor()
        elif ch == "8":
            self.restore_cursor()
        elif ch == "H":
            self.set_tab_stop()
        elif ch == "c":
            self.reset()

    # -- CSI ----------------------------------------------------------------------------------
    def _csi(self, params: str, inter: str, final: str) -> None:
        if inter:
            if inter == "$" and final == "p":
                self._report_mode(params)
            return  # cursor style, soft reset: nothing to draw
        marker = params[:1]
        if marker and marker in "<=>?":
            params = params[1:]
        else:
            marker = ""
            if final == "m":
                self._sgr(params)
                return
        args = _ints(params)
        if args is None:
            return
        if marker == "":
            handler = self._csi_handlers.get(final)
            if handler is not None:
                try:
                    handler(*args)
                except TypeError:  # more parameters than pyte's method takes: xterm ignores the extra
                    if len(args) > 2:
                        try:
                            handler(*args[:2])
                            return
                        except TypeError:
                            pass
                    handler(*args[:1])
        elif marker == "?":
            if final == "h":
                self.set_mode(*args, private=True)
            elif final == "l":
                self.reset_mode(*args, private=True)
            elif final == "J":
                self.erase_in_display(args[0])
            elif final == "K":
                self.erase_in_line(args[0])
            elif final == "n" and args[0] == 6:
                y, x = self._cursor_report()
                self.write_process_input(f"\x1b[?{y};{x}R")
        elif marker == ">":
            if final == "c" and args[0] == 0:
                self.write_process_input(DA_SECONDARY_REPLY)

    def _sgr(self, params: str) -> None:
        cursor = self.cursor
        old = cursor.attrs
        attrs = apply_sgr(old, params, self.default_char)  # type: ignore[arg-type]
        cached = self._attrs.setdefault(attrs, attrs)  # one object per combination
        if len(self._sgr_fast) > 4096:
            self._sgr_fast.clear()
            self._attrs.clear()
        # Keyed by id for speed; the entry holds `old`, so the id cannot be reused while it lives.
        self._sgr_fast[(id(old), params)] = (old, cached, self._glyphs_for(cached).__getitem__)
        cursor.attrs = cached

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        if private:
            return
        self._sgr(";".join(map(str, attrs)))

    # -- drawing ------------------------------------------------------------------------------
    def _glyphs_for(self, attrs: Cell) -> _Glyphs:
        glyphs = self._glyphs.get(attrs)
        if glyphs is None:
            if len(self._glyphs) > 1024:
                self._glyphs.clear()
            glyphs = self._glyphs[attrs] = _Glyphs()
            glyphs.attrs = attrs
        return glyphs

    def draw(self, data: str) -> None:
        """Draw decoded text at the cursor (pyte's event); controls in it are skipped."""
        for run in _TEXT_RUN.findall(data):
            self._draw(run)

    def _draw(self, text: str) -> None:
        if text.isascii():
            self._draw_ascii(text)
        else:
            for run in _NARROW_RUNS.findall(text):
                if run.isascii() or _NARROW_TEXT.fullmatch(run):
                    self._draw_ascii(run)
                else:
                    self._draw_unicode(run)

    def _draw_ascii(self, text: str) -> None:
        """Draw text whose every character takes one cell (ASCII or _NARROW)."""
        mode = self.mode
        if mo.IRM in mode:
            self._draw_unicode(text)
            return
        cursor = self.cursor
        getc = self._glyphs_for(cursor.attrs).__getitem__  # type: ignore[arg-type]
        cols = self.columns
        buf = self.buffer
        n = len(text)
        i = 0
        x = cursor.x
        while i < n:
            if x >= cols:
                if mo.DECAWM in mode:
                    buf[cursor.y].wrapped = True
                    cursor.x = 0
                    self.linefeed()
                    cursor = self.cursor
                    x = 0
                else:
                    buf[cursor.y][cols - 1] = getc(text[-1])
                    cursor.x = cols
                    self._last_text = text
                    return
            k = cols - x
            if k >= n - i:
                k = n - i
                chunk = text[i:] if i else text
            else:
                chunk = text[i:i + k]
            line = buf[cursor.y]
            if k == 1:
                line[x] = getc(chunk)
            else:
                line.update(zip(range(x, x + k), map(getc, chunk), strict=False))
            x += k
            i += k
            cursor.x = x
        self._last_text = text

    def _draw_unicode(self, text: str) -> None:
        mode = self.mode
        cols = self.columns
        for ch in text:
            width = wcwidth(ch)
            cursor = self.cursor
            if width <= 0:
                if width == 0 and unicodedata.combining(ch):
                    self._combine(ch)
                continue
            x = cursor.x
            if x + width > cols:
                if mo.DECAWM in mode:
                    self.buffer[cursor.y].wrapped = True
                    cursor.x = 0
                    self.linefeed()
                    cursor = self.cursor
                    x = 0
                else:
                    x = max(0, cols - width)
            if mo.IRM in mode:
                cursor.x = x
                self.insert_characters(width)
            glyphs = self._glyphs_for(cursor.attrs)  # type: ignore[arg-type]
            line = self.buffer[cursor.y]
            line[x] = glyphs[ch]
            if width == 2 and x + 1 < cols:
                line[x + 1] = glyphs[""]
            cursor.x = min(x + width, cols)
            self._last_text = ch

    def _combine(self, ch: str) -> None:
        cursor = self.cursor
        buf = self.buffer
        if cursor.x:
            line, x = buf[cursor.y], cursor.x - 1
            if x and line[x].data == "":
                x -= 1  # onto the wide character, not its placeholder
        elif cursor.y:
            line, x = buf[cursor.y - 1], self.columns - 1
        else:
            return
        last = line[x]
        line[x] = last._replace(data=unicodedata.normalize("NFC", last.data + ch))

    def _repeat_last(self, count: int | None = None, *_: int) -> None:
        count = min(count or 1, self.columns * self.lines)
        self._draw(self._last_text[-1] * count)

    # -- scrolling ----------------------------------------------------------------------------
    def _push_history(self, lines: list[Line]) -> None:
        if self._main is None and self.history.maxlen:
            self.history.extend(lines)
            self.history_pushed += len(lines)

    def index(self) -> None:
        cursor = self.cursor
        margins = self.margins
        if margins is None:
            top, bottom = 0, self.lines - 1
        else:
            top, bottom = margins
        if cursor.y == bottom:
            buf = self.buffer
            if top == 0 and bottom == self.lines - 1 and self._main is None:
                history = self.history
                if history.maxlen:
                    history.append(buf[0])
                    self.history_pushed += 1
            del buf[top]
            buf.insert(bottom, self._blank())
        else:
            cursor.y = min(cursor.y + 1, bottom)

    def linefeed(self) -> None:
        self.index()
        if mo.LNM in self.mode:
            self.cursor.x = 0

    def reverse_index(self) -> None:
        cursor = self.cursor
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if cursor.y == top:
            buf = self.buffer
            del buf[bottom]
            buf.insert(top, self._blank())
        else:
            cursor.y = max(cursor.y - 1, top)

    def scroll_up(self, count: int | None = None, *_: int) -> None:
        """CSI S: the scrolling region moves up; new blank rows at its bottom."""
        top, bottom = self.margins or Margins(0, self.lines - 1)
        count = min(count or 1, bottom - top + 1)
        buf = self.buffer
        gone = buf[top:top + count]
        if top == 0 and bottom == self.lines - 1:
            self._push_history(gone)
        del buf[top:top + count]
        buf[bottom - count + 1:bottom - count + 1] = [self._blank() for _ in range(count)]

    def scroll_down(self, count: int | None = None, *rest: int) -> None:
        """CSI T: the scrolling region moves down; new blank rows at its top."""
        if rest:
            return  # five parameters: xterm's mouse highlight tracking, not a scroll
        top, bottom = self.margins or Margins(0, self.lines - 1)
        count = min(count or 1, bottom - top + 1)
        buf = self.buffer
        del buf[bottom - count + 1:bottom + 1]
        buf[top:top] = [self._blank() for _ in range(count)]

    def insert_lines(self, count: int | None = None) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        cursor = self.cursor
        if top <= cursor.y <= bottom:
            count = min(count or 1, bottom - cursor.y + 1)
            buf = self.buffer
            del buf[bottom - count + 1:bottom + 1]
            buf[cursor.y:cursor.y] = [self._blank() for _ in range(count)]
            cursor.x = 0

    def delete_lines(self, count: int | None = None) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        cursor = self.cursor
        if top <= cursor.y <= bottom:
            count = min(count or 1, bottom - cursor.y + 1)
            buf = self.buffer
            del buf[cursor.y:cursor.y + count]
            buf[bottom - count + 1:bottom - count + 1] = [self._blank() for _ in range(count)]
            cursor.x = 0

    # -- erasing ------------------------------------------------------------------------------
    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        cursor = self.cursor
        line = self.buffer[cursor.y]
        attrs = cursor.attrs
        cols = self.columns
        if how == 0:
            lo, hi = cursor.x, cols
        elif how == 1:
            lo, hi = 0, min(cursor.x + 1, cols)
        elif how == 2:
            lo, hi = 0, cols
        else:
            return
        if hi == cols and line.wrapped:
            line.wrapped = False  # its end is gone: it no longer runs on into the next row
        if attrs == line.default:
            if lo == 0 and hi >= cols:
                line.clear()
            elif line and (max(line) >= lo if lo else min(line) < hi):  # C-level check first
                for x in [x for x in line if lo <= x < hi]:
                    del line[x]
        else:
            line.update(dict.fromkeys(range(lo, hi), attrs))

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        cursor = self.cursor
        if how == 0:
            rows = range(cursor.y + 1, self.lines)
        elif how == 1:
            rows = range(cursor.y)
        elif how == 2 or how == 3:
            rows = range(self.lines)
            if how == 3:
                self.history.clear()
        else:
            return
        attrs = cursor.attrs
        buf = self.buffer
        for y in rows:
            line = buf[y]
            if line.wrapped:
                line.wrapped = False
            if attrs == line.default:
                line.clear()
            else:
                line.update(dict.fromkeys(line, attrs))
        if how == 0 or how == 1:
            self.erase_in_line(how)

    # -- cursor -------------------------------------------------------------------------------
    def cursor_position(self, line: int | None = None, column: int | None = None) -> None:
        if self.margins is not None and mo.DECOM in self.mode:
            super().cursor_position(line, column)
            return
        cursor = self.cursor
        column = (column or 1) - 1
        line = (line or 1) - 1
        cursor.x = min(max(0, column), self.columns - 1)
        cursor.y = min(max(0, line), self.lines - 1)

    def tab(self) -> None:
        x = self.cursor.x
        cols = self.columns
        stops = [s for s in self.tabstops if x < s < cols]  # stops past a narrowed screen do not count
        self.cursor.x = min(stops) if stops else cols - 1

    def _forward_tabs(self, count: int | None = None) -> None:
        for _ in range(min(count or 1, self.columns)):
            self.tab()

    def _back_tabs(self, count: int | None = None) -> None:
        cursor = self.cursor
        for _ in range(min(count or 1, self.columns)):
            stops = [s for s in self.tabstops if s < cursor.x]
            cursor.x = max(stops) if stops else 0

    def _save_cursor_plain(self, *args: int) -> None:
        if not any(args):  # with parameters `CSI s` is DECSLRM (left/right margins), unsupported
            self.save_cursor()

    def _restore_cursor_plain(self, *args: int) -> None:
        self.restore_cursor()

    # -- modes and the alternate screen -------------------------------------------------------
    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private"):
            modes = tuple(m for m in modes if m != 3)  # DECCOLM: a child does not resize our pane
            if 5 in modes:
                self._sgr_fast.clear()  # SGR 0 means another default under DECSCNM
            for m in modes:
                if m in _ALT_MODES:
                    self._enter_alternate(save_cursor=(m == 1049))
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private"):
            modes = tuple(m for m in modes if m != 3)
            if 5 in modes:
                self._sgr_fast.clear()
            for m in modes:
                if m in _ALT_MODES:
                    self._leave_alternate(restore_cursor=(m == 1049))
        super().reset_mode(*modes, **kwargs)

    def _enter_alternate(self, *, save_cursor: bool) -> None:
        if self._main is not None:
            return
        self._main = (self.buffer, copy.copy(self.cursor))  # type: ignore[arg-type]
        self._main_saves_cursor = save_cursor
        self.buffer = Lines(self.lines, self._blank)  # type: ignore[assignment]

    def _leave_alternate(self, *, restore_cursor: bool) -> None:
        if self._main is None:
            return
        buf, cursor = self._main
        self._main = None
        self.buffer = buf  # type: ignore[assignment]
        for m in _ALT_MODES:
            self.mode.discard(m << 5)
        if restore_cursor or self._main_saves_cursor:
            self.cursor = cursor
            self.cursor.x = min(cursor.x, self.columns)  # == columns: a wrap is pending
            self.cursor.y = min(cursor.y, self.lines - 1)

    # -- resize -------------------------------------------------------------------------------
    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Resize; rows that no longer fit above the cursor go into history, and growing brings
        history back (like tmux). The cursor stays on the same text."""
        lines = max(1, lines or self.lines)
        columns = max(1, columns or self.columns)
        if lines == self.lines and columns == self.columns:
            return
        old_columns = self.columns
        main_buf, main_cursor = self._main if self._main is not None else (self.buffer, self.cursor)
        if columns != old_columns:
            self._reflow(main_buf, main_cursor, lines, columns)  # type: ignore[arg-type]
        else:
            self._resize_rows(main_buf, main_cursor, lines, keep_history=True)  # type: ignore[arg-type]
        if self._main is not None:
            # a full-screen program redraws at its new size: its screen is only cut to fit
            self._resize_rows(self.buffer, self.cursor, lines, keep_history=False)  # type: ignore[arg-type]
            self._fit_columns(self.buffer, self.cursor, columns)  # type: ignore[arg-type]
        if columns > old_columns:
            self.tabstops.update(range(8 * (old_columns // 8 + 1), columns, 8))
        self.lines, self.columns = lines, columns
        self.margins = None
        for save in self.savepoints:
            save.cursor.x = min(save.cursor.x, columns - 1)
            save.cursor.y = min(save.cursor.y, lines - 1)

    def _reflow(self, buf: Lines, cursor: Cursor, rows: int, columns: int) -> None:
        """The main screen at a new width: wrapped text is rewrapped, rows that no longer fit go
        to history, room at the top is filled from history."""
        # The newest history rows are rewrapped with the screen (all of it would cost too much).
        history = self.history
        lead: list[Line] = []
        for _ in range(min(len(history), _REFLOW_HISTORY_MAX)):
            line = history.pop()
            lead.append(line.thaw() if isinstance(line, FrozenLine) else line)
        lead.reverse()
        new_rows, y, x = reflow([*lead, *buf], cursor.y + len(lead), cursor.x, self.columns, columns,
                                self._blank)
        while len(new_rows) > y + 1 and not new_rows[-1] and not new_rows[-1].wrapped:
            new_rows.pop()  # blank rows below the cursor
        if len(new_rows) > rows:
            drop = min(len(new_rows) - rows, y)
            self._push_main_history(new_rows[:drop], returning=len(lead))
            del new_rows[:drop]
            y -= drop
            del new_rows[rows:]
        elif len(new_rows) < rows:
            pull = min(rows - len(new_rows), len(self.history))
            if pull:
                back = [self.history.pop() for _ in range(pull)]
                back.reverse()
                new_rows[0:0] = [line.thaw() if isinstance(line, FrozenLine) else line for line in back]
                y += pull
            new_rows.extend(self._blank() for _ in range(rows - len(new_rows)))
        buf[:] = new_rows
        cursor.y = min(max(y, 0), rows - 1)
        cursor.x = min(x, columns)

    def _push_main_history(self, lines: list[Line], *, returning: int = 0) -> None:
        """`returning` of these rows came out of history for a reflow: not new to a scrolled view."""
        if self.history.maxlen:
            self.history.extend(lines)
            self.history_pushed += max(0, len(lines) - returning)
            self._compacted_mark = min(self._compacted_mark, self.history_pushed - len(lines))

    def _resize_rows(self, buf: Lines, cursor: Cursor, rows: int, *, keep_history: bool) -> None:
        old = len(buf)
        if rows < old:
            drop = max(0, cursor.y + 1 - rows)
            if drop:
                if keep_history and self.history.maxlen:
                    self.history.extend(buf[:drop])
                    self.history_pushed += drop
                del buf[:drop]
                cursor.y -= drop
            del buf[rows:]
        elif rows > old:
            pull = min(rows - old, len(self.history)) if keep_history else 0
            if pull:
                back = [self.history.pop() for _ in range(pull)]
                back.reverse()
                back = [line.thaw() if isinstance(line, FrozenLine) else line for line in back]
                buf[0:0] = back
                cursor.y += pull
            buf.extend(self._blank() for _ in range(rows - len(buf)))
        cursor.y = min(max(cursor.y, 0), rows - 1)

    @staticmethod
    def _fit_columns(buf: Lines, cursor: Cursor, columns: int) -> None:
        for line in buf:
            for x in [x for x in line if x >= columns]:
                del line[x]
        if cursor.x >= columns:
            cursor.x = columns - 1

    # -- replies, title, cwd, bell ------------------------------------------------------------
    def write_process_input(self, data: str) -> None:
        if self._reply is not None:
            self._reply(data)

    def _cursor_report(self) -> tuple[int, int]:
        x = min(self.cursor.x, self.columns - 1) + 1
        y = self.cursor.y + 1
        if mo.DECOM in self.mode and self.margins is not None:
            y -= self.margins.top
        return y, x

    def report_device_attributes(self, mode: int = 0, *args: int, **kwargs: Any) -> None:
        if mode == 0 and not kwargs.get("private"):
            self.write_process_input(DA_PRIMARY_REPLY)

    def report_device_status(self, mode: int = 0, *args: int, **kwargs: Any) -> None:
        if mode == 5:
            self.write_process_input("\x1b[0n")
        elif mode == 6:
            y, x = self._cursor_report()
            self.write_process_input(f"\x1b[{y};{x}R")

    def _report_mode(self, params: str) -> None:
        """DECRQM (CSI ? Ps $ p): 1 set, 2 reset, 0 unknown; programs probe features this way."""
        private = params.startswith("?")
        try:
            number = int(params.lstrip("?") or 0)
        except ValueError:
            return
        if private:
            known = number in _REPORTED_PRIVATE_MODES
            value = (number << 5) in self.mode
        else:
            known = number in (mo.IRM, mo.LNM)
            value = number in self.mode
        state = 0 if not known else 1 if value else 2
        self.write_process_input(f"\x1b[{'?' if private else ''}{number};{state}$y")

    def bell(self, *args: Any) -> None:
        self.attention = True
        self.bell_count += 1

    def set_title(self, param: str) -> None:
        self.title = sanitize(strip_format(param), TITLE_MAX)

    def set_icon_name(self, param: str) -> None:
        self.icon_name = sanitize(strip_format(param), TITLE_MAX)

    def _osc(self, body: str) -> None:
        code, _, rest = body.partition(";")
        if code in ("0", "2"):
            self.set_title(rest)
        if code in ("0", "1"):
            self.set_icon_name(rest)
        elif code == "7":
            cwd = _cwd_from_url(rest)
            if cwd is not None:
                self.cwd = cwd

    def compact_history(self, limit: int) -> int:
        """Turn up to `limit` of the newest not yet compacted history rows into FrozenLines;
        returns how many are still waiting. Meant for idle time, not the feed."""
        history = self.history
        waiting = min(self.history_pushed - self._compacted_mark, len(history))
        count = min(waiting, max(0, limit))
        end = len(history)
        for i in range(end - waiting, end - waiting + count):
            line = history[i]
            if not isinstance(line, FrozenLine):
                history[i] = FrozenLine.of(line)  # type: ignore[call-overload]
        self._compacted_mark = self.history_pushed - (waiting - count)
        return waiting - count

    # -- reading the screen -------------------------------------------------------------------
    @property
    def display(self) -> list[str]:  # type: ignore[override]
        """Rows as text, like pyte's, except that a placeholder left by a half-overwritten wide
        character reads as a space instead of breaking pyte's renderer."""
        rows = []
        for y in range(self.lines):
            line = self.buffer[y]
            chars = []
            skip = False
            for x in range(self.columns):
                if skip:
                    skip = False
                    continue
                ch = line[x].data
                if not ch:
                    chars.append(" ")
                    continue
                chars.append(ch)
                skip = wcwidth(ch[0]) == 2
            rows.append("".join(chars))
        return rows

    def all_lines(self) -> list[Line | FrozenLine]:
        """History (oldest first) then the rows on screen."""
        return [*self.history, *self.buffer]


def _ints(params: str) -> list[int] | None:
    """CSI parameters as pyte reads them: empty means 0, each capped at 9999; None if garbled."""
    if not params:
        return [0]
    if params.isdigit():
        return [min(int(params), 9999)]
    try:
        return [min(int(p.split(":", 1)[0] or 0), 9999) for p in params.split(";")]
    except ValueError:
        return None


def _cwd_from_url(url: str) -> str | None:
    """OSC 7 `file://host/path` -> the percent-decoded path; None for anything else."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme != "file":
        return None
    path = unquote(parts.path)
    if not path.startswith("/") or "\x00" in path:
        return None
    return path
