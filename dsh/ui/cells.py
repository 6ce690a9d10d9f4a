"""Screen rows to prompt_toolkit style fragments, in the exact colours the cells hold.

Colours: palette entries 0-15 (SGR 30-37, 90-97, and 38;5;0-15) become prompt_toolkit's ANSI
colour names, so the user's own terminal palette draws them; 16-255 and 24-bit colours become
`#rrggbb` (prompt_toolkit maps those to 256 colours at draw time when the output is 8-bit).

What prompt_toolkit's styles cannot hold rides in the style string as tokens in brackets, which its
style parser passes over and dsh's screen diff (`ui/rendition.py`) writes as SGR for a terminal that
draws them: `[fi:196]` / `[bi:196]` a palette index (the `#rrggbb` beside it is xterm's value, for a
terminal of 16 colours or prompt_toolkit's own diff), `[us:3]` an underline style (double, curly,
dotted, dashed; `underline` is there too, what a terminal without them draws), `[uc:196]` or
`[uc:ff0000]` the underline colour, `[ov]` overline.
A double-width or double-height row (DECDWL, DECDHL) is drawn with a space after each character.
"""

from __future__ import annotations

from dsh.term.cells import SINGLE, UNDERLINE_SINGLE, Cell, Row
from dsh.term.rows import AnyRow, row_cells, row_runs
from dsh.term.sgr import colour_rgb, palette_index
from dsh.term.widths import cell_width, text_width

__all__ = ["cell_style", "cursor_column", "line_fragments", "marked"]

# pyte's colour names (its "brown" for yellow and a typo'd bright magenta too) to ANSI names.
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
_STYLES_MAX = 8192
# Compact rows' fragments kept (a few screens of every pane; the rows themselves are the keys, so the
# cache holds them alive until it is cleared when full).
FRAGMENTS_KEPT = 4096
_fragments: dict[tuple[object, int, bool], list[tuple[str, str]]] = {}
_styles: dict[tuple, str] = {}


def _colour(name: str) -> str | None:
    if name == "default":
        return None
    named = _NAMED.get(name)
    if named is not None:
        return named
    if len(name) == 6 and set(name) <= _HEX:
        return "#" + name.lower()
    rgb = colour_rgb(name)  # a palette index, 16-255
    return "#" + rgb if rgb is not None else None


def _indexed(name: str) -> bool:
    """A palette index 16-255 ("196"; a 24-bit "102030" has six digits)."""
    return len(name) < 4 and name.isdigit()


def _extras(cell: Cell) -> list[str]:
    """The bracketed tokens of what prompt_toolkit's styles cannot hold (see the module's docstring)."""
    out = []
    if _indexed(cell.fg):
        out.append(f"[fi:{cell.fg}]")
    if _indexed(cell.bg):
        out.append(f"[bi:{cell.bg}]")
    if cell.underscore:
        if cell.underline_style > UNDERLINE_SINGLE:
            out.append(f"[us:{cell.underline_style}]")
        colour = cell.underline_colour
        if colour != "default":
            index = palette_index(colour)
            if index is not None:
                out.append(f"[uc:{index}]")
            elif len(colour) == 6 and set(colour) <= _HEX:
                out.append(f"[uc:{colour.lower()}]")
    if cell.overline:
        out.append("[ov]")
    return out


def cell_style(cell: Cell, *, reverse_screen: bool = False) -> str:
    """The style string for a cell's rendition, e.g. "fg:#ff0000 bg:ansiblue bold underline".
    `reverse_screen` is DECSCNM: every cell's reverse flag is flipped."""
    key = (cell[1:], reverse_screen)
    style = _styles.get(key)
    if style is None:
        parts = []
        fg = _colour(cell.fg)
        bg = _colour(cell.bg)
        if fg:
            parts.append("fg:" + fg)
        if bg:
            parts.append("bg:" + bg)
        for flag, word in (
            (cell.bold, "bold"),
            (cell.dim, "dim"),
            (cell.italics, "italic"),
            (cell.underscore, "underline"),
            (cell.strikethrough, "strike"),
            (cell.reverse != reverse_screen, "reverse"),
            (cell.blink, "blink"),
            (cell.hidden, "hidden"),
        ):
            if flag:
                parts.append(word)
        if cell.underscore or cell.overline or _indexed(cell.fg) or _indexed(cell.bg):
            parts += _extras(cell)
        style = " ".join(parts)
        if len(_styles) > _STYLES_MAX:
            _styles.clear()
        _styles[key] = style
    return style


