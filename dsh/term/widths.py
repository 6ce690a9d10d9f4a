"""The one width table: how many cells a character takes and which characters join the cell before.

The emulator (`dsh.term.drawing`), the compact rows (`dsh.term.rows`), the view's cells and cursor
(`dsh.ui.cells`, `dsh.ui.pane_window`) and the writer to the user's terminal all ask here, so a row
has the same cells everywhere. The rules are wcwidth's, joined as tmux and terminals join them: a
zero-width character (a combining mark, VS15/VS16, ZWJ) joins the cell before; after a ZWJ a wide
character joins too (an emoji ZWJ sequence is one cell); two regional indicators are one flag.

Terminals disagree about emoji sequences, so two styles (`configure`): "wide", as most terminals and
tmux 3.4 draw them (a symbol with VS16, ⚠️, takes two cells; a skin-tone modifier joins its emoji),
and "narrow", as tmux before 3.4 draws them (VS16 changes no width, a modifier is a cell of its own,
a regional indicator alone takes one cell). "auto" picks narrow inside such a tmux, else wide.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

from pyte.screens import wcwidth

from dsh.term.cells import is_narrow

__all__ = [
    "VS16",
    "ZWJ",
    "cell_width",
    "clusters",
    "configure",
    "joins",
    "text_width",
    "uncertain",
    "wide_emoji",
]

ZWJ = "\u200d"
VS16 = "\ufe0f"
_RI_FIRST, _RI_LAST = 0x1F1E6, 0x1F1FF  # regional indicators: two make a flag
_MODIFIERS = range(0x1F3FB, 0x1F400)  # emoji skin-tone modifiers

# Symbols VS16 turns from one cell to two (wcwidth's table, as narrow code point ranges).
try:
    from wcwidth.table_vs16 import VS16_NARROW_TO_WIDE

    _VS16_RANGES: tuple[tuple[int, int], ...] = tuple(next(iter(VS16_NARROW_TO_WIDE.values())))
except (ImportError, StopIteration):  # an older wcwidth: the symbols agents print most
    _VS16_RANGES = ((0x2139, 0x2139), (0x2600, 0x27BF), (0x2B05, 0x2B55))

_VS16_WIDENS = frozenset(c for a, b in _VS16_RANGES for c in range(a, b + 1))

_wide = True  # the "wide" style (see the module's docstring)


def wide_emoji() -> bool:
    return _wide


def configure(style: str = "auto", environ: Mapping[str, str] | None = None) -> bool:
    """Choose the style: "wide", "narrow", or "auto" (from `environ`, the process's by default: narrow
    in a tmux older than 3.4, which says so in TERM_PROGRAM and TERM_PROGRAM_VERSION). Returns
    whether it is wide. Call it before any screen is fed: cells already drawn keep their widths."""
    global _wide
    if style == "auto":
        env = os.environ if environ is None else environ
        _wide = not (env.get("TERM_PROGRAM") == "tmux" and _before_3_4(env.get("TERM_PROGRAM_VERSION", "")))
    else:
        _wide = style != "narrow"
    return _wide


def _before_3_4(version: str) -> bool:
    digits = version.replace("next-", "").split(".")
    try:
        major = int(digits[0])
        minor = int("".join(ch for ch in digits[1] if ch.isdigit()) or 0) if len(digits) > 1 else 0
    except ValueError:
        return False  # unknown: assume a current one
    return (major, minor) < (3, 4)


def _is_ri(ch: str) -> bool:
    return _RI_FIRST <= ord(ch) <= _RI_LAST


def char_width(ch: str) -> int:
    """Cells one character takes on its own (-1 for a control, 0 for one that joins)."""
    if not _wide and _RI_FIRST <= ord(ch) <= _RI_LAST:
        return 1
    return wcwidth(ch)


def cell_width(data: str) -> int:
    """Cells a cell's text (a character and what joined it) takes: 1 or 2 (0 for a placeholder)."""
    if not data:
        return 0
    first = data[0]
    if data.isascii() or len(data) == 1:
        return max(1, char_width(first)) if first.isascii() else max(0, char_width(first))
    width = char_width(first)
    if width == 1 and ((_is_ri(first) and _is_ri(data[1])) or (_wide and VS16 in data and ord(first) in _VS16_WIDENS)):
        return 2
    return max(0, width)


def joins(cell: str, ch: str, width: int, after_zwj: bool) -> bool:
    """Whether `ch` (whose own width is `width`) joins the cell whose text is `cell` rather than
    taking cells of its own; `after_zwj`: the last character drawn was a ZWJ."""
    if width == 0:
        return True
    if width < 0 or not cell:
        return False
    if after_zwj:
        return width == 2
    code = ord(ch)
    if _RI_FIRST <= code <= _RI_LAST:
        return len(cell) == 1 and _is_ri(cell)
    return _wide and code in _MODIFIERS and cell_width(cell) == 2


def clusters(text: str) -> Iterator[tuple[int, int, int]]:
    """(start, end, width) of each cell `text` draws from column 0: a character and what joins it.
    A joining character at the very start (nothing to join) is a cluster of width 0."""
    start = 0
    width = -1
    after_zwj = False
    for i, ch in enumerate(text):
        w = char_width(ch)
        if (width > 0 and joins(text[start:i], ch, w, after_zwj)) or (width == 0 and w == 0):
            after_zwj = ch == ZWJ
            continue
        if width >= 0:
            yield start, i, cell_width(text[start:i]) if i - start > 1 else max(0, width)
        start = i
        width = max(0, w)
        after_zwj = ch == ZWJ
    if width >= 0:
        yield start, len(text), cell_width(text[start:]) if len(text) - start > 1 else width


def text_width(text: str) -> int:
    """Cells `text` takes when drawn from column 0 (what joins a character takes none)."""
    if text.isascii() or is_narrow(text):
        return len(text)
    return sum(width for _, _, width in clusters(text))


def uncertain(data: str) -> bool:
    """Whether terminals may draw this cell's text wider or narrower than this table says: emoji
    sequences (VS16, ZWJ, flags, modifiers). The writer places the cursor after such a cell itself."""
    if len(data) < 2 or data.isascii():
        return False
    for ch in data[1:]:
        code = ord(ch)
        if ch == VS16 or ch == ZWJ or _RI_FIRST <= code <= _RI_LAST or code in _MODIFIERS:
            return True
    return False
