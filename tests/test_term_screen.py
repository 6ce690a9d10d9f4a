"""TermScreen emulation: one test per capability, feeding bytes and reading cells, attrs and cursor."""

from __future__ import annotations

from dsh.term.rows import row_text
from dsh.term.screen import TITLE_MAX, TermScreen


def make(cols: int = 20, rows: int = 5, **kw) -> TermScreen:
    return TermScreen(cols, rows, **kw)


def row(screen: TermScreen, y: int) -> str:
    return screen.display[y].rstrip()


def texts(lines) -> list[str]:
    return [row_text(line, 1000) for line in lines]


def test_plain_text_and_crlf() -> None:
    s = make()
    s.feed(b"hello\r\nworld")
    assert row(s, 0) == "hello"
    assert row(s, 1) == "world"
    assert (s.cursor.x, s.cursor.y) == (5, 1)


def test_16_256_and_true_colour_and_text_attributes() -> None:
    s = make()
    s.feed(
        b"\x1b[31;44mA\x1b[0m\x1b[38;5;196mB\x1b[48;2;1;2;3mC\x1b[0m"
        b"\x1b[1mD\x1b[0m\x1b[2mE\x1b[0m\x1b[3mF\x1b[0m\x1b[4mG\x1b[0m\x1b[7mH\x1b[0m\x1b[91mI"
    )
    line = s.buffer[0]
    assert (line[0].fg, line[0].bg) == ("red", "blue")
    assert line[1].fg == "196"  # the palette index, not xterm's RGB for it
    assert (line[2].fg, line[2].bg) == ("196", "010203")
    assert line[3].bold and not line[3].dim
    assert line[4].dim and not line[4].bold
    assert line[5].italics
    assert line[6].underscore
    assert line[7].reverse
    assert line[8].fg == "brightred"
    s.feed(b"\x1b[1;2m\x1b[22mJ")
    assert not s.buffer[0][9].bold and not s.buffer[0][9].dim


def test_colon_separated_sgr() -> None:
    s = make()
    s.feed(b"\x1b[38:2::10:20:30mA\x1b[48:5:21mB\x1b[38:2:1:2:3mC\x1b[4:3mD\x1b[4:0mE")
    line = s.buffer[0]
    assert line[0].fg == "0a141e"
    assert line[1].bg == "21"
    assert line[2].fg == "010203"
    assert line[3].underscore
    assert not line[4].underscore
    assert row(s, 0) == "ABCDE"


def test_private_csi_is_not_sgr() -> None:
    s = make()
    s.feed(b"\x1b[>4;2m\x1b[?4m\x1b[=5mx")
    cell = s.buffer[0][0]
    assert cell.data == "x"
    assert not cell.underscore and not cell.blink and not cell.italics


def test_wide_and_combining_characters() -> None:
    s = make()
    s.feed("日本e\u0301x".encode())
    line = s.buffer[0]
    assert [line[x].data for x in range(5)] == ["日", "", "本", "", "e\u0301"]  # kept as sent
    assert line[5].data == "x"
    assert s.cursor.x == 6
    s.feed("中\u0301".encode())  # combining after a wide character joins the wide one
    assert s.buffer[0][6].data.startswith("中")


def test_wide_character_at_the_right_edge_wraps() -> None:
    s = make(cols=5)
    s.feed("abcd中".encode())
    assert row(s, 0) == "abcd"
    assert s.buffer[1][0].data == "中"


def _alt_round_trip(enter: bytes, leave: bytes) -> None:
    s = make(rows=3)
    s.feed(b"one\r\ntwo\r\nthree\r\nfour")
    history_before = texts(s.history)
    cells_before = [list(line) for line in s.buffer]
    cursor_before = (s.cursor.x, s.cursor.y)
    s.feed(enter)
    assert s.alternate_screen
    assert all(row(s, y) == "" for y in range(3))
    s.feed(b"\x1b[HVIM\r\n1\r\n2\r\n3\r\n4\r\n5")
    assert row(s, 2) == "5"
    s.feed(leave)
    assert not s.alternate_screen
    assert [list(line) for line in s.buffer] == cells_before
    assert texts(s.history) == history_before  # the alternate screen never reaches history
    if enter == b"\x1b[?1049h":
        assert (s.cursor.x, s.cursor.y) == cursor_before


