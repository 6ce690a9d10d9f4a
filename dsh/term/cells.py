"""Cells and screen rows: pyte's cell fields plus the renditions pyte lacks, shared glyph tables, widths."""

from __future__ import annotations

import re
from typing import NamedTuple

from pyte.screens import wcwidth

from dsh.term.narrow import as_class, narrow_ranges

__all__ = [
    "BLANK",
    "DOUBLE_BOTTOM",
    "DOUBLE_TOP",
    "DOUBLE_WIDTH",
    "NARROW_TEXT",
    "SINGLE",
    "UNDERLINE_CURLY",
    "UNDERLINE_DASHED",
    "UNDERLINE_DOTTED",
    "UNDERLINE_DOUBLE",
    "UNDERLINE_SINGLE",
    "ZWJ",
    "Cell",
    "Glyphs",
    "Row",
    "blank_for",
    "glyphs_for",
    "is_narrow",
    "wcwidth",
]

UNDERLINE_SINGLE = 1
UNDERLINE_DOUBLE = 2
UNDERLINE_CURLY = 3
UNDERLINE_DOTTED = 4
UNDERLINE_DASHED = 5

# Line sizes (DECSWL, DECDWL, DECDHL): a double-width row holds half as many characters.
SINGLE = 0
DOUBLE_WIDTH = 1
DOUBLE_TOP = 2
DOUBLE_BOTTOM = 3

ZWJ = "\u200d"


class Cell(NamedTuple):
    """One screen cell. The first nine fields are pyte's Char, in pyte's order, with pyte's values
    (colours are pyte's names for palette entries 0-15, `rrggbb` for 24-bit ones, and unlike pyte,
    the index in decimal for entries 16-255, "196": see sgr.PALETTE_NAMES); the rest are what pyte
    does not keep."""

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
    hidden: bool = False
    overline: bool = False
    underline_style: int = 0  # UNDERLINE_* while underscore is set, else 0
    underline_colour: str = "default"
    protected: bool = False  # DECSCA: selective erase leaves it


BLANK = Cell(" ")


class Row(list):
    """One screen row: exactly `columns` cells (a list, so drawing a run is one slice assignment).

    `wrapped`: the terminal wrapped this row's text onto the next. `size`: DECDWL/DECDHL."""

    wrapped = False
    size = SINGLE


class Glyphs(dict):
    """Cells of one rendition, by character, each made once."""

    __slots__ = ("attrs",)
    attrs: Cell  # the rendition, as a cell whose data is a space (set by glyphs_for)

    def __missing__(self, ch: str) -> Cell:
        cell = self[ch] = self.attrs._replace(data=ch)
        return cell


_glyphs: dict[Cell, Glyphs] = {}
_blanks: dict[str, Cell] = {}
_GLYPHS_MAX = 2048


def glyphs_for(attrs: Cell) -> Glyphs:
    """The shared glyph table of a rendition (`attrs` is a cell whose data is a space)."""
    glyphs = _glyphs.get(attrs)
    if glyphs is None:
        if len(_glyphs) > _GLYPHS_MAX:
            _glyphs.clear()
        glyphs = _glyphs[attrs] = Glyphs()
        glyphs.attrs = attrs
        glyphs[" "] = attrs
        if attrs == BLANK:
            glyphs[" "] = BLANK  # so a blank cell is BLANK itself (trailing blanks are found by identity)
    return glyphs


def blank_for(attrs: Cell) -> Cell:
    """What erasing leaves under rendition `attrs`: a blank with its background only (as xterm and
    tmux do), never its underline, reverse or foreground."""
    bg = attrs.bg
    if bg == "default":
        return BLANK
    blank = _blanks.get(bg)
    if blank is None:
        blank = _blanks[bg] = Cell(" ", bg=bg)
    return blank


class FirstUsePattern:
    """A regex compiled when it is first used: each of the two below took 4-7 ms to compile, in every
    host's start, for text beyond ASCII that a new session's first frame does not have. After the
    first call its methods are the compiled pattern's own (instance attributes shadow these)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def _compile(self) -> re.Pattern[str]:
        pattern = re.compile(self.source)
        # The compiled pattern's own methods take these methods' places (an overloaded method each).
        self.fullmatch = pattern.fullmatch  # type: ignore[method-assign, assignment]
        self.findall = pattern.findall  # type: ignore[method-assign, assignment]
        return pattern

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self._compile().fullmatch(text)

    def findall(self, text: str) -> list[str]:
        return self._compile().findall(text)


# A regex class of the characters below U+3000 that take exactly one cell and do not combine: text
# made only of these has one cell per character.
NARROW = as_class(narrow_ranges())
NARROW_TEXT = FirstUsePattern(f"[{NARROW}]+")
NARROW_RUNS = FirstUsePattern(f"[{NARROW}]+|[^{NARROW}]+")


def is_narrow(text: str) -> bool:
    """True when every character of `text` takes exactly one cell (so cells and characters match)."""
    return text.isascii() or NARROW_TEXT.fullmatch(text) is not None
