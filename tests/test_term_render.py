"""Rows to styled fragments: colours, attributes, wide characters, cursor column, highlight."""

from __future__ import annotations

from dsh.term.render import cell_style, cursor_column, line_fragments, line_text
from dsh.term.screen import Cell, TermScreen


def screen_with(data: bytes, cols: int = 12) -> TermScreen:
    s = TermScreen(cols, 2)
    s.feed(data)
    return s


def test_styles_for_colours_and_attributes() -> None:
    assert cell_style(Cell("x")) == ""
    assert cell_style(Cell("x", fg="red", bg="blue")) == "fg:ansired bg:ansiblue"
    assert cell_style(Cell("x", fg="ff0000", bg="brightbrown")) == "fg:#ff0000 bg:ansibrightyellow"
    assert cell_style(Cell("x", bold=True, dim=True, italics=True, underscore=True, strikethrough=True,
                           reverse=True, blink=True)) == "bold dim italic underline strike reverse blink"


def test_fragments_merge_runs_by_style() -> None:
    s = screen_with(b"ab\x1b[31mcd\x1b[0me")
    assert line_fragments(s.buffer[0], 12) == [("", "ab"), ("fg:ansired", "cd"), ("", "e")]


def test_wide_characters_line_up() -> None:
    s = screen_with("日本x".encode())
    assert line_fragments(s.buffer[0], 12) == [("", "日本x")]
    assert cursor_column(s.buffer[0], 5, 12) == 3
    assert cursor_column(s.buffer[0], 2, 12) == 1
    assert line_text(s.buffer[0], 12) == "日本x"


def test_half_overwritten_wide_character_keeps_columns() -> None:
    s = screen_with("日本\x1b[1;2Hz".encode())
    text = "".join(ch for _, ch in line_fragments(s.buffer[0], 12))
    assert text == " z本"
    s = screen_with("日本\x1b[1;1Hz".encode())
    assert "".join(ch for _, ch in line_fragments(s.buffer[0], 12)) == "z 本"


def test_row_is_clipped_to_columns() -> None:
    s = screen_with(b"0123456789")
    assert line_text(s.buffer[0], 4) == "0123"


def test_highlight_adds_a_style() -> None:
    s = screen_with(b"find me")
    assert line_fragments(s.buffer[0], 12, highlight=(5, 2)) == [("", "find "), ("reverse", "me")]
