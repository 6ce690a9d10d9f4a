"""What a screen says back to its program (device attributes, cursor and mode reports, colour
queries) and the strings it keeps from it (title, working directory, bell)."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from pyte.graphics import FG_BG_256

from dsh import __version__
from dsh.term import sequences as sq
from dsh.term.sgr import sgr_params
from dsh.text import sanitize, strip_format
from dsh.values import Value

if TYPE_CHECKING:
    from dsh.term.screen import Cursor, TermScreen

__all__ = ["TITLE_MAX", "Palette", "Replies"]

TITLE_MAX = 256
CELL_PIXELS = (16, 8)  # (height, width) of a cell in XTWINOPS' pixel reports
# OSC 52: the selections named (clipboard, primary, select, cut buffers) and the text's base64 (the
# parser drops an OSC longer than its STRING_MAX, 64 KiB); at most this many kept between reads.
_SELECTIONS = re.compile(r"[cpqs0-7]{0,8}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
CLIPBOARD_WRITES = 4


class Palette(Value, fields=("foreground", "background", "ansi")):
    """The colours a pane's cells are drawn with, for answering OSC 4/10/11/12 queries.

    Entries 16-255 are drawn as exact `#rrggbb` (xterm's values), so those answers are exact.
    Entries 0-15 and the default foreground and background are drawn as the user's terminal draws
    them; until the view learns that terminal's colours (set `foreground`, `background` and
    `ansi` from its answers) they are xterm's defaults for a dark background."""

    foreground: str
    background: str
    ansi: list[str]

    def __init__(self, foreground: str = "", background: str = "", ansi: list[str] | None = None) -> None:
        self.foreground = foreground or LEARNED.get("fg", "e5e5e5")
        self.background = background or LEARNED.get("bg", "000000")
        self.ansi = [LEARNED.get(i, c) for i, c in enumerate(FG_BG_256[:16])] if ansi is None else ansi

    def entry(self, index: int) -> str:
        return self.ansi[index] if index < 16 else FG_BG_256[index]


# What the attached client's terminal said its colours are (dsh.term.colour_replies): new panes' too.
LEARNED: dict[str | int, str] = {}


def learn_colours(colours: dict[str | int, str], screens: Iterable[TermScreen]) -> None:
    """The client's terminal's colours ("fg", "bg", 0-15: rrggbb) for these screens and every new one."""
    LEARNED.update(colours)
    for screen in screens:
        palette = screen.palette
        palette.foreground = colours.get("fg", palette.foreground)
        palette.background = colours.get("bg", palette.background)
        palette.ansi = [colours.get(i, c) for i, c in enumerate(palette.ansi)]


def _rgb(hex6: str) -> str:
    """rrggbb as an X colour answer, each byte repeated (rgb:rrrr/gggg/bbbb), as xterm answers."""
    r, g, b = hex6[0:2], hex6[2:4], hex6[4:6]
    return f"rgb:{r}{r}/{g}{g}/{b}{b}"


class ShellMarks:
    """What the shell's integration said (OSC 133): whether it waits at its prompt, the status of the
    last command, and where each prompt started (as rows counted since the terminal began, so they
    stay right as history scrolls)."""

    MAX_PROMPTS = 10_000

    def __init__(self) -> None:
        self.state: str | None = None  # None (never marked), "prompt", "command" (typed), "running"
        self.status: int | None = None  # the last command's exit status
        self.prompt_rows: deque[int] = deque(maxlen=self.MAX_PROMPTS)
        self.count = 0  # marks seen: a change to report

    def mark(self, body: str, row: int) -> None:
        kind, _, rest = body.partition(";")
        if kind == "A":
            self.state = "prompt"
            if not self.prompt_rows or self.prompt_rows[-1] != row:
                self.prompt_rows.append(row)
        elif kind == "B":
            self.state = "command"
        elif kind == "C":
            self.state = "running"
            self.status = None
        elif kind == "D":
            code = rest.split(";", 1)[0]
            self.status = int(code) if code.lstrip("-").isdigit() else self.status
            self.state = None if self.state == "running" else self.state
        else:
            return
        self.count += 1


