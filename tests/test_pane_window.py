"""The pane's window copies rows from made-once cells: the screen it leaves is prompt_toolkit's own (a
ViewWindow's: its Window without the last-line pass, as every window of the view)."""

from __future__ import annotations

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import Layout
from prompt_toolkit.layout.containers import Window
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition

from dsh.ui import pane_window
from dsh.ui.pane_window import PaneWindow
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
    window = cls(_Lines(LINES, cursor, menu), wrap_lines=False)
    app: Application[None] = Application(layout=Layout(window))
    screen = Screen()
    with set_app(app):
        window.write_to_screen(screen, MouseHandlers(), WritePosition(x, 2, WIDTH, height), "", False, None)
    return screen


def _cells(screen: Screen) -> dict[tuple[int, int], tuple[str, str, int]]:
    return {
        (y, x): (char.char, char.style, char.width) for y, row in screen.data_buffer.items() for x, char in row.items()
    }


@pytest.mark.parametrize("cursor", [Point(0, 0), Point(3, 2), Point(5, 3), Point(0, 10), None])
def test_the_screen_is_prompt_toolkits_own(cursor: Point | None) -> None:
    pane_window._rows.clear()
    for _ in range(2):  # made, then from the cache
        ours, theirs = _draw(PaneWindow, cursor, menu=Point(1, 8)), _draw(ViewWindow, cursor, menu=Point(1, 8))
        assert _cells(ours) == _cells(theirs)
        assert ours.cursor_positions == {} or list(ours.cursor_positions.values()) == list(
            theirs.cursor_positions.values()
        )
        assert list(ours.menu_positions.values()) == list(theirs.menu_positions.values())
        assert ours.height == theirs.height
    assert pane_window._rows, "rows were not kept"


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
