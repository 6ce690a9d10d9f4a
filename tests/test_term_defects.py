"""Issue 11's defects, one test each, reproduced from the escape stream on the screen model (the
numbers are the issue's). Keys (10) are in test_term_key_bytes.py."""

from __future__ import annotations

from dsh.term.cells import DOUBLE_WIDTH, UNDERLINE_CURLY, UNDERLINE_DASHED, UNDERLINE_DOTTED, UNDERLINE_DOUBLE
from dsh.term.screen import TermScreen


def make(cols: int = 10, rows: int = 4, **kw) -> TermScreen:
    return TermScreen(cols, rows, **kw)


def row(s: TermScreen, y: int) -> str:
    return s.display[y].rstrip()


def bgs(s: TermScreen, y: int) -> set[str]:
    return {cell.bg for cell in s.buffer[y]}


# 1 ---------------------------------------------------------------------------------------------
def test_1_erase_display_colours_every_cell_not_only_those_that_held_text() -> None:
    s = make()
    s.feed(b"ab\r\n\x1b[44m\x1b[2J\x1b[H\x1b[0m")
    assert all(bgs(s, y) == {"blue"} for y in range(4))


def test_1_rows_exposed_by_insert_delete_and_scroll_take_the_background() -> None:
    for seq in (b"\x1b[2;1H\x1b[L", b"\x1b[2;1H\x1b[M", b"\x1b[S", b"\x1b[T", b"\x1b[4;1H\n", b"\x1b[1;1H\x1bM"):
        s = make()
        s.feed(b"1\r\n2\r\n3\r\n4\x1b[41m" + seq)
        assert any(bgs(s, y) == {"red"} for y in range(4)), seq


def test_1_cells_vacated_by_delete_character_take_the_background() -> None:
    s = make(cols=6)
    s.feed(b"abcdef\x1b[1;2H\x1b[42m\x1b[2P")
    assert row(s, 0) == "adef"
    assert [cell.bg for cell in s.buffer[0]] == ["default"] * 4 + ["green"] * 2
    s.feed(b"\x1b[1;1H\x1b[43m\x1b[@")
    assert s.buffer[0][0].bg == "brown"


# 2 ---------------------------------------------------------------------------------------------
def test_2_dec_special_graphics_draws_lines() -> None:
    s = make()
    s.feed(b"\x1b(0lqqk\x1b(B lq")
    assert row(s, 0) == "┌──┐ lq"
    s.feed(b"\r\n\x1b)0\x0elqk\x0fx")  # G1 as line drawing, shifted in and out with SO/SI
    assert row(s, 1) == "┌─┐x"


def test_2_uk_set_and_single_shift() -> None:
    s = make()
    s.feed(b"\x1b(A#\x1b(B#\x1b*0\x1bNq\x1b+0\x1bOxq")
    assert row(s, 0) == "£#─│q"


def test_2_save_cursor_keeps_the_character_set() -> None:
    s = make()
    s.feed(b"\x1b(0\x1b7\x1b(Bq\x1b8q")
    assert row(s, 0) == "─"  # the restored G0 draws line drawing over the q


# 3 ---------------------------------------------------------------------------------------------
def test_3_underline_colour_with_semicolons_is_not_read_as_attributes() -> None:
    s = make()
    s.feed(b"\x1b[58;5;196mA\x1b[0m\x1b[1m\x1b[4;58;2;255;0;0mB\x1b[59mC")
    a, b, c = s.buffer[0][0], s.buffer[0][1], s.buffer[0][2]
    assert not a.blink and not a.italics and a.underline_colour == "196"
    assert b.bold and b.underscore and b.underline_colour == "ff0000"  # nothing reset
    assert c.underscore and c.underline_colour == "default"


# 4 ---------------------------------------------------------------------------------------------
def test_4_true_colour_is_kept_and_palette_0_to_15_stays_a_palette_entry() -> None:
    s = make()
    s.feed(b"\x1b[38;2;18;52;86;48;2;1;2;3mT\x1b[0m\x1b[38;5;1ma\x1b[38;5;9mb\x1b[48;5;4mc\x1b[38;5;196md")
    t, a, b, c, d = (s.buffer[0][x] for x in range(5))
    assert (t.fg, t.bg) == ("123456", "010203")
    assert (a.fg, b.fg, c.bg) == ("red", "brightred", "blue")  # as SGR 31, 91, 44 give them
    assert d.fg == "196"  # an index stays an index (the terminal's palette may differ from xterm's)


# 5 ---------------------------------------------------------------------------------------------
def test_5_reverse_screen_mode_leaves_each_cells_reverse_flag_alone() -> None:
    s = make()
    s.feed(b"\x1b[7mR\x1b[0mn\x1b[?5h")
    assert s.reverse_video
    s.feed(b"\x1b[?5l")
    assert not s.reverse_video
    assert s.buffer[0][0].reverse and not s.buffer[0][1].reverse


# 6 ---------------------------------------------------------------------------------------------
def test_6_erase_fills_with_the_background_only() -> None:
    s = make()
    s.feed(b"abcdefghij\x1b[1;3H\x1b[4;7;31;44m\x1b[K\x1b[2;1H\x1b[3X\x1b[3;1H\x1b[J")
    for cell in (s.buffer[0][5], s.buffer[1][0], s.buffer[3][9]):
        assert cell.bg == "blue"
        assert (cell.fg, cell.underscore, cell.reverse, cell.data) == ("default", False, False, " ")


