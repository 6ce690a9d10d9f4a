"""Copy mode: a line cursor that keeps itself in view, a selection, and its text."""

from __future__ import annotations

from dsh.term.copymode import CopyMode
from dsh.term.terminal import Terminal


def terminal_with_lines(n: int, rows: int = 5) -> Terminal:
    term = Terminal(["true"], cwd="/", rows=rows, cols=20)
    term.feed("\r\n".join(f"line {i}" for i in range(n)).encode())
    return term


def test_cursor_starts_on_the_screen_cursor_line() -> None:
    term = terminal_with_lines(30)
    copy = CopyMode(term)
    assert term.text_lines()[copy.cursor] == "line 29"
    assert copy.selected_text() == "line 29"


def test_moving_past_the_view_scrolls_it() -> None:
    term = terminal_with_lines(30)
    copy = CopyMode(term)
    copy.move(4)  # to the top row of the view: no scroll yet
    assert term.scroll_offset == 0 and copy.selected_text() == "line 25"
    copy.move(3)
    assert term.scroll_offset == 3 and copy.selected_text() == "line 22"
    assert copy.view_rows(5) == (0, 0, 0)
    copy.top()
    assert copy.selected_text() == "line 0"
    copy.bottom()
    assert term.scroll_offset == 0 and copy.selected_text() == "line 29"


def test_a_selection_spans_from_the_anchor_to_the_cursor() -> None:
    term = terminal_with_lines(30)
    copy = CopyMode(term)
    copy.move(1)
    copy.toggle_selection()
    copy.move(2)
    assert copy.selected_text() == "line 26\nline 27\nline 28"
    assert copy.view_rows(5) == (1, 3, 1)
    copy.toggle_selection()
    assert copy.selected_text() == "line 26"


def test_the_cursor_follows_a_search_match() -> None:
    term = terminal_with_lines(30)
    copy = CopyMode(term)
    assert term.search("line 3")
    copy.follow_match()
    assert copy.selected_text() == "line 3"
