"""Rows to styled fragments (dsh/ui/cells.py): exact colours, renditions, wide characters, every
row shape, cursor column, highlight, reverse video."""

from __future__ import annotations

from dsh.term.cells import Cell
from dsh.term.rows import row_text
from dsh.term.screen import TermScreen
from dsh.ui.cells import cell_style, cursor_column, line_fragments


def screen_with(data: bytes, cols: int = 12, rows: int = 2) -> TermScreen:
    s = TermScreen(cols, rows)
    s.feed(data)
    return s


def test_styles_for_colours_and_attributes() -> None:
    assert cell_style(Cell("x")) == ""
    assert cell_style(Cell("x", fg="red", bg="blue")) == "fg:ansired bg:ansiblue"
    assert cell_style(Cell("x", fg="ff0000", bg="brightbrown")) == "fg:#ff0000 bg:ansibrightyellow"
    assert (
        cell_style(
            Cell(
                "x",
                bold=True,
                dim=True,
                italics=True,
                underscore=True,
                strikethrough=True,
                reverse=True,
                blink=True,
                hidden=True,
            )
        )
        == "bold dim italic underline strike reverse blink hidden"
    )


def test_24_bit_and_256_colours_are_exact_and_palette_0_to_15_use_the_terminal_palette() -> None:
    s = screen_with(b"\x1b[38;2;1;2;3ma\x1b[48;5;196mb\x1b[0m\x1b[38;5;1mc\x1b[38;5;9md\x1b[0m\x1b[31me")
    styles = [style for style, _ in line_fragments(s.buffer[0], 12)]
    assert styles == ["fg:#010203", "fg:#010203 bg:#ff0000 [bi:196]", "fg:ansired", "fg:ansibrightred", "fg:ansired"]


def test_underline_styles_draw_as_underline_with_their_style_beside_and_hidden_text_is_hidden() -> None:
    s = screen_with(b"\x1b[21ma\x1b[4:3mb\x1b[4:0m\x1b[8mc\x1b[28md\x1b[53me\x1b[55;4;58;5;100mf\x1b[58:2::1:2:3mg")
    assert line_fragments(s.buffer[0], 12) == [
        ("underline [us:2]", "a"),
        ("underline [us:3]", "b"),
        ("hidden", "c"),
        ("", "d"),
        ("[ov]", "e"),
        ("underline [uc:100]", "f"),
        ("underline [uc:010203]", "g"),
    ]


def test_fragments_merge_runs_by_style() -> None:
    s = screen_with(b"ab\x1b[31mcd\x1b[0me")
    assert line_fragments(s.buffer[0], 12) == [("", "ab"), ("fg:ansired", "cd"), ("", "e")]


def test_wide_characters_line_up() -> None:
    s = screen_with("日本x".encode())
    assert line_fragments(s.buffer[0], 12) == [("", "日本x")]
    assert cursor_column(s.buffer[0], 5, 12) == 3
    assert cursor_column(s.buffer[0], 2, 12) == 1
    assert row_text(s.buffer[0], 12) == "日本x"


def test_half_overwritten_wide_character_keeps_columns() -> None:
    s = screen_with("日本\x1b[1;2Hz".encode())
    text = "".join(ch for _, ch in line_fragments(s.buffer[0], 12))
    assert text == " z本"
    s = screen_with("日本\x1b[1;1Hz".encode())
    assert "".join(ch for _, ch in line_fragments(s.buffer[0], 12)) == "z 本"


def test_row_is_clipped_to_columns() -> None:
    s = screen_with(b"0123456789")
    assert row_text(s.buffer[0], 4) == "0123"
    assert line_fragments(s.buffer[0], 4) == [("", "0123")]


def test_highlight_adds_a_style() -> None:
    s = screen_with(b"find \x1b[1mme\x1b[0m now")
    assert line_fragments(s.buffer[0], 12, highlight=(5, 2)) == [("", "find "), ("bold reverse", "me"), ("", " now")]
    assert line_fragments(s.buffer[0], 12, highlight=(3, 4)) == [
        ("", "fin"),
        ("reverse", "d "),
        ("bold reverse", "me"),
        ("", " now"),
    ]