class Replies:
    """The replying half of TermScreen (see there for the state it uses)."""

    history_pushed: int

    cursor: Cursor
    columns: int
    lines: int
    cursor_shape: int
    margins: tuple[int, int] | None
    modes: set[int]
    private_modes: set[int]
    title: str
    icon_name: str
    cwd: str | None
    shell: ShellMarks
    attention: bool
    bell_count: int
    notices: list[str]
    clipboard_writes: list[tuple[str, str]]
    notice_parts: dict[str, list[str]]
    palette: Palette
    colour_sets: dict[int | str, str]  # OSC 4 (0-255), 10 ("fg") and 11 ("bg") as the program set them: rrggbb
    colours_set: int  # changes each time colour_sets does (the view's recolouring is cached by it)
    conformance_level: int | None  # DECSCL's 1-5 once a program set one (DA and DA2 answer by it)
    title_stack: list[tuple[str | None, str | None]]  # XTWINOPS 22's pushes: (icon name, title), None unpushed
    _reply: Callable[[str], None] | None

    def write_process_input(self, data: str) -> None:
        if self._reply is not None:
            self._reply(data)

    def _cursor_report(self) -> tuple[int, int]:
        x = min(self.cursor.x, self.columns - 1) + 1
        y = self.cursor.y + 1
        if sq.DECOM in self.private_modes and self.margins is not None:
            y = max(1, y - self.margins[0])  # (never a negative row: a program's parser would choke on it)
        return y, x

    def report_device_attributes(self, mode: int = 0, *_: int) -> None:
        if mode == 0:
            level = self.conformance_level
            self.write_process_input(sq.DA_PRIMARY_REPLY if level is None else sq.DA_PRIMARY_AT_LEVEL[level])

    def report_secondary_attributes(self, mode: int = 0, *_: int) -> None:
        if mode == 0:
            level = self.conformance_level
            self.write_process_input(sq.DA_SECONDARY_REPLY if level is None else sq.DA_SECONDARY_AT_LEVEL[level])

    def set_conformance_level(self, level: int = 0, *_: int) -> None:
        """DECSCL (CSI 6n ; Pc " p): a VT100 (61) … VT500 (65) level, with a soft reset as xterm does;
        the 7- or 8-bit controls it names are all read anyway."""
        if 61 <= level <= 65:
            self.conformance_level = level - 60
            self.soft_reset()  # type: ignore[attr-defined]  # TermScreen's, the other half of it

    def report_device_status(self, mode: int = 0, *_: int) -> None:
        if mode == 5:
            self.write_process_input("\x1b[0n")
        elif mode == 6:
            y, x = self._cursor_report()
            self.write_process_input(f"\x1b[{y};{x}R")

    def report_private_status(self, mode: int = 0, *_: int) -> None:
        if mode == 6:
            y, x = self._cursor_report()
            self.write_process_input(f"\x1b[?{y};{x}R")

    def report_mode(self, number: int = 0, *_: int) -> None:
        """DECRQM (CSI Ps $ p): 1 set, 2 reset, 4 permanently reset, 0 unknown; programs probe
        features this way. A VT100 or VT220 (DECSCL 61, 62) has no DECRQM: no answer then."""
        if self._below_vt300():
            return
        if number in sq.PERMANENTLY_RESET_ANSI_MODES:
            state = 4
        else:
            state = 0 if number not in sq.REPORTED_ANSI_MODES else 1 if number in self.modes else 2
        self.write_process_input(f"\x1b[{number};{state}$y")

    def _below_vt300(self) -> bool:
        return self.conformance_level is not None and self.conformance_level < 3

    def report_private_mode(self, number: int = 0, *_: int) -> None:
        if self._below_vt300():
            return
        if number in sq.PERMANENTLY_RESET_PRIVATE_MODES:
            state = 4
        else:
            state = 0 if number not in sq.REPORTED_PRIVATE_MODES else 1 if number in self.private_modes else 2
        self.write_process_input(f"\x1b[?{number};{state}$y")

    # -- reports programs ask for (esctest and vttest, vim, terminal probes) ------------------------
    def set_cursor_shape(self, shape: int = 0, *_: int) -> None:
        """DECSCUSR: 0/1 blinking block, 2 block, 3/4 underline, 5/6 bar (blinking, steady); the view
        gives the focused pane's to the user's terminal."""
        if 0 <= shape <= 6:
            self.cursor_shape = shape

    def report_version(self, which: int = 0, *_: int) -> None:
        """XTVERSION (CSI > q): the terminal's name and version."""
        if which == 0:
            self.write_process_input(f"\x1bP>|dsh({__version__})\x1b\\")

    def window_report(self, op: int = 0, which: int = 0, *_: int) -> None:
        """XTWINOPS size reports: 14 the text area and 16 a cell in pixels (a cell taken as 8x16, the
        pane's pixels unknown), 18 the text area and 19 the screen in characters (both the pane); 20
        and 21 report the icon name and title (kept free of controls, so a title cannot type into
        the shell), 22 and 23 push and pop them (`which`: 0 both, 1 the icon name, 2 the title).

        Moves, resizes and (de)iconifying are a window's: a pane's size is its layout's, and it is
        not the window's to move, so they are not done (as tmux does not)."""
        if op == 20:
            self.write_process_input(f"\x1b]L{self.icon_name}\x1b\\")
        elif op == 21:
            self.write_process_input(f"\x1b]l{self.title}\x1b\\")
        elif op == 22 and which in (0, 1, 2):
            self.title_stack.append((self.icon_name if which != 2 else None, self.title if which != 1 else None))
            del self.title_stack[: -sq.TITLE_STACK_MAX]
        elif op == 23 and which in (0, 1, 2):
            # One stack of pushes, as xterm keeps: a pop takes the newest push whatever it holds (what
            # it names of it is restored); popping both goes on down until each was found.
            wanted = {0: {0, 1}, 1: {0}, 2: {1}}[which]
            while wanted and self.title_stack:
                entry = self.title_stack.pop()
                for field in list(wanted):
                    if entry[field] is not None:
                        setattr(self, ("icon_name", "title")[field], entry[field])
                        wanted.discard(field)
                if which != 0:
                    break
        elif op == 14:
            self.write_process_input(f"\x1b[4;{self.lines * CELL_PIXELS[0]};{self.columns * CELL_PIXELS[1]}t")
        elif op == 16:
            self.write_process_input(f"\x1b[6;{CELL_PIXELS[0]};{CELL_PIXELS[1]}t")
        elif op in (18, 19):
            self.write_process_input(f"\x1b[{op - 10};{self.lines};{self.columns}t")

    def dcs(self, body: str) -> None:
        """A device control string: DECRQSS (DCS $ q Pt ST) for SGR, DECSCUSR, DECSTBM and DECSCA is
        answered (DCS 1 $ r ... ST); any other setting asked for is not known (DCS 0 $ r ST)."""
        if not body.startswith("$q"):
            return
        asked = body[2:]
        attrs = self.cursor.attrs
        if asked == "m":
            setting: str | None = sgr_params(attrs) + "m"
        elif asked == " q":
            setting = f"{self.cursor_shape or 1} q"
        elif asked == "r":
            top, bottom = self.margins if self.margins is not None else (0, self.lines - 1)
            setting = f"{top + 1};{bottom + 1}r"
        elif asked == '"q':
            setting = f'{1 if attrs.protected else 0}"q'
        else:
            setting = None
        self.write_process_input(f"\x1bP1$r{setting}\x1b\\" if setting is not None else "\x1bP0$r\x1b\\")

    def report_checksum(self, ident: int = 0, _page: int = 0, top: int = 0, left: int = 0, *rest: int) -> None:
        """DECRQCRA (CSI Pi ; Pg ; Pt ; Pl ; Pb ; Pr * y): xterm's checksum of a rectangle of the screen
        (the negated 16-bit sum of its characters and some attribute bits), as test suites read a screen."""
        bottom = rest[0] if rest else 0
        right = rest[1] if len(rest) > 1 else 0
        first, last = (
            (self.margins if self.margins is not None else (0, self.lines - 1))
            if sq.DECOM in self.private_modes
            else (0, self.lines - 1)
        )
        y0 = min(first + max(top, 1) - 1, last)
        y1 = min(first + bottom - 1, last) if bottom else last
        x0 = min(max(left, 1) - 1, self.columns - 1)
        x1 = min(right - 1, self.columns - 1) if right else self.columns - 1
        total = 0
        rows = self.buffer  # type: ignore[attr-defined]  # Drawing's, the other half of TermScreen
        for y in range(y0, y1 + 1):
            for cell in rows[y][x0 : x1 + 1]:
                total += sum(map(ord, cell.data)) if cell.data else 0
                if cell.underscore:
                    total += 0x10
                if cell.reverse:
                    total += 0x20
                if cell.blink:
                    total += 0x40
                if cell.bold:
                    total += 0x80
        self.write_process_input(f"\x1bP{ident}!~{-total & 0xFFFF:04X}\x1b\\")

    def bell(self) -> None:
        self.attention = True
        self.bell_count += 1

    def set_title(self, param: str) -> None:
        self.title = sanitize(strip_format(param), TITLE_MAX)

    def set_icon_name(self, param: str) -> None:
        self.icon_name = sanitize(strip_format(param), TITLE_MAX)

    def osc(self, body: str, terminator: str = "\x07") -> None:
        """An operating system command: titles, the working directory (OSC 7), colour queries
        (answered with the same terminator the query used), colour sets and resets (OSC 4/10/11,
        104/110/111: the pane draws in them, `dsh.ui.pane_colours`)."""
        code, _, rest = body.partition(";")
        if code in (sq.OSC_TITLE_AND_ICON, sq.OSC_TITLE):
            self.set_title(rest)
        if code in (sq.OSC_TITLE_AND_ICON, sq.OSC_ICON):
            self.set_icon_name(rest)
        elif code == sq.OSC_CWD:
            cwd = _cwd_from_url(rest)
            if cwd is not None:
                self.cwd = cwd
        elif code in ("9", "777", "99"):
            # A desktop notification (iTerm2's, VTE's, kitty's); dsh's attention takes it from here.
            from dsh.attention.terminal import osc_notice

            text = osc_notice(code, rest, self.notice_parts)
            if text is not None and len(self.notices) < 16:
                self.notices.append(text)
        elif code == sq.OSC_CLIPBOARD:
            self._clipboard(rest)
        elif code == sq.OSC_SEMANTIC_PROMPT:
            self.shell.mark(rest, self.history_pushed + self.cursor.y)
        elif code in (sq.OSC_FOREGROUND, sq.OSC_BACKGROUND, sq.OSC_CURSOR_COLOUR):
            self._colour_queries(int(code), rest.split(";"), terminator)
        elif code == sq.OSC_PALETTE:
            parts = rest.split(";")
            for index, spec in zip(parts[::2], parts[1::2], strict=False):
                if not index.isdigit() or int(index) > 255:
                    continue
                if spec == "?":
                    colour = self.colour_sets.get(int(index)) or self.palette.entry(int(index))
                    self.write_process_input(f"\x1b]4;{int(index)};{_rgb(colour)}{terminator}")
                elif (parsed := parse_colour(spec)) is not None:
                    self._set_colour(int(index), parsed)
        elif code == sq.OSC_PALETTE_RESET:  # all of them, or those named
            named = {int(p) for p in rest.split(";") if p.isdigit()} if rest else None
            for key in [k for k in self.colour_sets if isinstance(k, int) and (named is None or k in named)]:
                self._set_colour(key, None)
        elif code in (sq.OSC_FOREGROUND_RESET, sq.OSC_BACKGROUND_RESET):
            self._set_colour("fg" if code == sq.OSC_FOREGROUND_RESET else "bg", None)

    def _set_colour(self, key: int | str, colour: str | None) -> None:
        """A palette entry (0-255), "fg" or "bg" set to rrggbb, or back to the user's (None)."""
        if colour is None:
            if self.colour_sets.pop(key, None) is None:
                return
        else:
            self.colour_sets[key] = colour
        self.colours_set += 1

    def _clipboard(self, rest: str) -> None:
        """OSC 52 ; selections ; base64: a program's copy, kept for the attached client's terminal
        (`clipboard_writes`). A read (`?`) is refused: a program would read the user's clipboard."""
        selections, sep, data = rest.partition(";")
        if not sep or data == "?" or not _SELECTIONS.fullmatch(selections) or not _BASE64.fullmatch(data):
            return
        if len(self.clipboard_writes) >= CLIPBOARD_WRITES:
            del self.clipboard_writes[0]  # only the newest matter
        self.clipboard_writes.append((selections, data))

    def _colour_queries(self, code: int, specs: list[str], terminator: str) -> None:
        # OSC 10;?;? asks for 10 then 11 (each further parameter is the next colour)
        for offset, spec in enumerate(specs):
            which = code + offset
            if which > int(sq.OSC_CURSOR_COLOUR):
                continue
            if spec != "?":
                parsed = parse_colour(spec)
                if parsed is not None and which != 12:  # (the cursor's colour is the user's terminal's)
                    self._set_colour("bg" if which == 11 else "fg", parsed)
                continue
            colour = self.palette.background if which == 11 else self.palette.foreground
            colour = self.colour_sets.get(_DYNAMIC.get(which, ""), colour)
            self.write_process_input(f"\x1b]{which};{_rgb(colour)}{terminator}")


