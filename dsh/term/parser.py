"""Decoded output to screen calls: text runs in bulk, every control function by its name in a table.

The tables map the mnemonics of `dsh.term.sequences` to screen method names (pyte's `streams.py`
is the model). A control sequence is named by its private marker, intermediates and final byte
(`?h` is DECSET, `"q` DECSCA); one the tables do not name is read and ignored. Text, SGR, a bare
EL and CR LF come as one run (`write`), which is what makes ordinary output cheap.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from dsh.term import sequences as sq

__all__ = ["C0_METHODS", "CSI_METHODS", "ESC_METHODS", "Parser"]

logger = logging.getLogger(__name__)

CSI_METHODS: dict[str, str] = {
    sq.ICH: "insert_characters",
    sq.CUU: "cursor_up",
    sq.CUD: "cursor_down",
    sq.CUF: "cursor_forward",
    sq.CUB: "cursor_back",
    sq.CNL: "cursor_down1",
    sq.CPL: "cursor_up1",
    sq.CHA: "cursor_to_column",
    sq.CUP: "cursor_position",
    sq.CHT: "forward_tabs",
    sq.ED: "erase_in_display",
    sq.EL: "erase_in_line",
    sq.IL: "insert_lines",
    sq.DL: "delete_lines",
    sq.DCH: "delete_characters",
    sq.SU: "scroll_up",
    sq.SD: "scroll_down",
    sq.ECH: "erase_characters",
    sq.CBT: "back_tabs",
    sq.HPA: "cursor_to_column",
    sq.HPR: "cursor_forward",
    sq.REP: "repeat_last",
    sq.DA: "report_device_attributes",
    sq.VPA: "cursor_to_line",
    sq.VPR: "cursor_down",
    sq.HVP: "cursor_position",
    sq.TBC: "clear_tab_stop",
    sq.SM: "set_mode",
    sq.RM: "reset_mode",
    sq.SGR: "select_graphic_rendition",
    sq.DSR: "report_device_status",
    sq.DECSTBM: "set_margins",
    sq.SCOSC: "save_cursor_ansi",
    sq.SCORC: "restore_cursor",
    sq.DECSET: "set_private_mode",
    sq.DECRST: "reset_private_mode",
    sq.DECSED: "selective_erase_in_display",
    sq.DECSEL: "selective_erase_in_line",
    sq.DECDSR: "report_private_status",
    sq.DA2: "report_secondary_attributes",
    sq.DECSTR: "soft_reset",
    sq.DECRQM: "report_mode",
    sq.DECSCL: "set_conformance_level",
    sq.DECRQM_PRIVATE: "report_private_mode",
    sq.DECSCA: "set_protection",
    sq.DECSCUSR: "set_cursor_shape",
    sq.XTVERSION: "report_version",
    sq.XTWINOPS: "window_report",
    sq.DECRQCRA: "report_checksum",
}

ESC_METHODS: dict[str, str] = {
    sq.RIS: "reset",
    sq.IND: "index",
    sq.NEL: "next_line",
    sq.HTS: "set_tab_stop",
    sq.RI: "reverse_index",
    sq.SS2: "single_shift_2",
    sq.SS3: "single_shift_3",
    sq.LS2: "locking_shift_2",
    sq.LS3: "locking_shift_3",
    sq.DECSC: "save_cursor",
    sq.DECRC: "restore_cursor",
    sq.DECKPAM: "keypad_application",
    sq.DECKPNM: "keypad_numeric",
    sq.SPA: "start_protected_area",
    sq.EPA: "end_protected_area",
    sq.DECALN: "alignment_display",
    sq.DECSWL: "single_width_line",
    sq.DECDWL: "double_width_line",
    sq.DECDHL_TOP: "double_height_top",
    sq.DECDHL_BOTTOM: "double_height_bottom",
}

C0_METHODS: dict[str, str] = {
    sq.BEL: "bell",
    sq.BS: "backspace",
    sq.HT: "tab",
    sq.LF: "linefeed",
    sq.VT: "linefeed",
    sq.FF: "linefeed",
    sq.CR: "carriage_return",
    sq.SO: "shift_out",
    sq.SI: "shift_in",
    sq.IND_C1: "index",
    sq.NEL_C1: "next_line",
    sq.HTS_C1: "set_tab_stop",
    sq.RI_C1: "reverse_index",
    sq.SS2_C1: "single_shift_2",
    sq.SS3_C1: "single_shift_3",
}

# Controls that end a run (everything but CR, LF and ESC, which a run may hold in CR LF and SGR).
_RUN_BREAK = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
# The same controls, each to NUL: ASCII text translated by it (a C loop with a table) and searched
# for NUL finds the first of them several times faster than the pattern's character-set search.
_BREAKS_TO_NUL = dict.fromkeys([*range(0x0A), 0x0B, 0x0C, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F], 0)


def _run_end(text: str, pos: int, stop: int) -> int:
    """Where the first control that ends a run lies in text[pos:stop] (`stop` if none does)."""
    piece = text[pos:stop]
    if piece.isascii():
        found = piece.translate(_BREAKS_TO_NUL).find("\0")
        return stop if found < 0 else pos + found
    brk = _RUN_BREAK.search(text, pos, stop)
    return stop if brk is None else brk.start()


# A run the screen draws in one call: text (no C0, DEL or C1), SGR, a bare EL, CR and LF.
_RUN = r"(?P<run>(?:[^\x00-\x1f\x7f-\x9f]++|\x1b\[[0-9;:]*+m|\x1b\[K|\r|\n)++)"
# A full-screen program redrawing a row: CUP to its first column, the row's text and SGR, EL (and
# nothing of the run after it). Possessive, so a near miss costs no backtracking.
_ROW = (
    r"\x1b\[(?P<line_row>[0-9]{1,4});1H(?P<line>(?:[^\x00-\x1f\x7f-\x9f\x1b]++|\x1b\[[0-9;:]*+m)*+"
    r"\x1b\[K(?:\x1b\[[0-9;:]*+m)*+)(?![^\x00-\x1f\x7f-\x9f\x1b]|\x1b\[K|\r|\n)"
)
_CUP = r"\x1b\[(?P<row>[0-9]{1,4});(?P<column>[0-9]{1,4})H"  # the most common CSI, taken directly
_CSI = r"(?:\x1b\[|\x9b)(?P<params>[\x30-\x3f]*)(?P<inter>[\x20-\x2f]*)(?P<final>[\x40-\x7e])"
_TOKEN = re.compile(f"{_RUN}|{_ROW}|{_CUP}|{_CSI}")
# The row after a redrawn row, if it is one too (where _TOKEN would find it: its _RUN never matches
# at a CUP), so a frame's rows reach the screen together.
_NEXT_ROW = re.compile(_ROW)
# A CSI that did not match cleanly: controls inside it, an unfinished one, or a bad final byte.
_CSI_LOOSE = re.compile(r"(?:\x1b\[|\x9b)([\x07-\x0d\x30-\x3f]*)([\x20-\x2f]*)(.)?", re.S)
_CSI_CONTROLS = re.compile(r"[\x07-\x0d]")
# ESC, intermediates, final: ESC ( 0, ESC # 8, ESC 7.
_ESC = re.compile(r"\x1b([\x20-\x2f]*)([\x30-\x7e])")
# OSC/DCS strings end at BEL or ST; any other ESC ends them too and starts a new sequence, and
# CAN/SUB cancel them (the VT500 parser), so a lost terminator cannot swallow the rest of the output.
_STRING_END = re.compile(r"\x07|\x1b\\?|\x9c|[\x18\x1a]")
_STRING_STARTS = {
    "]": "]",
    "P": "P",
    "X": "X",
    "^": "^",
    "_": "_",
    sq.OSC_C1: "]",
    sq.DCS_C1: "P",
    sq.SOS_C1: "X",
    sq.PM_C1: "^",
    sq.APC_C1: "_",
}
# An unterminated OSC/DCS longer than this is dropped rather than buffered forever.
STRING_MAX = 65536
# An escape sequence still unfinished after this many characters is garbage, not a split read.
PENDING_MAX = 4096
PARAM_MAX = 9999


def csi_params(params: str) -> list[int] | None:
    """CSI parameters as numbers: empty means 0, each capped at 9999, sub-parameters after `:`
    dropped; None if garbled."""
    if not params:
        return [0]
    if params.isdigit():
        return [int(params) if len(params) < 5 else min(int(params), PARAM_MAX)]
    try:
        if ":" in params:
            values = [int(p.split(":", 1)[0] or 0) for p in params.split(";")]
        else:
            values = [int(p or 0) for p in params.split(";")]
    except ValueError:
        return None
    return values if max(values) <= PARAM_MAX else [min(v, PARAM_MAX) for v in values]


class Parser:
    """Feeds decoded text to `screen`: keeps an escape sequence split across reads for the next
    call, and never lets a child's bytes stop the feed."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self.csi: dict[str, Callable[..., None]] = {k: getattr(screen, v) for k, v in CSI_METHODS.items()}
        self.esc: dict[str, Callable[[], None]] = {k: getattr(screen, v) for k, v in ESC_METHODS.items()}
        self.c0: dict[str, Callable[[], None]] = {k: getattr(screen, v) for k, v in C0_METHODS.items()}
        self._pending = ""
        self._discarding_string = False

    def reset(self) -> None:
        self._pending = ""
        self._discarding_string = False

    def feed(self, text: str) -> None:
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
        match = _TOKEN.match
        screen = self.screen
        write = screen.write
        cup = self.csi[sq.CUP]
        redraw_rows = screen.redraw_rows
        next_row = _NEXT_ROW.match
        csi = self.csi
        while pos < n:
            if text[pos] != "\x1b":
                # Plain lines (no control but CR and LF up to the next escape or control) are found
                # with C-level string searches, not the token pattern, which works line by line.
                stop = text.find("\x1b", pos)
                if stop < 0:
                    stop = n
                stop = _run_end(text, pos, stop)
                if stop > pos:
                    try:
                        write(text[pos:stop])
                    except Exception:  # a child's bytes must never stop the feed
                        logger.debug("text at %d failed", pos, exc_info=True)
                    pos = stop
                    continue
            m = match(text, pos)
            try:
                if m is None:
                    pos = self._control(text, pos)
                    if pos < 0:
                        return
                    continue
                pos = m.end()
                kind = m.lastgroup
                if kind == "run":
                    write(m.group("run"))
                    continue
                if kind == "line":
                    rows = [m.group("line_row", "line")]
                    m = next_row(text, pos)
                    while m is not None:
                        rows.append(m.groups())
                        pos = m.end()
                        m = next_row(text, pos)
                    redraw_rows(rows)
                    continue
                if kind == "column":
                    cup(int(m.group("row")), int(m.group("column")))
                else:
                    self._csi(m.group("params"), m.group("inter"), m.group("final"), csi)
                screen.last_char = ""  # REP and ZWJ reach over no control
                screen._join = False
            except Exception:  # a child's bytes must never stop the feed
                logger.debug("sequence at %d failed", pos, exc_info=True)
                if m is None:
                    pos += 1

    def _csi(self, params: str, inter: str, final: str, table: dict[str, Callable[..., None]]) -> None:
        marker = params[:1]
        if marker and marker in "<=>?":
            params = params[1:]
        else:
            marker = ""
        handler = table.get(marker + inter + final)
        if handler is None:
            return
        if final == "m" and not marker and not inter:
            handler(params)  # SGR keeps its sub-parameters
            return
        args = csi_params(params)
        if args is None:
            return
        try:
            handler(*args)
        except TypeError:  # more parameters than the method takes: xterm ignores the extra
            handler(*args[:2]) if len(args) > 2 else handler(*args[:1])

    # -- everything but runs and clean CSIs -----------------------------------------------------
    def _control(self, text: str, pos: int) -> int:
        """One control character or escape sequence at `pos`. Returns the next position, or -1
        after keeping an unfinished sequence for the next feed."""
        ch = text[pos]
        if ch == sq.ESC:
            if pos + 1 >= len(text):
                return self._keep(text, pos)
            nxt = text[pos + 1]
            if nxt == "[":
                return self._loose_csi(text, pos)
            if nxt in _STRING_STARTS:
                return self._string(text, pos, 2, _STRING_STARTS[nxt])
            if nxt == sq.ESC:
                return pos + 1
            m = _ESC.match(text, pos)
            if m is None:
                if pos + 2 >= len(text) or "\x20" <= nxt <= "\x2f":
                    return self._keep(text, pos)  # ESC ( with the charset still to come
                return pos + 2  # ESC followed by a control: dropped
            self._done()
            self._escape(m.group(1), m.group(2))
            return m.end()
        if ch == sq.CSI_C1:
            return self._loose_csi(text, pos)
        if ch in _STRING_STARTS:
            return self._string(text, pos, 1, _STRING_STARTS[ch])
        self._done()
        handler = self.c0.get(ch)
        if handler is not None:
            handler()
        return pos + 1

    def _done(self) -> None:
        """A control function ran: REP and ZWJ reach over none."""
        self.screen.last_char = ""
        self.screen._join = False

    def _escape(self, inter: str, final: str) -> None:
        screen = self.screen
        if inter:
            slot = sq.DESIGNATE.get(inter[0])
            if slot is not None:
                screen.designate_charset(slot, inter[1:] + final)
                return
            handler = self.esc.get(inter + final)
        else:
            handler = self.esc.get(final)
        if handler is not None:
            handler()

    def _keep(self, text: str, pos: int) -> int:
        rest = text[pos:]
        if len(rest) <= PENDING_MAX:
            self._pending = rest
        return -1

    def _loose_csi(self, text: str, pos: int) -> int:
        m = _CSI_LOOSE.match(text, pos)
        assert m is not None  # the pattern matches any CSI introducer
        final = m.group(3)
        if final is None:
            return self._keep(text, pos)
        params = m.group(1)
        self._done()
        for control in _CSI_CONTROLS.findall(params):
            self._control(control, 0)  # controls inside a CSI are executed (the VT500 parser)
        if "\x40" <= final <= "\x7e":
            self._csi(_CSI_CONTROLS.sub("", params), m.group(2), final, self.csi)
            return m.end()
        if final == sq.ESC:
            return m.end() - 1  # a new sequence starts: the broken one is dropped
        return m.end()  # CAN, SUB or junk ends the sequence

    def _string(self, text: str, pos: int, intro: int, kind: str) -> int:
        end = _STRING_END.search(text, pos + intro)
        if end is None:
            if len(text) - pos > STRING_MAX:
                self._discarding_string = True
                return -1
            self._pending = text[pos:]
            return -1
        token = end.group()
        if token == sq.ESC and end.end() == len(text):
            self._pending = text[pos:]  # ESC \ may be split across reads
            return -1
        self._done()
        if kind == "]" and token not in (sq.CAN, sq.SUB):
            self.screen.osc(text[pos + intro : end.start()], "\x07" if token == sq.BEL else "\x1b\\")
        elif kind == "P" and token not in (sq.CAN, sq.SUB):
            self.screen.dcs(text[pos + intro : end.start()])
        return end.start() if token == sq.ESC else end.end()
