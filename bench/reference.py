"""Stock pyte as the reference dsh's pane engine is compared with, and the comparison itself.

Two of pyte's behaviours are corrected on purpose in dsh (issue 11), and the comparison allows
for exactly those, nothing else:

- erasing (EL, ED, ECH) fills cells with the current background only, as xterm and tmux do, not
  with every current attribute (pyte draws a reverse or underlined tail after `ESC[7m ESC[K`);
- a combining sequence is kept as the program sent it, not precomposed (pyte stores NFC);
- a palette index 16-255 is kept as the index ("196"), not as xterm's RGB for it (pyte's "ff0000"):
  compared, it is read as that RGB (issue 23: the user's terminal has a palette of its own).
"""

from __future__ import annotations

import unicodedata

import pyte

from dsh.term.sgr import colour_rgb

__all__ = ["FIELDS", "ReferenceScreen", "differences"]

FIELDS = len(pyte.screens.Char._fields)


class ReferenceScreen(pyte.Screen):
    """pyte.Screen, whose erasing keeps only the current background."""

    def _erase_attrs(self) -> pyte.screens.Char:
        return pyte.screens.Char(" ", bg=self.cursor.attrs.bg)

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        attrs = self.cursor.attrs
        self.cursor.attrs = self._erase_attrs()
        try:
            super().erase_in_line(how, private)
        finally:
            self.cursor.attrs = attrs

    def erase_in_display(self, how: int = 0, *args: object, **kwargs: object) -> None:
        attrs = self.cursor.attrs
        self.cursor.attrs = self._erase_attrs()
        try:
            super().erase_in_display(how, *args, **kwargs)
        finally:
            self.cursor.attrs = attrs

    def erase_characters(self, count: int | None = None) -> None:
        attrs = self.cursor.attrs
        self.cursor.attrs = self._erase_attrs()
        try:
            super().erase_characters(count)
        finally:
            self.cursor.attrs = attrs


def _rgb(name: str) -> str:
    return colour_rgb(name) or name if len(name) < 4 and name.isdigit() else name


def _key(cell: tuple) -> tuple:
    return (unicodedata.normalize("NFC", cell[0]), _rgb(cell[1]), _rgb(cell[2]), *cell[3:FIELDS])


def differences(ref: pyte.Screen, mine: object, rows: int, cols: int) -> list[tuple[int, int, tuple, tuple]]:
    """(row, column, reference cell, dsh cell) wherever the two screens' cells differ in pyte's
    fields (combining sequences compared in NFC)."""
    buffer = mine.buffer  # type: ignore[attr-defined]
    out = []
    for y in range(rows):
        for x in range(cols):
            a, b = _key(tuple(ref.buffer[y][x])), _key(tuple(buffer[y][x]))
            if a != b:
                out.append((y, x, a, b))
    return out
