"""A pane's own colours (a program's OSC 4/10/11 sets) applied to the style fragments it is drawn in.

A program may change its terminal's palette entries and default colours (xterm's OSC 4, 10, 11); the
change is that pane's alone, and it is drawn: a cell whose colour is a set palette entry is drawn in
the set colour (as `#rrggbb`, with the palette token that would send the index on taken out), a cell
in the default foreground or background in the set default. The blank past a row's text is the
default background too, so a set background fills each row to the pane's width.

Nothing here runs for a pane that set no colour (the caller tests `colour_sets` first); the styles
made are cached per pane until its sets change.
"""

from __future__ import annotations

from dsh.term.widths import text_width

__all__ = ["PaneColours", "recolour"]

# prompt_toolkit's ANSI colour names (what dsh.ui.cells gives palette entries 0-15) to their index.
_ANSI_INDEX = {
    name: index
    for index, name in enumerate(
        (
            "ansiblack",
            "ansired",
            "ansigreen",
            "ansiyellow",
            "ansiblue",
            "ansimagenta",
            "ansicyan",
            "ansigray",
            "ansibrightblack",
            "ansibrightred",
            "ansibrightgreen",
            "ansibrightyellow",
            "ansibrightblue",
            "ansibrightmagenta",
            "ansibrightcyan",
            "ansiwhite",
        )
    )
}
STYLES_KEPT = 4096


def recolour(style: str, sets: dict[int | str, str]) -> str:
    """`style` (dsh.ui.cells' form) with the palette entries and defaults in `sets` (0-255, "fg",
    "bg": rrggbb) put in."""
    tokens = style.split()
    indexed: dict[str, int] = {}  # "fg"/"bg" -> the 16-255 index a [fi:N]/[bi:N] token names
    for token in tokens:
        if token.startswith(("[fi:", "[bi:")) and token[4:-1].isdigit():
            indexed["fg" if token[1] == "f" else "bg"] = int(token[4:-1])
    out: list[str] = []
    seen: set[str] = set()
    for token in tokens:
        side = token[:2]
        if token[2:3] == ":" and side in ("fg", "bg"):
            seen.add(side)
            value = token[3:]
            index = _ANSI_INDEX.get(value, indexed.get(side) if value.startswith("#") else None)
            colour = sets.get(index) if index is not None else None
            out.append(f"{side}:#{colour}" if colour is not None else token)
        elif token.startswith(("[fi:", "[bi:")):
            side = "fg" if token[1] == "f" else "bg"
            if indexed.get(side) not in sets:
                out.append(token)  # (a set entry is drawn as its colour: no index to send on)
        else:
            out.append(token)
    for side in ("fg", "bg"):
        if side not in seen and side in sets:
            out.insert(0, f"{side}:#{sets[side]}")
    return " ".join(out)


class PaneColours:
    """One pane's recolouring, its styles cached until the screen's sets change (`colours_set`)."""

    def __init__(self) -> None:
        self._version = -1
        self._styles: dict[str, str] = {}
        self._fill = ""

    def fragments(
        self, fragments: list[tuple[str, str]], sets: dict[int | str, str], version: int, columns: int
    ) -> list[tuple[str, str]]:
        """`fragments` recoloured, filled to `columns` cells in a set background."""
        if version != self._version:
            self._version = version
            self._styles.clear()
            self._fill = recolour("", sets) if "bg" in sets else ""
        styles = self._styles
        if len(styles) >= STYLES_KEPT:
            styles.clear()
        out: list[tuple[str, str]] = []
        for style, text in fragments:
            new = styles.get(style)
            if new is None:
                new = styles[style] = recolour(style, sets)
            out.append((new, text))
        if self._fill:
            width = sum(len(text) if text.isascii() else text_width(text) for _, text in fragments)
            if width < columns:
                out.append((self._fill, " " * (columns - width)))
        return out