def test_alternate_screen_1049_round_trip() -> None:
    _alt_round_trip(b"\x1b[?1049h", b"\x1b[?1049l")


def test_alternate_screen_1047_round_trip() -> None:
    _alt_round_trip(b"\x1b[?1047h", b"\x1b[?1047l")


def test_alternate_screen_47_round_trip() -> None:
    _alt_round_trip(b"\x1b[?47h", b"\x1b[?47l")


def test_history_is_bounded_by_scrollback() -> None:
    s = make(rows=2, scrollback=3)
    s.feed(b"\r\n".join(b"%d" % i for i in range(10)))
    assert texts(s.history) == ["5", "6", "7"]
    assert [row(s, 0), row(s, 1)] == ["8", "9"]


def test_resize_keeps_history_and_cursor() -> None:
    s = make(rows=5)
    s.feed(b"\r\n".join(b"L%d" % i for i in range(5)))
    assert s.cursor.y == 4
    s.resize(lines=2)
    assert texts(s.history) == ["L0", "L1", "L2"]
    assert [row(s, 0), row(s, 1)] == ["L3", "L4"]
    assert (s.cursor.x, s.cursor.y) == (2, 1)
    s.feed(b"!")
    assert row(s, 1) == "L4!"
    s.resize(lines=5)
    assert [row(s, y) for y in range(5)] == ["L0", "L1", "L2", "L3", "L4!"]
    assert s.cursor.y == 4
    assert len(s.history) == 0


def test_resize_narrower_and_wider_rewraps_text() -> None:
    s = make(cols=10, rows=2)
    s.feed(b"0123456789")
    s.resize(columns=4)
    assert [row(s, 0), row(s, 1)] == ["4567", "89"]
    assert texts(s.history) == ["0123"]
    assert (s.cursor.x, s.cursor.y) == (2, 1)
    s.resize(columns=12)
    assert [row(s, 0), row(s, 1)] == ["0123456789", ""]
    assert (s.cursor.x, s.cursor.y) == (10, 0)
    s.feed(b"X\r\n\tY")
    assert row(s, 0) == "0123456789X"
    assert s.buffer[1][8].data == "Y"


def test_reflow_keeps_separate_lines_and_the_cursor() -> None:
    s = make(cols=8, rows=6)
    s.feed(b"ab\r\nabcdefghijk\r\n$ ")
    assert [row(s, y) for y in range(3)] == ["ab", "abcdefgh", "ijk"]
    s.resize(columns=20)
    assert [row(s, y) for y in range(3)] == ["ab", "abcdefghijk", "$"]
    assert (s.cursor.x, s.cursor.y) == (2, 2)
    s.resize(columns=5)
    assert [row(s, y) for y in range(5)] == ["ab", "abcde", "fghij", "k", "$"]
    assert (s.cursor.x, s.cursor.y) == (2, 4)
    s.feed(b"typed")
    assert row(s, 4) == "$ typ"
    assert row(s, 5) == "ed"


def test_reflow_never_splits_a_wide_character() -> None:
    s = make(cols=6, rows=3)
    s.feed("ab日本語".encode())
    assert [row(s, 0), row(s, 1)] == ["ab日本", "語"]
    s.resize(columns=5)
    assert [row(s, 0), row(s, 1)] == ["ab日", "本語"]
    assert s.buffer[0][4].data == " "  # the column a wide character could not use
    assert (s.cursor.x, s.cursor.y) == (4, 1)


def test_resize_in_alternate_screen_keeps_main_screen() -> None:
    s = make(rows=4)
    s.feed(b"a\r\nb\r\nc\r\nd\x1b[?1049h")
    s.resize(lines=2)
    s.feed(b"\x1b[?1049l")
    assert [row(s, 0), row(s, 1)] == ["c", "d"]
    assert texts(s.history) == ["a", "b"]


def test_csi_s_and_t_scroll() -> None:
    s = make(rows=4)
    s.feed(b"a\r\nb\r\nc\r\nd\x1b[2S")
    assert [row(s, y) for y in range(4)] == ["c", "d", "", ""]
    s.feed(b"\x1b[T")
    assert [row(s, y) for y in range(4)] == ["", "c", "d", ""]
    assert (s.cursor.x, s.cursor.y) == (1, 3)


