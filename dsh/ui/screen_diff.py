"""The frame's difference from the last one, written to the terminal: prompt_toolkit's screen diff, by rows.

prompt_toolkit compares the new screen with the last cell by cell and writes each changed cell with a
cursor move and a call of its own. Beside a flooding pane nearly every cell of that pane changes at
each frame: the diff was half of such a frame's time, and a key typed meanwhile waited for it (issue
11's echo beside a flood). Here a row equal to the last frame's is passed over whole (dicts compare in
C, and unchanged cells are mostly the very same Char), and a changed row is written from its first
changed cell to its last in one stretch, a write per run of one style. Rewriting the unchanged cells
between leaves the terminal showing what the cell-by-cell diff would: every cell written is the new
screen's. The rest of the contract (cursor, autowrap, attributes reset, erase of shortened rows and
the first frame) is prompt_toolkit's own, kept step for step.

`install()` puts it in prompt_toolkit's place for this process, only over the version whose contract it
was written against.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import prompt_toolkit.renderer as pt_renderer
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.layout.screen import Char, Screen
from prompt_toolkit.output import ColorDepth, Output

from dsh.term.features import NO_FEATURES
from dsh.term.widths import uncertain
from dsh.ui.rendition import Rendition, rendition

# The parameters of prompt_toolkit's diff this one takes the place of (3.0.x).
PARAMETERS = (
    "app",
    "output",
    "screen",
    "current_pos",
    "color_depth",
    "previous_screen",
    "last_style",
    "is_done",
    "full_screen",
    "attrs_for_style_string",
    "style_string_has_style",
    "size",
    "previous_width",
)

_STOCK = pt_renderer._output_screen_diff
_BLANK = Screen().data_buffer[0][0]  # prompt_toolkit's own blank: a transparent space


def install() -> bool:
    """Use the diff by rows for every render of this process; False (prompt_toolkit's is kept) when
    prompt_toolkit's diff is not the one this was written against."""
    if pt_renderer._output_screen_diff is output_screen_diff:
        return True  # every view of the host (each attach, each /resume) asks again
    if tuple(inspect.signature(_STOCK).parameters) != PARAMETERS:
        return False
    pt_renderer._output_screen_diff = output_screen_diff
    return True


def last_column(row: dict[int, Char], has_style: dict[str, bool]) -> int:
    """The last column drawn with something visible: not a space without style (prompt_toolkit leaves
    trailing blanks undrawn, for copy and paste)."""
    for index in sorted(row, reverse=True):
        cell = row[index]
        if cell.char != " " or has_style[cell.style]:
            return index
    return 0


def blank_of(row: dict[int, Char]) -> Char:
    """What a row shows where nothing was written (its defaultdict's default)."""
    factory = getattr(row, "default_factory", None)
    return factory() if factory is not None else _BLANK


CellAt = Callable[[int, Char], Char]  # a row's dict.get: the cell at a column, or the given blank


def first_change(
    new_get: CellAt, old_get: CellAt, blank: Char, old_blank: Char, start: int, stop: int, step: int
) -> int:
    """The first column from `start` towards `stop` whose cell differs (-1: none). Columns are taken
    one by one, not by character widths: a cell under a wide character is compared too, which at worst
    rewrites that character."""
    for column in range(start, stop, step):
        cell = new_get(column, blank)
        old = old_get(column, old_blank)
        if cell is not old and (cell.char != old.char or cell.style != old.style):
            return column
    return -1


def _write_cluster(output: Output, char: str, column: int, cell_width: int, width: int) -> int:
    """Write a cell the user's terminal may draw another width than dsh's table says (an emoji
    sequence), or a character with a mark joined on the last column; returns the column after it.

    The cells it covers are blanked first and the cursor is placed after it by column, so a terminal
    that draws it wider or narrower shifts nothing after it (the rest of the row, a border) and leaves
    nothing stale. On the last column autowrap is on while it is written: with autowrap off a
    terminal (tmux) joins the mark to the cell before the cursor, the one before the last."""
    write_raw = output.write_raw
    if column == width - 1:
        write_raw("\x1b[?7h")
        output.write(char)
        write_raw(f"\x1b[?7l\x1b[{width}G")  # (the wrap it may have left pending is taken back)
        return width
    if cell_width > 1:
        output.write(" " * cell_width)
        write_raw(f"\x1b[{column + 1}G")
    output.write(char)
    write_raw(f"\x1b[{column + cell_width + 1}G")
    return column + cell_width


def output_screen_diff(
    app: Any,
    output: Output,
    screen: Screen,
    current_pos: Point,
    color_depth: ColorDepth,
    previous_screen: Screen | None,
    last_style: str | None,
    is_done: bool,
    full_screen: bool,
    attrs_for_style_string: Any,
    style_string_has_style: Any,
    size: Size,
    previous_width: int,
) -> tuple[Point, str | None]:
    """Write what changed from `previous_screen` to `screen`; return the cursor and the last style."""
    width, height = size.columns, size.rows
    write = output.write
    write_raw = output.write_raw
    set_attributes = output.set_attributes
    attrs = attrs_for_style_string
    features = getattr(output, "features", NO_FEATURES)  # a client's LinkOutput knows its terminal's
    x, y = current_pos.x, current_pos.y

    def drawn(style: str) -> Rendition:
        return rendition(style, attrs[style], color_depth, features)

    last_drawn = drawn(last_style) if last_style else None
    output.hide_cursor()

    def reset_attributes() -> None:
        nonlocal last_style, last_drawn
        output.reset_attributes()
        last_style = last_drawn = None

    def move(to_x: int, to_y: int) -> None:
        # prompt_toolkit's moves, byte for byte: newlines downwards (they may add lines), with the
        # attributes reset first so that a newline paints no background.
        nonlocal x, y
        if to_y > y:
            reset_attributes()
            write("\r\n" * (to_y - y))
            output.cursor_forward(to_x)
            x, y = to_x, to_y
            return
        if to_y < y:
            output.cursor_up(y - to_y)
        if x >= width - 1:
            write("\r")
            output.cursor_forward(to_x)
        elif to_x < x:
            output.cursor_backward(x - to_x)
        elif to_x > x:
            output.cursor_forward(to_x - x)
        x, y = to_x, to_y

    if not previous_screen:
        reset_attributes()
    if not previous_screen or not full_screen:
        output.disable_autowrap()
    if is_done or not previous_screen or previous_width != width:
        move(0, 0)
        reset_attributes()
        output.erase_down()
        previous_screen = Screen()

    current_height = min(screen.height, height)
    row_count = min(max(screen.height, previous_screen.height), height)
    rows, old_rows = screen.data_buffer, previous_screen.data_buffer
    escapes = screen.zero_width_escapes

    for row_y in range(row_count):
        new_row = rows[row_y]
        old_row = old_rows[row_y]
        if new_row == old_row:
            continue  # nothing to write: equal rows have the same cells and the same last column
        # Read without inserting: a cell looked up is not a cell drawn, and rows of the next frame
        # compare equal to this one only if both hold the cells written to them.
        blank = blank_of(new_row)
        old_blank = blank_of(old_row)
        new_get, old_get = new_row.get, old_row.get
        new_last = min(width - 1, last_column(new_row, style_string_has_style))
        old_last = min(width - 1, last_column(old_row, style_string_has_style))

        first = first_change(new_get, old_get, blank, old_blank, 0, new_last + 1, 1)
        if first >= 0:
            last = first_change(new_get, old_get, blank, old_blank, new_last, first - 1, -1)
            # A change under the right half of a wide character is written from the character.
            if first and (new_get(first - 1, blank).width or 1) > 1:
                first -= 1
        if first >= 0:
            move(first, row_y)
            row_escapes = escapes.get(row_y)
            run: list[str] = []
            column = first
            while column <= last:
                cell = new_get(column, blank)
                if row_escapes and column in row_escapes:
                    if run:
                        write("".join(run))
                        run = []
                    write_raw(row_escapes[column])
                style = cell.style
                if style != last_style:
                    if run:
                        write("".join(run))
                        run = []
                    new = drawn(style)
                    if new != last_drawn:
                        set_attributes(new[0], color_depth)
                        if new[1]:
                            write_raw(new[1])  # palette indices, underline styles: ui/rendition.py
                        last_drawn = new
                    last_style = style
                char = cell.char
                if char.isascii() or not (uncertain(char) or (column == width - 1 and len(char) > 1)):
                    run.append(char)
                    column += cell.width or 1
                    continue
                if run:
                    write("".join(run))
                    run = []
                column = _write_cluster(output, char, column, cell.width or 1, width)
            if run:
                write("".join(run))
            x = column

        if new_last < old_last:
            move(new_last + 1, row_y)
            reset_attributes()
            output.erase_end_of_line()

    if current_height > previous_screen.height:
        move(0, current_height - 1)
    if is_done:
        move(0, current_height)
        output.erase_down()
    else:
        cursor = screen.get_cursor_position(app.layout.current_window)
        move(cursor.x, cursor.y)
    if is_done or not full_screen:
        output.enable_autowrap()
    reset_attributes()
    if screen.show_cursor:
        output.show_cursor()
    return Point(x=x, y=y), last_style