def _doubled(fragments: list[tuple[str, str]], columns: int) -> list[tuple[str, str]]:
    """A double-width row: each character followed by a space (the nearest prompt_toolkit can
    draw), cut to the width."""
    out: list[tuple[str, str]] = []
    room = columns
    for style, text in fragments:
        wide = "".join(ch + " " for ch in text)[:room]
        room -= len(wide)
        if wide:
            out.append((style, wide))
        if room <= 0:
            break
    return out


def line_fragments(
    line: AnyRow,
    columns: int,
    *,
    highlight: tuple[int, int] | None = None,
    highlight_style: str = "reverse",
    reverse_screen: bool = False,
) -> list[tuple[str, str]]:
    """Fragments for one row (any row shape), merged by style. `highlight` is (character index,
    length), e.g. a search match, drawn with `highlight_style` added. Under `reverse_screen`
    (DECSCNM) the row is padded to `columns`, so the whole width shows reversed.

    The same list is returned for the same compact row until it leaves the cache: callers must not
    change it."""
    if highlight is None and type(line) is not Row:
        # A compact row (str, Packed, Raw) is never changed in place (the screen replaces it with a
        # Row to write into it), so its fragments are made once, not at each frame that redraws its
        # pane: a key echoed in a pane redrew every other row of it too, a fifth of that frame.
        key = (line, columns, reverse_screen)
        fragments = _fragments.get(key)
        if fragments is None:
            if len(_fragments) >= FRAGMENTS_KEPT:
                _fragments.clear()
            fragments = _fragments[key] = _line_fragments(line, columns, None, highlight_style, reverse_screen)
        return fragments
    return _line_fragments(line, columns, highlight, highlight_style, reverse_screen)


def _line_fragments(
    line: AnyRow, columns: int, highlight: tuple[int, int] | None, highlight_style: str, reverse_screen: bool
) -> list[tuple[str, str]]:
    fragments: list[tuple[str, str]] = []
    for attrs, text in row_runs(line, columns):
        style = cell_style(attrs, reverse_screen=reverse_screen)
        if fragments and fragments[-1][0] == style:  # renditions prompt_toolkit draws alike
            fragments[-1] = (style, fragments[-1][1] + text)
        else:
            fragments.append((style, text))
    if type(line) is Row and line.size != SINGLE:
        fragments = _doubled(fragments, columns)
    if highlight is not None:
        fragments = _highlighted(fragments, highlight, highlight_style)
    if reverse_screen:
        width = sum(_width(text) for _, text in fragments)
        if width < columns:
            fragments.append(("reverse", " " * (columns - width)))
    return fragments


def _width(text: str) -> int:
    return len(text) if text.isascii() else text_width(text)


def _highlighted(fragments: list[tuple[str, str]], highlight: tuple[int, int], style: str) -> list[tuple[str, str]]:
    start, length = highlight
    stop = start + length
    out: list[tuple[str, str]] = []
    index = 0
    for frag_style, text in fragments:
        end = index + len(text)
        if end <= start or index >= stop:
            out.append((frag_style, text))
        else:
            a, b = max(start, index) - index, min(stop, end) - index
            if a:
                out.append((frag_style, text[:a]))
            out.append(((frag_style + " " + style).strip(), text[a:b]))
            if b < len(text):
                out.append((frag_style, text[b:]))
        index = end
    return out


def marked(fragments: list[tuple[str, str]], start: int, stop: int, style: str) -> list[tuple[str, str]]:
    """`fragments` with characters [start, stop) drawn with `style` added; past the end of the text
    the mark goes on over blanks (a selection reaching beyond a line's text shows there too)."""
    if stop <= start:
        return fragments
    out = _highlighted(fragments, (start, stop - start), style)
    length = sum(len(text) for _, text in fragments)
    if stop > length:
        out.append((style, " " * (stop - max(start, length))))
    return out


def cursor_column(line: AnyRow, x: int, columns: int) -> int:
    """The character index (as in `line_fragments`) of cell column `x`: a cell counts as many
    characters as its text holds (a combining mark, VS16, the rest of an emoji sequence)."""
    row = line if type(line) is Row else row_cells(line, columns)
    if row.size != SINGLE:
        return 2 * x
    index = 0
    col = 0
    last = 0
    while col < x:
        ch = row[col].data if col < len(row) else " "
        last = index
        if ch.isascii() or not ch:
            step = 1
            index += 1  # (a placeholder alone draws as a space)
        elif cell_width(ch) == 2 and col + 1 < columns and col + 1 < len(row) and row[col + 1].data == "":
            step = 2
            index += len(ch)
        elif cell_width(ch) == 2:
            step = 1
            index += 1  # half of a broken wide character: drawn as a space
        else:
            step = 1
            index += len(ch)
        col += step
    return index if col == x else last