# 7 ---------------------------------------------------------------------------------------------
def test_7_insert_character_leaves_nothing_past_the_right_edge() -> None:
    s = make(cols=5)
    s.feed(b"abcde\x1b[1;1H\x1b[2@")
    assert row(s, 0) == "  abc"
    s.feed(b"\x1b[2P")
    assert row(s, 0) == "abc"  # d and e were pushed off, not kept to come back
    assert len(s.buffer[0]) == 5


# 8 ---------------------------------------------------------------------------------------------
def test_8_column_mode_clears_and_homes() -> None:
    s = make()
    s.feed(b"one\r\ntwo\x1b[2;3r\x1b[?3h")
    assert all(row(s, y) == "" for y in range(4))
    assert (s.cursor.x, s.cursor.y) == (0, 0)
    assert s.margins is None
    assert s.columns == 10  # a pane keeps the width its layout gives it
    s.feed(b"x\x1b[?3l")
    assert row(s, 0) == ""


# 9 ---------------------------------------------------------------------------------------------
def test_9_tab_at_a_pending_wrap_stays_there() -> None:
    s = make()
    s.feed(b"0123456789\tX")
    assert row(s, 0) == "0123456789"
    assert row(s, 1) == "X"


def test_9_tab_stops_at_the_last_column() -> None:
    s = make()
    s.feed(b"\t\tX")
    assert row(s, 0) == "         X"


# 11 --------------------------------------------------------------------------------------------
def test_11_hidden_text_and_underline_styles_and_overline_are_kept() -> None:
    s = make()
    s.feed(b"\x1b[8ma\x1b[28mb\x1b[21mc\x1b[4:3md\x1b[4:4me\x1b[4:5mf\x1b[24;53mg\x1b[55mh")
    cells = s.buffer[0]
    assert cells[0].hidden and not cells[1].hidden
    assert [cells[x].underline_style for x in range(2, 6)] == [
        UNDERLINE_DOUBLE,
        UNDERLINE_CURLY,
        UNDERLINE_DOTTED,
        UNDERLINE_DASHED,
    ]
    assert all(cells[x].underscore for x in range(2, 6))
    assert cells[6].overline and not cells[6].underscore and not cells[7].overline


# 12 --------------------------------------------------------------------------------------------
def test_12_zwj_sequences_variation_selectors_and_combining_marks_are_kept() -> None:
    s = make()
    s.feed("👨\u200d👩\u200d👧|❤\ufe0f|e\u0301".encode())
    cells = s.buffer[0]
    assert cells[0].data == "👨\u200d👩\u200d👧" and cells[1].data == ""  # one wide cell, as tmux
    assert cells[2].data == "|"
    assert cells[3].data == "❤\ufe0f" and cells[4].data == ""  # VS16 makes it wide (widths.configure)
    assert cells[6].data == "e\u0301"  # as sent, not precomposed
    assert (s.cursor.x, s.cursor.y) == (7, 0)


def test_12_a_sequence_split_across_reads_is_joined_all_the_same() -> None:
    s = make()
    data = "👨\u200d👩x".encode()
    for i in range(len(data)):
        s.feed(data[i : i + 1])
    assert s.buffer[0][0].data == "👨\u200d👩"
    assert s.buffer[0][2].data == "x"


# 13 --------------------------------------------------------------------------------------------
def test_13_repeat_repeats_only_a_character_right_before_it() -> None:
    s = make()
    s.feed(b"A\x1b[3b")
    assert row(s, 0) == "AAAA"
    s.feed(b"\r\nB\x1b[C\x1b[3b\x1b[1mC\x1b[0m\x1b[2b")
    assert row(s, 1) == "B C"


# 14 --------------------------------------------------------------------------------------------
def test_14_selective_erase_keeps_protected_cells() -> None:
    s = make()
    s.feed(b'\x1b[1"qPP\x1b[0"qUU\r\nuu\x1b[1"qP\x1b[2"qu\x1b[1;1H\x1b[?K')
    assert row(s, 0) == "PP"
    s.feed(b"\x1b[2;1H\x1b[?J")
    assert row(s, 1) == "  P"
    s.feed(b"\x1b[1;1H\x1b[K")
    assert row(s, 0) == ""  # plain erase erases protected cells too


def test_14_sgr_0_does_not_end_protection() -> None:
    s = make()
    s.feed(b'\x1b[1"q\x1b[0mP\x1b[1;1H\x1b[?K')
    assert row(s, 0) == "P"


# places where dsh is right and tmux is not (kept) ------------------------------------------------
def test_origin_mode_addresses_and_reports_relative_to_the_region() -> None:
    replies: list[str] = []
    s = make(write_process_input=replies.append)
    s.feed(b"\x1b[2;3r\x1b[?6h\x1b[1;1HA\x1b[9;1HB\x1b[6n")
    assert row(s, 1) == "A" and row(s, 2) == "B"  # row 9 is clamped to the region's bottom
    assert replies == ["\x1b[2;2R"]


def test_relative_positioning() -> None:
    s = make()
    s.feed(b"\x1b[2;2H\x1b[3aA\x1b[2eB")  # HPR, VPR
    assert row(s, 1) == "    A"
    assert row(s, 3) == "     B"


def test_reverse_screen_mode_is_reported_and_survives_new_rows() -> None:
    replies: list[str] = []
    s = make(write_process_input=replies.append)
    s.feed(b"\x1b[?5h\r\n\r\n\r\n\r\nx\x1b[?5$p")
    assert s.reverse_video
    assert replies == ["\x1b[?5;1$y"]


def test_double_width_line_holds_half_the_characters() -> None:
    s = make()
    s.feed(b"\x1b#6abcdefgh")
    assert s.buffer[0].size == DOUBLE_WIDTH
    assert row(s, 0) == "abcde"  # 10 columns hold 5 double-width characters
    assert row(s, 1) == "fgh"
