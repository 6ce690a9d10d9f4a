"""The windows drawn from made-once cells: a pane's terminal (PaneWindow) and the chrome's one-line
windows (LineWindow: the tab bar, the status line, a pane's header).

A frame copies every visible row of every window into prompt_toolkit's screen, a character at a time
(`Window._copy_body`): about a third of a keystroke's frame with two panes of text at 140x40
(bench/frame.py --profile), although a keystroke changes one row at most. Here each row's cells are
made once per distinct row (its style fragments are the key) and copied with one `dict.update`. The
cursor's row of the focused window (and the menu's) still goes through prompt_toolkit's own copy, so
the cursor, the key processor's echo and the menu are placed by its code; lines it would wrap, scroll
sideways, prefix, or align, and a window marking its cursor's line or column or colour columns, are
drawn entirely its way. tests/test_pane_window.py holds the screens (and the maps of where each
character went) to be the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit import utils as pt_utils
from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.containers import WindowAlign
from prompt_toolkit.layout.controls import UIContent
from prompt_toolkit.layout.screen import Char, Screen, WritePosition

from dsh.term.widths import char_width, clusters, text_width
from dsh.ui.window import ViewWindow

# Rows kept (all panes share them: the same fragments make the same cells), cleared when full: what pays
# is the rows on screen, unchanged from one frame to the next (a few hundred). At 2,048 rows of 200
# columns the rows held 4.5 MB (tracemalloc); the characters, one per character and style, 2 MB at most.
ROWS_KEPT = 2048
CHARS_KEPT = 20_000
_EMPTY = Char("", "")
_rows: dict[tuple[int, tuple[Any, ...]], list[Char]] = {}


class _Chars(dict[tuple[str, str], Char]):
    """One Char per (character, style), made when first asked for: a row never seen before (a pane
    that floods makes only those) costs a lookup a character, as prompt_toolkit's own copy does."""

    def __missing__(self, key: tuple[str, str]) -> Char:
        if len(self) >= CHARS_KEPT:
            self.clear()
        text, style = key
        if text == "\xa0":
            # A no-break space is a space (Claude Code puts one after its prompt): prompt_toolkit's
            # Char would mark it (class:nbsp, a yellow underline) as an editor shows one.
            char = Char(" ", style)
        else:
            char = Char(text, style)
        self[key] = char
        return char


_chars = _Chars()


class _Widths(pt_utils._CharSizesCache):
    """prompt_toolkit's widths of strings (a Char's, a fragment's) by dsh's width table, so what it
    draws itself (the prompt line, the picker) and the Chars made here agree with the emulator: its own
    table adds up the characters, and ⚠️, a flag or an emoji sequence came out one or two cells off."""

    def __missing__(self, string: str) -> int:
        result = max(0, char_width(string)) if len(string) == 1 else text_width(string)
        self[string] = result
        if len(string) > self.LONG_STRING_MIN_LEN:  # a few long ones kept, as prompt_toolkit's own
            long_strings = self._long_strings
            long_strings.append(string)
            if len(long_strings) > self.MAX_LONG_STRINGS:
                self.pop(long_strings.popleft(), None)
        return result


def install_widths() -> None:
    """Use dsh's width table for prompt_toolkit's widths in this process (again after
    `dsh.term.widths.configure`: the cache is new)."""
    pt_utils._CHAR_SIZES_CACHE = _Widths()
    _chars.clear()
    _rows.clear()


install_widths()


