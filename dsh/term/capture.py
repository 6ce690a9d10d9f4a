"""A terminal's rows as text, the way tmux's `capture-pane -p` prints them (`-J` joins wrapped lines,
`-e` keeps the colours as SGR), for `dsh capture` and `dsh wait --output`.

As tmux 3.3a does: every row of the screen is a line (blank ones too), a wide character is one
character, trailing blanks are dropped; with `join` a row the terminal wrapped runs on into the next
with nothing between (its last column kept, a wide character's padding excepted).
"""

from __future__ import annotations

from collections.abc import Sequence

from dsh.term.cells import BLANK, Cell, wcwidth
from dsh.term.rows import AnyRow, Raw, row_runs, row_text, row_width
from dsh.term.sgr import palette_index

__all__ = ["capture_text", "cell_sgr"]

_FLAGS = (("bold", "1"), ("dim", "2"), ("italics", "3"), ("blink", "5"), ("reverse", "7"), ("hidden", "8"),
          ("strikethrough", "9"), ("overline", "53"))  # fmt: skip


def _colour(name: str, base: int) -> str | None:
    """SGR parameters for a colour (base 30 foreground, 40 background, 50 underline), None for default."""
    if name == "default":
        return None
    index = palette_index(name)
    if index is not None and index < 16 and base != 50:
        return str(base + index) if index < 8 else str(base + 60 + index - 8)
    if index is not None:
        return f"{base + 8};5;{index}"  # as tmux's capture-pane -e gives an index
    if len(name) == 6:
        try:
            r, g, b = int(name[0:2], 16), int(name[2:4], 16), int(name[4:6], 16)
        except ValueError:
            return None
        return f"{base + 8};2;{r};{g};{b}"
    return None


def cell_sgr(cell: Cell) -> str:
    """The SGR sequence that sets exactly `cell`'s rendition from any other (it starts with a reset)."""
    params = ["0"]
    params += [code for field, code in _FLAGS if getattr(cell, field)]
    if cell.underscore:
        params.append("4" if cell.underline_style in (0, 1) else f"4:{cell.underline_style}")
    for name, base in ((cell.fg, 30), (cell.bg, 40), (cell.underline_colour, 50)):
        colour = _colour(name, base)
        if colour is not None:
            params.append(colour)
    return f"\x1b[{';'.join(params)}m"


def _key(cell: Cell) -> tuple[object, ...]:
    return tuple(cell[1:14])  # the rendition, not the character or its protection


_PLAIN_KEY = _key(BLANK)


def _ansi_text(row: AnyRow, columns: int) -> str:
    out: list[str] = []
    current = _PLAIN_KEY
    for cell, text in row_runs(row, columns):
        key = _key(cell)
        if key != current:
            out.append(cell_sgr(cell) if key != _PLAIN_KEY else "\x1b[0m")
            current = key
        out.append(text)
    line = "".join(out)
    stripped = line.rstrip(" ")
    if current != _PLAIN_KEY:
        return line + "\x1b[0m"  # the blanks of a coloured background are content
    return stripped


def _wrapped(row: AnyRow) -> bool:
    return type(row) is not str and type(row) is not Raw and bool(getattr(row, "wrapped", False))


def _full_text(row: AnyRow, columns: int, next_row: AnyRow | None) -> str:
    """A wrapped row's text to its last column: spaces there were written (the text wrapped), except
    the padding a wide character that did not fit leaves in the last cell."""
    text = "".join(text for _, text in row_runs(row, columns))
    width = row_width(row)
    if width < columns:
        text += " " * (columns - width)
    if next_row is not None and text.endswith(" "):
        first = row_text(next_row, columns)[:1]
        if first and not first.isascii() and wcwidth(first) == 2:
            text = text[:-1]
    return text


def capture_text(rows: Sequence[AnyRow], columns: int, *, join: bool = False, ansi: bool = False) -> str:
    """`rows` (oldest first) as lines ending in newlines."""
    lines: list[str] = []
    pending = ""
    for i, row in enumerate(rows):
        if join and _wrapped(row) and i + 1 < len(rows):
            if ansi:
                pending += _ansi_text(row, columns)
            else:
                pending += _full_text(row, columns, rows[i + 1])
            continue
        text = _ansi_text(row, columns) if ansi else row_text(row, columns)
        lines.append(pending + text)
        pending = ""
    return "".join(line + "\n" for line in lines)
