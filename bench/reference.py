"""Stock pyte as the reference dsh's pane engine is compared with, and the comparison itself.

Two of pyte's behaviours are corrected on purpose in dsh (issue 11), and the comparison allows
for exactly those, nothing else:

- erasing (EL, ED, ECH) fills cells with the current background only, as xterm and tmux do, not
  with every current attribute (pyte draws a reverse or underlined tail after `ESC[7m ESC[K`);
- a combining sequence is kept as the program sent it, not precomposed (pyte stores NFC).
"""

from __future__ import annotations

import unicodedata

import pyte

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


def _key(cell: tuple) -> tuple:
    return (unicodedata.normalize("NFC", cell[0]), *cell[1:FIELDS])


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