def row_cells(fragments: StyleAndTextTuples, width: int) -> list[Char] | None:
    """The cells of one unwrapped line, from column 0, by dsh's width table (`dsh.term.widths`: the
    emulator's cells, where prompt_toolkit's copy takes a character at a time and would split an emoji
    sequence or a flag); None for a line with a zero-width escape, which is left to prompt_toolkit."""
    cells: list[Char] = []
    chars = _chars
    x = 0
    for style, text, *_ in fragments:
        if "[ZeroWidthEscape]" in style:
            return None
        if x == len(cells) and text.isascii() and text.isprintable():
            # One cell a character (most of what a pane shows): made in one comprehension, not a
            # cluster at a time through the checks below (a flooding pane makes only new rows).
            if x < width:
                cells += [chars[c, style] for c in (text if x + len(text) <= width else text[: width - x])]
            x += len(text)
            continue
        for start, stop, cells_taken in clusters(text):
            char = chars[text[start:stop], style]
            if stop - start == 1:
                cells_taken = char.width  # (a control character is shown as ^I, two cells)
            if not cells_taken:
                # Nothing before it in this fragment to join: it joins the cell before, two columns
                # back when that one is wide (as prompt_toolkit's copy merges it).
                for back in (2, 1):
                    if back <= x <= len(cells) and cells[x - back].width == back:
                        previous = cells[x - back]
                        cells[x - back] = chars[previous.char + char.char, previous.style]
                        break
                continue
            if x < width:
                if x == len(cells):
                    cells.append(char)
                else:
                    cells[x] = char
                if cells_taken > 1:
                    # The columns a wide character covers are blanked (past the width too, as
                    # prompt_toolkit does).
                    del cells[x + 1 :]
                    cells.extend([_EMPTY] * (cells_taken - 1))
            x += cells_taken
    return cells


def text_key(fragments: StyleAndTextTuples) -> tuple[tuple[str, str], ...]:
    """A line's style and text alone: what its cells and its characters' places depend on, without the
    mouse handlers a tab bar's fragments carry (made anew at each frame)."""
    return tuple((f[0], f[1]) for f in fragments)


def _cached_cells(
    fragments: StyleAndTextTuples, width: int, *, by_text: tuple[tuple[str, str], ...] | None = None
) -> list[Char] | None:
    """The cells of a row, made once per distinct row; keyed by `by_text` (the line's text_key) when given."""
    try:
        key = (width, by_text if by_text is not None else tuple(fragments))
        cells = _rows.get(key)
    except TypeError:  # a fragment that is not hashable: made each time
        return row_cells(fragments, width)
    if cells is None:
        cells = row_cells(fragments, width)
        if cells is None:
            return None
        if len(_rows) >= ROWS_KEPT:
            _rows.clear()
        _rows[key] = cells
    return cells


def character_columns(fragments: StyleAndTextTuples, width: int) -> list[tuple[int, int]]:
    """(character index, column) of each character of an unwrapped line that lands inside `width`, as
    `row_cells` places them (what joins a character at the column after that character's own cells,
    where prompt_toolkit's copy maps a combining mark)."""
    out: list[tuple[int, int]] = []
    index = x = 0
    for style, text, *_ in fragments:
        if text.isascii() and text.isprintable():
            out.extend((index + i, x + i) for i in range(min(len(text), max(0, width - x))))
            index += len(text)
            x += len(text)
            continue
        for start, stop, cells in clusters(text):
            if stop - start == 1:
                cells = _chars[text[start], style].width
            if x < width:
                out.append((index, x))
            if stop - start > 1:
                # what joined it at the column after the character, as prompt_toolkit maps a mark
                after = x + (max(0, char_width(text[start])) if cells else 0)
                if after < width:
                    out.extend((index + i, after) for i in range(1, stop - start))
            index += stop - start
            x += cells
    return out


_maps: dict[tuple[object, ...], dict[tuple[int, int], tuple[int, int]]] = {}


def _character_map(
    fragments: StyleAndTextTuples, key_text: tuple[tuple[str, str], ...], width: int, lineno: int, y: int, x0: int
) -> dict[tuple[int, int], tuple[int, int]]:
    """prompt_toolkit's map of a line's characters to the screen cells they were drawn at, made once per
    line (`key_text`, its text_key) and place (the chrome's lines keep theirs from frame to frame)."""
    key = (width, key_text, lineno, y, x0)
    found = _maps.get(key)
    if found is None:
        if len(_maps) >= ROWS_KEPT:
            _maps.clear()
        found = _maps[key] = {(lineno, index): (y, x0 + x) for index, x in character_columns(fragments, width)}
    return found