def test_compact_history_rows_draw_like_the_rows_they_were() -> None:
    data = "\x1b[31mred\x1b[0m plain\r\n\x1b[44m\x1b[Kblue\x1b[0m\r\nplain 日本\r\n".encode() * 3 + b"end"
    s = screen_with(data, cols=14, rows=2)
    assert {type(row).__name__ for row in s.history} >= {"str", "Raw"}  # the bulk path made them
    slow = TermScreen(14, 2)
    for byte in data:  # one byte at a time: every row drawn cell by cell
        slow.feed(bytes([byte]))
    assert [line_fragments(row, 14) for row in s.history] == [line_fragments(row, 14) for row in slow.history]
    assert line_fragments(s.history[1], 14) == [("bg:ansiblue", "blue" + " " * 10)]


def test_reverse_video_flips_every_cell_and_pads_the_row() -> None:
    s = screen_with(b"a\x1b[7mb\x1b[0m\x1b[?5h", cols=4)
    assert line_fragments(s.buffer[0], 4, reverse_screen=s.reverse_video) == [
        ("reverse", "a"),
        ("", "b"),
        ("reverse", "  "),
    ]


def test_double_width_row_spaces_its_characters() -> None:
    s = screen_with(b"\x1b#6abc", cols=8)
    assert line_fragments(s.buffer[0], 8) == [("", "a b c ")]
    assert cursor_column(s.buffer[0], 3, 8) == 6


def test_a_row_s_trailing_blanks_are_trimmed_however_they_lie() -> None:
    import random

    from dsh.term.cells import BLANK, Row
    from dsh.term.rows import _trimmed

    def one_at_a_time(row: list[Cell]) -> int:
        n = len(row)
        while n and row[n - 1] == BLANK:
            n -= 1
        return n

    rng = random.Random(7)
    kinds = [BLANK, Cell(" "), Cell("x"), Cell(" ", bg="blue"), Cell(" ", reverse=True)]  # an equal copy too
    for width in (0, 1, 2, 3, 80, 140, 300):  # past the prepared run of blanks
        for _ in range(200):
            cells = [rng.choice(kinds) for _ in range(width)]
            cut = rng.randint(0, width)
            cells[cut:] = [rng.choice(kinds[:2]) for _ in range(width - cut)]
            assert _trimmed(Row(cells)) == one_at_a_time(cells), (width, cells)


def test_a_compact_row_s_fragments_are_made_once_and_a_row_s_at_every_draw(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import dsh.ui.cells as cells_module
    from dsh.term.cells import BLANK, Row
    from dsh.term.rows import Packed, Raw

    s = screen_with(b"\x1b[31mred\x1b[0m plain\r\nsecond\r\nthird line\r\n\x1b[44mblue\x1b[K", cols=20, rows=2)
    s.compact_history(100)
    compact = [row for row in s.history if type(row) is not Row]
    compact += [Raw("\x1b[32mgreen\x1b[0m raw", BLANK, BLANK, -1, 20), "plain text"]
    assert any(type(row) is Packed for row in compact), "compacting history leaves Packed rows"
    made: list[object] = []
    runs = cells_module.row_runs

    def counting(row, columns):  # type: ignore[no-untyped-def]
        made.append(row)
        return runs(row, columns)

    monkeypatch.setattr(cells_module, "row_runs", counting)
    for row in compact:
        assert isinstance(row, (str, Packed, Raw))
        first = line_fragments(row, 20)
        assert line_fragments(row, 20) is first
        assert first == cells_module._line_fragments(row, 20, None, "reverse", False)
        assert line_fragments(row, 20, reverse_screen=True) != first  # another key
    assert made.count(compact[0]) == 3  # once cached, once for the comparison, once reversed

    row = Row([Cell("a"), Cell("b")])
    assert line_fragments(row, 2) == [("", "ab")]
    row[1] = Cell("c", fg="red")  # a Row is written in place: never served from the cache
    assert line_fragments(row, 2) == [("", "a"), ("fg:ansired", "c")]
