"""The pane's window copies rows from made-once cells: the screen it leaves is prompt_toolkit's own (a
ViewWindow's: its Window without the last-line pass, as every window of the view)."""

from __future__ import annotations

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import Layout
from prompt_toolkit.layout.containers import ColorColumn, Window
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition

from dsh.ui import pane_window
from dsh.ui.pane_window import LineWindow, PaneWindow
from dsh.ui.window import ViewWindow

LINES: list[StyleAndTextTuples] = [
    [("fg:ansired bold", "error:"), ("", " it broke")],
    [],
    [("", "wide 漢字 here"), ("reverse", " and 🙂 there")],
    [("", "e\u0301 combined, a\u0300\u0301 twice, 漢\u0301 after a wide one")],
    [("", "\u0301 a combining mark first")],
    [("underline", "x" * 30)],  # longer than the pane: cut
    [("", "x" * 17 + "漢")],  # a wide character on the last column
    [("", "tab\tand \x1b escape")],  # control characters as prompt_toolkit shows them
    [("class:copy.selection", "selected"), ("", "   ")],
    [("", "same row")],
    [("", "same row")],
    [("", "漢字"), ("bold", "abcdefghijklmnopqrstuvwxyz")],  # text after wide ones, cut at the edge
    [("", "ab"), ("", "\u0301 and a mark on the fragment before")],
    [("", "x" * 18), ("bold", "past the edge"), ("", "\u0301")],
]
WIDTH = 18


class _Lines(UIControl):
    def __init__(self, lines: list[StyleAndTextTuples], cursor: Point | None, menu: Point | None) -> None:
        self.lines, self.cursor, self.menu = lines, cursor, menu

    def is_focusable(self) -> bool:
        return True

    def create_content(self, width: int, height: int) -> UIContent:
        return UIContent(
            get_line=lambda i: self.lines[i],
            line_count=len(self.lines),
            cursor_position=self.cursor or Point(0, 0),
            menu_position=self.menu,
            show_cursor=True,
        )


def _draw(
    cls: type[Window], cursor: Point | None, menu: Point | None = None, x: int = 3, height: int = len(LINES)
) -> Screen:
    return _draw_in(cls, cursor, menu, x, height)[0]


def _draw_in(
    cls: type[Window],
    cursor: Point | None,
    menu: Point | None = None,
    x: int = 3,
    height: int = len(LINES),
    **options: object,
) -> tuple[Screen, Window]:
    window = cls(_Lines(LINES, cursor, menu), wrap_lines=False, **options)  # type: ignore[arg-type]
    app: Application[None] = Application(layout=Layout(window))
    screen = Screen()
    with set_app(app):
        window.write_to_screen(screen, MouseHandlers(), WritePosition(x, 2, WIDTH, height), "", False, None)
    return screen, window


def _cells(screen: Screen) -> dict[tuple[int, int], tuple[str, str, int]]:
    return {
        (y, x): (char.char, char.style, char.width) for y, row in screen.data_buffer.items() for x, char in row.items()
    }


@pytest.mark.parametrize("menu", [Point(1, 8), None, "on the cursor's row"])
@pytest.mark.parametrize("cursor", [Point(0, 0), Point(3, 2), Point(5, 3), Point(0, 10), None])
@pytest.mark.parametrize("height", [len(LINES), 4])
def test_the_screen_is_prompt_toolkits_own(cursor: Point | None, menu: Point | str | None, height: int) -> None:
    pane_window._rows.clear()
    at = Point(1, cursor.y if cursor else 0) if isinstance(menu, str) else menu
    for _ in range(2):  # made, then from the cache
        (ours, window), (theirs, their_window) = (
            _draw_in(PaneWindow, cursor, menu=at, height=height),
            _draw_in(ViewWindow, cursor, menu=at, height=height),
        )
        assert _cells(ours) == _cells(theirs)
        assert ours.cursor_positions == {} or list(ours.cursor_positions.values()) == list(
            theirs.cursor_positions.values()
        )
        assert list(ours.menu_positions.values()) == list(theirs.menu_positions.values())
        assert ours.height == theirs.height
        # What the window tells of where it drew is prompt_toolkit's too: every row shown, and the
        # characters of the rows its own copy drew (the cursor's and the menu's; the pane area takes the
        # mouse itself, so the other rows' characters are not mapped).
        info, their_info = window.render_info, their_window.render_info
        assert info is not None and their_info is not None
        assert info.visible_line_to_row_col == their_info.visible_line_to_row_col
        drawn = {point.y for point in (cursor or Point(0, 0), at) if point is not None}
        assert info._rowcol_to_yx == {rc: yx for rc, yx in their_info._rowcol_to_yx.items() if rc[0] in drawn}
        assert info.vertical_scroll == their_info.vertical_scroll
    assert pane_window._rows, "rows were not kept"