def _cursor_map(
    line: StyleAndTextTuples, ui_content: UIContent, width: int, lineno: int, ypos: int, xpos: int
) -> dict[tuple[int, int], tuple[int, int]]:
    """Where each character of the cursor's row was drawn, for prompt_toolkit to place the cursor; a
    cursor past the row's characters is that many columns after them."""
    columns = character_columns(line, width)
    found = {(lineno, index): (ypos + lineno, xpos + x) for index, x in columns}
    cursor = ui_content.cursor_position
    if (lineno, cursor.x) not in found:
        count = sum(len(fragment[1]) for fragment in line)
        end = row_cells(line, width)
        x = len(end) if end is not None else 0
        found[lineno, cursor.x] = (ypos + lineno, xpos + min(width - 1, x + max(0, cursor.x - count)))
    return found


class PaneWindow(ViewWindow):
    """A Window whose plain rows are copied from made-once cells (see the module's docstring)."""

    # Whether the characters of the rows copied from cells are mapped for the window's own mouse handler
    # (prompt_toolkit's rowcol_to_yx): a pane's clicks go through the pane area instead.
    maps_characters = False

    def _copy_body(
        self,
        ui_content: UIContent,
        new_screen: Screen,
        write_position: WritePosition,
        move_x: int,
        width: int,
        vertical_scroll: int = 0,
        horizontal_scroll: int = 0,
        wrap_lines: bool = False,
        highlight_lines: bool = False,
        vertical_scroll_2: int = 0,
        always_hide_cursor: bool = False,
        has_focus: bool = False,
        align: WindowAlign = WindowAlign.LEFT,
        get_line_prefix: Callable[[int, int], Any] | None = None,
    ) -> tuple[dict[int, tuple[int, int]], dict[tuple[int, int], tuple[int, int]]]:
        def theirs(
            content: UIContent, at: WritePosition = write_position, scroll: int = vertical_scroll
        ) -> tuple[dict[int, tuple[int, int]], dict[tuple[int, int], tuple[int, int]]]:
            return super(PaneWindow, self)._copy_body(
                content,
                new_screen,
                at,
                move_x,
                width,
                scroll,
                horizontal_scroll,
                wrap_lines=wrap_lines,
                highlight_lines=highlight_lines,
                vertical_scroll_2=vertical_scroll_2,
                always_hide_cursor=always_hide_cursor,
                has_focus=has_focus,
                align=align,
                get_line_prefix=get_line_prefix,
            )

        if wrap_lines or horizontal_scroll or vertical_scroll_2 or get_line_prefix is not None:
            return theirs(ui_content)
        if align != WindowAlign.LEFT or self._highlights():
            return theirs(ui_content)
        # Rows prompt_toolkit copies itself: where the cursor is, when the window has the focus (it is
        # shown only then), and where the menu is; but a pane's cursor row is copied here too, and its
        # characters mapped here for the cursor (prompt_toolkit's copy splits emoji sequences and flags).
        cursor = ui_content.cursor_position if has_focus else None
        if cursor is not None and not self.maps_characters and ui_content.menu_position is None:
            cursor_line: int | None = cursor.y
            cursor = None
        else:
            cursor_line = None
        own = {point.y for point in (cursor, ui_content.menu_position) if point is not None}
        shown = range(vertical_scroll, min(ui_content.line_count, vertical_scroll + write_position.height))
        cells_by_line: dict[int, list[Char]] = {}
        # A chrome line's text_key, made once for both its cells and its characters' map.
        mapped: dict[int, tuple[StyleAndTextTuples, tuple[tuple[str, str], ...]]] = {}
        for lineno in shown:
            if lineno in own:
                continue
            line = ui_content.get_line(lineno)
            key_text = text_key(line) if self.maps_characters else None
            cells = _cached_cells(line, width, by_text=key_text)
            if cells is None:
                own.add(lineno)
            else:
                cells_by_line[lineno] = cells
                if key_text is not None:
                    mapped[lineno] = (line, key_text)
        get_line = ui_content.get_line
        lone = next(iter(own)) if len(own) == 1 else None
        menu = ui_content.menu_position
        if not own:
            new_screen.height = max(new_screen.height, write_position.ypos + write_position.height)
            result: tuple[dict[int, tuple[int, int]], dict[tuple[int, int], tuple[int, int]]] = (
                {lineno - vertical_scroll: (lineno, 0) for lineno in shown},
                {},
            )
        elif lone is not None and lone in shown and (menu is None or menu.y == lone):
            # prompt_toolkit's copy of the one row it still draws (the cursor's, where the menu is
            # too), without walking the other rows as empty lines (a call each: 3% of a keystroke's
            # frame): its copy is handed a window one row high at that row, and its maps are made
            # the whole window's after.
            row = WritePosition(
                write_position.xpos, write_position.ypos + lone - vertical_scroll, write_position.width, 1
            )
            _, rowcol_to_yx = theirs(
                UIContent(
                    get_line=lambda lineno: get_line(lineno) if lineno == lone else [],
                    line_count=lone + 1,
                    cursor_position=ui_content.cursor_position,
                    menu_position=menu,
                    show_cursor=ui_content.show_cursor,
                ),
                row,
                lone,
            )
            new_screen.height = max(new_screen.height, write_position.ypos + write_position.height)
            result = ({lineno - vertical_scroll: (lineno, 0) for lineno in shown}, rowcol_to_yx)
        else:
            result = theirs(
                UIContent(
                    get_line=lambda lineno: get_line(lineno) if lineno in own else [],
                    line_count=ui_content.line_count,
                    cursor_position=ui_content.cursor_position,
                    menu_position=ui_content.menu_position,
                    show_cursor=ui_content.show_cursor,
                )
            )
        xpos = write_position.xpos + move_x
        ypos = write_position.ypos - vertical_scroll
        buffer = new_screen.data_buffer
        for lineno, cells in cells_by_line.items():
            if cells:
                buffer[ypos + lineno].update(zip(range(xpos, xpos + len(cells)), cells, strict=True))
        for lineno, (line, key_text) in mapped.items():
            result[1].update(_character_map(line, key_text, width, lineno, ypos + lineno, xpos))
        if cursor_line is not None and cursor_line in cells_by_line:
            places = _cursor_map(get_line(cursor_line), ui_content, width, cursor_line, ypos, xpos)
            result[1].update(places)
            # What prompt_toolkit's copy does for the focused window's cursor, when it copies that row.
            y, x = places[cursor_line, ui_content.cursor_position.x]
            new_screen.set_cursor_position(self, Point(x=x, y=y))
            new_screen.show_cursor = False if always_hide_cursor else ui_content.show_cursor
            self._highlight_digraph(new_screen)
            self._show_key_processor_key_buffer(new_screen)
        return result

    def _highlights(self) -> bool:
        """Whether the window marks the cursor's line or column, or colour columns, all down its height."""
        columns = self.colorcolumns() if callable(self.colorcolumns) else self.colorcolumns
        return bool(self.cursorline() or self.cursorcolumn() or columns)


class LineWindow(PaneWindow):
    """A line of the chrome (the tab bar, the status line, a pane's header): copied from made-once cells
    as a pane's rows are, with its characters mapped for its own mouse handler (a tab is clicked).
    Redrawn at every frame though it seldom changes, prompt_toolkit's copy of these lines, a character
    at a time, was a fifth of a keystroke's frame."""

    maps_characters = True


__all__ = ["LineWindow", "PaneWindow", "row_cells"]