_DYNAMIC = {10: "fg", 11: "bg"}  # OSC 10/11: their keys in colour_sets
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def parse_colour(spec: str) -> str | None:
    """An X colour spec a program sets, as rrggbb (what xterm keeps: its answers repeat each byte):
    `rgb:r/g/b` with 1-4 hex digits each (scaled), `#rgb`, `#rrggbb`, `#rrrgggbbb`, `#rrrrggggbbbb`
    (the high digits, as X reads them), or an X11 colour name (any case, spaces ignored); None for
    anything else."""
    if spec[:4].lower() == "rgb:":
        parts = spec[4:].split("/")
        if len(parts) != 3 or not all(1 <= len(p) <= 4 and set(p) <= _HEX_DIGITS for p in parts):
            return None
        return "".join(f"{round(int(p, 16) * 255 / (16 ** len(p) - 1)):02x}" for p in parts)
    if spec.startswith("#"):
        digits = spec[1:]
        if len(digits) not in (3, 6, 9, 12) or not set(digits) <= _HEX_DIGITS:
            return None
        n = len(digits) // 3
        return "".join(digits[i * n : i * n + min(n, 2)].ljust(2, "0") for i in range(3)).lower()
    from dsh.term.x11_colours import X11_COLOURS  # (658 names: loaded by the first program that names one)

    return X11_COLOURS.get(spec.replace(" ", "").lower())


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