def test_malformed_and_unknown_sequences_never_stop_the_feed() -> None:
    s = make()
    s.feed(
        b"\x1b[1;2;3;4;5A\x1b[5;5;5;5;5;5H\x1b[?1;2;3;4mX\x1b[99999999999z\x1b[1\x18Y"
        b"\x1b[12$\x1b[!p\x1b[ q\x1bPq#0;2;0;0;0\x1b\\\x1b_apc\x1b\\\x1b[?2026$p\x1b%G\x1b(0Z\xc2\x9b5mW"
    )
    s.feed(b"\x1b(B\x1b[1;1H\x1b[2Khello")  # (ESC ( 0 above chose line drawing: back to ASCII)
    assert row(s, 0) == "hello"
    assert s.cursor.x == 5


def test_cursor_position_and_device_attribute_replies() -> None:
    replies: list[str] = []
    s = make(write_process_input=replies.append)
    s.feed(b"\x1b[3;7H\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b[?6n")
    assert replies[0] == "\x1b[3;7R"
    assert replies[1].startswith("\x1b[?") and replies[1].endswith("c")
    assert replies[2].startswith("\x1b[>") and replies[2].endswith("c")
    assert replies[3] == "\x1b[0n"
    assert replies[4] == "\x1b[?3;7R"


def test_title_is_sanitized_and_capped() -> None:
    s = make()
    s.feed(b"\x1b]0;build \x01 \xc2\x9b31m\x07")
    assert s.title == "build ^A \\x9b31m"
    s.feed(b"\x1b]2;" + b"t" * 10_000 + b"\x1b\\after")
    assert len(s.title) == TITLE_MAX
    assert s.title.endswith("…")
    assert row(s, 0) == "after"


def test_title_split_across_feeds() -> None:
    s = make()
    s.feed(b"\x1b]2;hel")
    s.feed(b"lo\x07x")
    assert s.title == "hello"
    assert row(s, 0) == "x"


def test_unterminated_huge_osc_is_dropped_not_buffered() -> None:
    s = make()
    s.feed(b"\x1b]2;" + b"z" * 200_000)
    s.feed(b"z" * 1000 + b"\x07ok")
    assert row(s, 0) == "ok"
    assert s.title == ""


def test_osc7_sets_cwd() -> None:
    s = make()
    s.feed(b"\x1b]7;file://host/home/me/my%20dir\x1b\\")
    assert s.cwd == "/home/me/my dir"
    s.feed(b"\x1b]7;http://evil/x\x07\x1b]7;file://h/rel%00x\x07")
    assert s.cwd == "/home/me/my dir"


def test_bell_sets_attention() -> None:
    s = make()
    assert not s.attention
    s.feed(b"x\x07")
    assert s.attention
    assert s.bell_count == 1
    assert row(s, 0) == "x"


def test_modes_bracketed_paste_app_cursor_mouse_cursor() -> None:
    s = make()
    assert not s.bracketed_paste and not s.app_cursor and not s.mouse_tracking and s.cursor_visible
    s.feed(b"\x1b[?2004h\x1b[?1h\x1b[?1000;1006h\x1b[?25l")
    assert s.bracketed_paste and s.app_cursor and s.mouse_tracking and s.mouse_sgr
    assert not s.cursor_visible
    s.feed(b"\x1b[?2004l\x1b[?1l\x1b[?1000;1006l\x1b[?25h")
    assert not s.bracketed_paste and not s.app_cursor and not s.mouse_tracking and s.cursor_visible


def test_invalid_utf8_is_replaced() -> None:
    s = make()
    s.feed(b"a\xff\xfeb\xc3")
    s.feed(b"\xa9")
    assert row(s, 0) == "a\ufffd\ufffdbé"


def test_megabyte_line_without_newline() -> None:
    s = make(cols=80, rows=24, scrollback=100)
    s.feed(b"x" * 1_000_000 + b"END")
    assert row(s, 23).endswith("END")
    assert len(s.history) == 100