@pytest.mark.parametrize("options", [{"cursorline": True}, {"cursorcolumn": True}, {"colorcolumns": [ColorColumn(4)]}])
def test_a_window_that_marks_lines_or_columns_marks_them_as_prompt_toolkit_does(options: dict[str, object]) -> None:
    ours = _draw_in(PaneWindow, Point(2, 3), **options)[0]
    theirs = _draw_in(ViewWindow, Point(2, 3), **options)[0]
    assert _cells(ours) == _cells(theirs)


def test_a_kept_row_lands_wherever_the_pane_is() -> None:
    pane_window._rows.clear()
    _draw(PaneWindow, Point(0, 0), x=0)
    assert _cells(_draw(PaneWindow, Point(0, 0), x=9)) == _cells(_draw(ViewWindow, Point(0, 0), x=9))


def test_a_window_scrolled_to_its_cursor_draws_the_same_rows() -> None:
    # More lines than rows, the cursor near the end: the window scrolls down to it.
    ours, theirs = _draw(PaneWindow, Point(2, 9), height=4), _draw(ViewWindow, Point(2, 9), height=4)
    assert _cells(ours) == _cells(theirs)
    last = "".join(ours.data_buffer[5][x].char for x in range(3, 11))
    assert last == "same row"  # the rows scrolled to, not the first ones


def test_the_row_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    pane_window._rows.clear()
    monkeypatch.setattr(pane_window, "ROWS_KEPT", 3)
    _draw(PaneWindow, Point(0, 0))
    assert len(pane_window._rows) <= 3
    assert _cells(_draw(PaneWindow, Point(0, 0))) == _cells(_draw(ViewWindow, Point(0, 0)))


def _line_screens(fragments: StyleAndTextTuples, *, focused: bool) -> list[tuple[Screen, Window]]:
    """The same FormattedTextControl line drawn by a LineWindow and by prompt_toolkit's own copy."""
    from prompt_toolkit.layout.containers import HSplit
    from prompt_toolkit.layout.controls import FormattedTextControl

    out = []
    for cls in (LineWindow, ViewWindow):
        window = cls(FormattedTextControl(lambda: fragments, focusable=True), height=1)
        other = Window(FormattedTextControl("elsewhere", focusable=True))
        app: Application[None] = Application(
            layout=Layout(HSplit([window, other]), focused_element=window if focused else other)
        )
        screen = Screen()
        with set_app(app):
            window.write_to_screen(screen, MouseHandlers(), WritePosition(4, 7, WIDTH, 1), "", False, None)
        out.append((screen, window))
    return out


@pytest.mark.parametrize("focused", [True, False])
@pytest.mark.parametrize("line", LINES)
def test_a_chrome_line_is_drawn_and_mapped_as_prompt_toolkit_does(line: StyleAndTextTuples, focused: bool) -> None:
    def clicked(event: object) -> None:
        return None

    with_handlers: StyleAndTextTuples = [(style, text, clicked) for style, text, *_ in line]
    for fragments in (line, with_handlers):
        for _ in range(2):  # made, then from the cache
            (ours, window), (theirs, their_window) = _line_screens(fragments, focused=focused)
            assert _cells(ours) == _cells(theirs)
            assert list(ours.cursor_positions.values()) == list(theirs.cursor_positions.values())
            info, their_info = window.render_info, their_window.render_info
            assert info is not None and their_info is not None
            assert info.visible_line_to_row_col == their_info.visible_line_to_row_col
            # A click finds the character under it as in prompt_toolkit's window (a tab in the tab bar).
            assert info._rowcol_to_yx == their_info._rowcol_to_yx
