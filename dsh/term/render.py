"""Screen rows to styled text fragments (prompt_toolkit style strings) and plain text."""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter

from pyte.screens import wcwidth

from dsh.term.screen import Cell, FrozenLine

# A screen row (column -> Cell) or a compacted history row (cells from column 0).
Row = Mapping[int, Cell] | FrozenLine

__all__ = ["cell_style", "cursor_column", "line_fragments", "line_text"]

# pyte's colour names (including its "brown" for yellow and a typo'd bright magenta) to ANSI names.
_NAMED = {
    "black": "ansiblack",
    "red": "ansired",
    "green": "ansigreen",
    "brown": "ansiyellow",
    "blue": "ansiblue",
    "magenta": "ansimagenta",
    "cyan": "ansicyan",
    "white": "ansigray",
    "brightblack": "ansibrightblack",
    "brightred": "ansibrightred",
    "brightgreen": "ansibrightgreen",
    "brightbrown": "ansibrightyellow",
    "brightblue": "ansibrightblue",
    "brightmagenta": "ansibrightmagenta",
    "bfightmagenta": "ansibrightmagenta",
    "brightcyan": "ansibrightcyan",
    "brightwhite": "ansiwhite",
}
_HEX = frozenset("0123456789abcdefABCDEF")

_styles: dict[tuple, str] = {}
_data = attrgetter("data")


def _colour(name: str) -> str | None:
    if name == "default":
        return None
    named = _NAMED.get(name)
    if named is not None:
        return named
    if len(name) == 6 and set(name) <= _HEX:
        return "#" + name.lower()
    return None


def cell_style(cell: Cell) -> str:
    """The style string for a cell's attributes, e.g. "fg:#ff0000 bg:ansiblue bold underline"."""
    key = tuple(cell[1:])
    style = _styles.get(key)
    if style is None:
        parts = []
        fg = _colour(cell.fg)
        bg = _colour(cell.bg)
        if fg:
            parts.append("fg:" + fg)
        if bg:
            parts.append("bg:" + bg)
        for flag, word in ((cell.bold, "bold"), (getattr(cell, "dim", False), "dim"),
                           (cell.italics, "italic"), (cell.underscore, "underline"),
                           (cell.strikethrough, "strike"), (cell.reverse, "reverse"), (cell.blink, "blink")):
            if flag:
                parts.append(word)
        style = " ".join(parts)
        if len(_styles) > 8192:
            _styles.clear()
        _styles[key] = style
    return style


def _last_column(line: Row, columns: int) -> int:
    """The last column worth drawing: the last written one, within the width; -1 if none."""
    if not line:
        return -1
    if isinstance(line, tuple):
        return min(columns, len(line)) - 1
    return min(columns - 1, max(line))


def _glyphs(line: Row, columns: int) -> list[tuple[str, str]]:
    """(style, character) per drawn character: a wide character's placeholder cell is dropped,
    half of a broken wide character shows as a space, so columns line up."""
    out: list[tuple[str, str]] = []
    last = _last_column(line, columns)
    x = 0
    while x <= last:
        cell = line[x]
        ch = cell.data
        if not ch:
            ch = " "  # a placeholder whose wide character was overwritten
        elif not ch.isascii() and wcwidth(ch[0]) == 2:
            if x + 1 <= last and line[x + 1].data == "":
                out.append((cell_style(cell), ch))
                x += 2
                continue
            ch = " "  # its placeholder was overwritten or cut off
        out.append((cell_style(cell), ch))
        x += 1
    return out


def line_fragments(
    line: Row,
    columns: int,
    *,
    highlight: tuple[int, int] | None = None,
    highlight_style: str = "reverse",
) -> list[tuple[str, str]]:
    """Fragments for one row, merged by style. `highlight` is (character index, length), e.g. a
    search match, drawn with `highlight_style` added."""
    glyphs = _glyphs(line, columns)
    if highlight is not None:
        start, length = highlight
        for i in range(max(0, start), min(len(glyphs), start + length)):
            style, ch = glyphs[i]
            glyphs[i] = ((style + " " + highlight_style).strip(), ch)
    fragments: list[tuple[str, str]] = []
    run: list[str] = []
    current = None
    for style, ch in glyphs:
        if style != current:
            if run:
                fragments.append((current or "", "".join(run)))
            run = [ch]
            current = style
        else:
            run.append(ch)
    if run:
        fragments.append((current or "", "".join(run)))
    return fragments


def cursor_column(line: Mapping[int, Cell], x: int, columns: int) -> int:
    """The character index (as in `line_fragments`) of cell column `x`."""
    index = 0
    col = 0
    while col < x:
        cell = line[col]
        ch = cell.data
        step = 1
        if ch and not ch.isascii() and wcwidth(ch[0]) == 2 and col + 1 < columns and line[col + 1].data == "":
            step = 2
        col += step
        index += 1
    return index if col == x else index - 1


def line_text(line: Row, columns: int) -> str:
    """A row as plain text, without trailing blanks."""
    last = _last_column(line, columns)
    if last < 0:
        return ""
    text = "".join(map(_data, map(line.__getitem__, range(last + 1))))
    if text.isascii() and len(text) == last + 1:  # no wide characters, no placeholders
        return text.rstrip()
    return "".join(ch for _, ch in _glyphs(line, columns)).rstrip()