def test_any_split_of_a_stream_gives_the_same_screen() -> None:
    data = (
        "\x1b[1;31mred\x1b[0m\r\n\x1b]2;ti\x1b[1mtle\x07日本\x1b[?1049h\x1b[5;3Hin alt\x1b[?1049l"
        "\x1b[38:2::1:2:3mrgb\x1b[2;4r\x1b[3;1H\r\n\r\nq\x1b[r é"
    ).encode()
    whole = make()
    whole.feed(data)
    for cut in range(1, len(data)):
        s = make()
        s.feed(data[:cut])
        s.feed(data[cut:])
        assert s.display == whole.display, cut
        assert [tuple(s.buffer[y][x]) for y in range(5) for x in range(20)] == [
            tuple(whole.buffer[y][x]) for y in range(5) for x in range(20)
        ]
        assert s.title == whole.title
        assert (s.cursor.x, s.cursor.y) == (whole.cursor.x, whole.cursor.y)


def test_insert_delete_lines_and_scroll_region() -> None:
    s = make(rows=5)
    s.feed(b"a\r\nb\r\nc\r\nd\r\ne\x1b[2;4r\x1b[4;1H\r\nX")
    assert [row(s, y) for y in range(5)] == ["a", "c", "d", "X", "e"]
    assert len(s.history) == 0  # a scroll inside a region is not history
    s.feed(b"\x1b[r\x1b[2;1H\x1b[L")
    assert [row(s, y) for y in range(5)] == ["a", "", "c", "d", "X"]
    s.feed(b"\x1b[M\x1b[M")
    assert [row(s, y) for y in range(5)] == ["a", "d", "X", "", ""]


def test_cr_cr_lf_is_a_line_end() -> None:
    s = make()
    s.feed(b"ab\r\r\ncd\r\r\r\n\r\nef")
    assert [row(s, y) for y in range(4)] == ["ab", "cd", "", "ef"]
    assert (s.cursor.x, s.cursor.y) == (2, 3)


_FUZZ_PIECES = [
    b"\x1b[",
    b"\x1b]",
    b"\x1b",
    b"\x07",
    b"\x1b\\",
    b";",
    b"?",
    b">",
    b"=",
    b":",
    b"1049",
    b"h",
    b"l",
    b"m",
    b"H",
    b"J",
    b"K",
    b"r",
    b"S",
    b"T",
    b"L",
    b"M",
    b"@",
    b"P",
    b"X",
    b"b",
    b"c",
    b"n",
    b"38",
    b"5",
    b"2",
    b"0",
    b"9999999",
    b"\r",
    b"\n",
    b"\t",
    b"\x08",
    b"abc",
    "日本".encode(),
    b"\xff",
    b"\xc3",
    b"\x9b",
    b"\x1bP",
    b"\x1b#8",
    b"\x1b(0",
    b"\x1bM",
    b"\x1bD",
    b"\x1b7",
    b"\x1b8",
    b"\x1bc",
    b"\x18",
    b"\x0e",
    b"e\xcc\x81",
    b"4",
    b"6",
    b"25",
    b"47",
    b"1047",
    b"3",
    b"7",
    b"4h",
]


def test_random_garbage_keeps_the_screen_consistent() -> None:
    import random

    rnd = random.Random(7)
    for _ in range(300):
        s = TermScreen(
            rnd.randint(1, 30), rnd.randint(1, 10), scrollback=rnd.randint(0, 50), write_process_input=lambda _d: None
        )
        for _ in range(rnd.randint(1, 40)):
            s.feed(b"".join(rnd.choice(_FUZZ_PIECES) for _ in range(rnd.randint(1, 20))))
            if rnd.random() < 0.1:
                s.resize(rnd.randint(1, 12), rnd.randint(1, 40))
            assert len(s.buffer) == s.lines
            assert 0 <= s.cursor.y < s.lines
            assert 0 <= s.cursor.x <= s.columns
            assert len(s.display) == s.lines
        s.resize(5, 10)
        s.feed(b"\x07\x1bc\x1b[?1049l\x1b[?47l\x1b[r\x1b[1;1H\x1b[2Kalive")
        assert s.display[0] == "alive     "


def test_tab_stops_past_a_narrowed_screen_are_ignored() -> None:
    s = make(cols=20)
    s.resize(columns=6)
    s.feed(b"\tX")
    assert s.cursor.x == 6
    assert row(s, 0) == "     X"


def test_osc_ends_at_a_new_escape_or_is_cancelled() -> None:
    s = make()
    s.feed(b"\x1b]2;first\x1b[1mB")
    assert s.title == "first"
    assert s.buffer[0][0].data == "B" and s.buffer[0][0].bold
    s.feed(b"\x1b]2;second\x18C")
    assert s.title == "first"  # cancelled
    assert row(s, 0) == "BC"


def test_mode_queries_are_answered() -> None:
    replies: list[str] = []
    s = make(write_process_input=replies.append)
    s.feed(b"\x1b[?2026$p\x1b[?2026h\x1b[?2026$p\x1b[?4242$p\x1b[4$p")
    assert replies == ["\x1b[?2026;2$y", "\x1b[?2026;1$y", "\x1b[?4242;0$y", "\x1b[4;2$y"]


def test_compacted_history_reads_the_same_and_comes_back_on_resize() -> None:
    from dsh.term.cells import Row
    from dsh.term.rows import row_cells

    s = make(cols=12, rows=3)
    # drawn a cell at a time (cursor addressing), so these rows reach history as cells
    s.feed("\x1b[1;1H\x1b[31mred\x1b[0m 日本\x1b[2;1Hplain\x1b[3;1H\x1b[44m\x1b[2K\x1b[0m".encode())
    s.feed(b"\x1b[3;1H\n\n\rx\ny\rz")
    assert all(type(line) is Row for line in s.history)
    before = [(row_text(line, 12), list(row_cells(line, 12))) for line in s.history]
    assert s.compact_history(2) == 1
    assert s.compact_history(100) == 0
    assert not any(type(line) is Row for line in s.history)  # every one of them compact now
    assert [(row_text(line, 12), list(row_cells(line, 12))) for line in s.history] == before
    assert [text for text, _ in before] == ["red 日本", "plain", ""]
    assert before[2][1][0].bg == "blue"  # an erased row keeps its background
    s.resize(lines=8)
    assert [row(s, y) for y in range(6)] == ["red 日本", "plain", "", "", "x", "zy"]
    s.feed(b"\x1b[1;1H!")
    assert row(s, 0) == "!ed 日本"
    assert s.buffer[0][1].fg == "red"


def test_extra_csi_parameters_are_ignored_not_fatal() -> None:
    s = make(rows=6)
    s.feed(b"\x1b[4;1;7;9H*\x1b[2;3;4A+")
    assert s.buffer[3][0].data == "*"
    assert s.buffer[1][1].data == "+"


def test_resize_in_alternate_screen_rewraps_only_the_main_screen() -> None:
    s = make(cols=10, rows=3)
    s.feed(b"0123456789ab\x1b[?1049h\x1b[1;1Hfull screen")
    s.resize(columns=6)
    assert row(s, 0) == "full s"  # cut, the program redraws
    s.feed(b"\x1b[?1049l")
    assert [row(s, 0), row(s, 1)] == ["012345", "6789ab"]
    assert (s.cursor.x, s.cursor.y) == (6, 1)


def _logical_lines(s: TermScreen) -> list[str]:
    """History and screen as the lines the program wrote: wrapped rows joined, spaces at the end
    dropped (they look like blanks, and are kept as such)."""
    from dsh.term.rows import row_cells

    out: list[str] = []
    line = ""
    for r in [*s.history, *s.screen_rows()]:
        if getattr(r, "wrapped", False):
            line += "".join(cell.data for cell in row_cells(r, s.columns))
        else:
            out.append((line + row_text(r, s.columns)).rstrip())
            line = ""
    return out


def test_narrow_then_widen_gives_back_the_same_lines() -> None:
    import random

    rnd = random.Random(3)
    for _ in range(60):
        cols, rows = rnd.randint(8, 30), rnd.randint(3, 10)
        s = make(cols=cols, rows=rows, scrollback=1000)
        lines = ["".join(rnd.choice("abc xyz") for _ in range(rnd.randint(0, 2 * cols))) for _ in range(12)]
        s.feed("\r\n".join(lines).encode())
        before = (_logical_lines(s), s.cursor.x, s.cursor.y)
        assert before[0][-12:] == [line.rstrip() for line in lines][-len(before[0][-12:]) :]
        s.resize(columns=rnd.randint(3, cols - 1))
        s.resize(columns=cols)
        after = (_logical_lines(s), s.cursor.x, s.cursor.y)
        assert after == before


def test_reset_program_modes_undoes_what_a_program_left_set() -> None:
    s = make()
    s.feed(b"main\x1b[?1000;1002;1006;1004;2004;1;66;2026h\x1b=\x1b[?25l\x1b[?1049halt")
    assert s.mouse_tracking and s.bracketed_paste and s.app_cursor and s.app_keypad and s.alternate_screen
    s.reset_program_modes()
    assert not (s.mouse_tracking or s.mouse_sgr or s.bracketed_paste or s.app_cursor or s.app_keypad)
    assert not s.has_private_mode(1004) and not s.has_private_mode(2026)
    assert not s.alternate_screen and s.cursor_visible
    assert row(s, 0) == "main"
    assert (s.cursor.x, s.cursor.y) == (4, 0)
    s.feed(b"\x1b[?7l")  # modes that are the screen's own, not a program's, stay as set
    s.reset_program_modes()
    assert not s.has_private_mode(7)


def test_colour_queries_are_answered_with_the_colours_drawn() -> None:
    replies: list[str] = []
    s = make(write_process_input=replies.append)
    s.feed(b"\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]4;1;?;196;?\x07\x1b]10;?;?\x07")
    assert replies == [
        "\x1b]10;rgb:e5e5/e5e5/e5e5\x07",  # the palette's default foreground, same terminator as asked
        "\x1b]11;rgb:0000/0000/0000\x1b\\",
        "\x1b]4;1;rgb:cdcd/0000/0000\x07",
        "\x1b]4;196;rgb:ffff/0000/0000\x07",  # 16-255 are drawn as exact #rrggbb: this is exact
        "\x1b]10;rgb:e5e5/e5e5/e5e5\x07",
        "\x1b]11;rgb:0000/0000/0000\x07",
    ]
    replies.clear()
    s.palette.background = "fdf6e3"  # what the view learned of the user's terminal
    s.feed(b"\x1b]11;?\x07\x1b]11;rgb:1/2/3\x07")
    assert replies == ["\x1b]11;rgb:fdfd/f6f6/e3e3\x07"]  # setting is not supported: no reply, no change


def test_rewrap_reaches_all_of_history() -> None:
    s = make(cols=10, rows=3, scrollback=5000)
    s.feed(b"".join(b"%04d" % i + b"x" * 12 + b"\r\n" for i in range(2000)))  # 16 characters: 2 rows each
    assert len(s.history) == 3998
    s.resize(columns=20)
    assert texts(s.history)[0] == "0000xxxxxxxxxxxx"  # the oldest line, rejoined
    assert len(s.history) == 1998
    s.resize(columns=6)
    assert len(s.history) == 5000  # 6,000 rows now: the oldest are gone, as scrollback holds 5,000
    assert texts(s.history)[1:4] == ["0333xx", "xxxxxx", "xxxx"]
    assert texts(s.history)[-4:] == ["1998xx", "xxxxxx", "xxxx", "1999xx"]
    s.resize(columns=10)
    assert texts(s.history)[1:3] == ["0333xxxxxx", "xxxxxx"]
    assert s.display == ["1999xxxxxx", "xxxxxx    ", " " * 10]


def test_carriage_return_and_line_feed_on_their_own() -> None:
    s = make()
    s.feed(b"50%\r60%\r70%\r\nab\ncd\r\n\x1b[20hef\ngh")
    assert [row(s, y) for y in range(4)] == ["70%", "ab", "  cd", "ef"]
    assert row(s, 4) == "gh"  # LNM: a line feed also returns the carriage
    s = make()
    for chunk in (b"one\r", b"\ntwo\r", b"\r", b"\nthree"):  # CR LF split across reads
        s.feed(chunk)
    assert [row(s, y) for y in range(3)] == ["one", "two", "three"]
