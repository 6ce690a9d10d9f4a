"""The reports programs ask a terminal for: XTVERSION, XTWINOPS sizes, DECRQSS, DECRQCRA; DECSCUSR kept;
DECRC leaves autowrap alone."""

from __future__ import annotations

from dsh import __version__
from dsh.term.screen import TermScreen


def screen(columns: int = 20, lines: int = 5) -> tuple[TermScreen, list[str]]:
    replies: list[str] = []
    return TermScreen(columns, lines, write_process_input=replies.append), replies


def test_xtversion_and_the_size_reports() -> None:
    s, out = screen(30, 7)
    s.feed(b"\x1b[>q\x1b[>0q\x1b[>1q")
    assert out == [f"\x1bP>|dsh({__version__})\x1b\\"] * 2
    out.clear()
    s.feed(b"\x1b[14t\x1b[16t\x1b[18t\x1b[19t\x1b[22;0t")
    assert out == ["\x1b[4;112;240t", "\x1b[6;16;8t", "\x1b[8;7;30t", "\x1b[9;7;30t"]


def test_decrqss_reports_the_rendition_cursor_shape_margins_and_protection() -> None:
    s, out = screen()
    s.feed(b"\x1b[1;3;4:3;31;48;2;1;2;3;58;2;9;9;9m\x1bP$qm\x1b\\")
    assert out == ["\x1bP1$r0;1;3;4:3;31;48;2;1;2;3;58;2;9;9;9m\x1b\\"]
    out.clear()
    s.feed(b"\x1b[m\x1bP$qm\x1b\\\x1bP$q q\x1b\\\x1b[6 q\x1bP$q q\x1b\\\x1b[2;4r\x1bP$qr\x1b\\\x1bP$qzz\x1b\\")
    assert out == ["\x1bP1$r0m\x1b\\", "\x1bP1$r1 q\x1b\\", "\x1bP1$r6 q\x1b\\", "\x1bP1$r2;4r\x1b\\", "\x1bP0$r\x1b\\"]
    assert s.cursor_shape == 6
    s.feed(b"\x1b[9 q")  # not a shape: kept as it was
    assert s.cursor_shape == 6


def test_decrqcra_sums_a_rectangle_as_xterm() -> None:
    s, out = screen()
    s.feed(b"ab\r\n\x1b[1mc\x1b[m")
    s.feed(b"\x1b[7;1;1;1;1;2*y\x1b[8;1;2;1;2;1*y\x1b[9;1;3;1;3;1*y")
    assert out == [
        f"\x1bP7!~{-(97 + 98) & 0xFFFF:04X}\x1b\\",
        f"\x1bP8!~{-(99 + 0x80) & 0xFFFF:04X}\x1b\\",  # bold counts
        f"\x1bP9!~{-32 & 0xFFFF:04X}\x1b\\",  # a blank is a space
    ]


def test_decrc_leaves_autowrap_as_it_is() -> None:
    s, _ = screen(5, 3)
    s.feed(b"\x1b7\x1b[?7l\x1b8")  # saved with autowrap on, restored with it off: stays off
    assert not s.has_private_mode(7)
    s.feed(b"abcdefg")
    assert s.display[0] == "abcdg" and s.display[1] == "     "


def test_with_autowrap_off_the_cursor_stays_on_the_last_column() -> None:
    s, out = screen(5, 3)
    s.feed(b"\x1b[?7labcdefg")
    assert s.cursor.x == 4 and s.display[0] == "abcdg"
    s.feed(b"\x08X\x1b[6n")  # BS from the last column: the one before it, as xterm and tmux
    assert s.display[0] == "abcXg" and out == ["\x1b[1;5R"]
    s.feed("\u4e2d".encode())  # a wide character ends on the last column
    assert s.cursor.x == 4 and s.display[0] == "abc\u4e2d"


def test_colours_a_program_sets_are_what_its_queries_answer_until_reset() -> None:
    s, out = screen()
    s.feed(b"\x1b]11;rgb:ff/ff/ff\x07\x1b]11;?\x07\x1b]10;#123\x1b\\\x1b]10;?\x1b\\")
    assert out == ["\x1b]11;rgb:ffff/ffff/ffff\x07", "\x1b]10;rgb:1010/2020/3030\x1b\\"]  # (#rgb: high digits)
    out.clear()
    s.feed(b"\x1b]4;1;#00ff00;200;rgb:1/2/3\x07\x1b]4;1;?;200;?\x07\x1b]104;1\x07\x1b]4;1;?;200;?\x07")
    assert out == [
        "\x1b]4;1;rgb:0000/ffff/0000\x07",
        "\x1b]4;200;rgb:1111/2222/3333\x07",
        "\x1b]4;1;rgb:cdcd/0000/0000\x07",  # reset: xterm's red again
        "\x1b]4;200;rgb:1111/2222/3333\x07",  # (only entry 1 was reset)
    ]
    out.clear()
    s.feed(b"\x1b]111\x07\x1b]11;?\x07\x1b]11;bogus\x07\x1b]11;?\x07")
    assert out == ["\x1b]11;rgb:0000/0000/0000\x07"] * 2


def test_x_colour_specs_and_names_are_read_as_xterm_reads_them() -> None:
    """esctest's ChangeColor/ChangeDynamicColor: #rgb … #rrrrggggbbbb take each colour's high digits,
    rgb: scales 1-4 digits, X11 names in any case with spaces; xterm answers its 8 bits repeated."""
    s, out = screen()
    for spec, answer in (
        ("#fff", "f0f0/f0f0/f0f0"),
        ("#888", "8080/8080/8080"),
        ("#f0f0f0", "f0f0/f0f0/f0f0"),
        ("#f00f00f00", "f0f0/f0f0/f0f0"),
        ("#800080008000", "8080/8080/8080"),
        ("#aaaabbbbcccc", "aaaa/bbbb/cccc"),
        ("rgb:f/0/8", "ffff/0000/8888"),
        ("rgb:800/fff/000", "8080/ffff/0000"),
        ("RGB:f0f0/8080/0000", "f0f0/8080/0000"),
        ("red", "ffff/0000/0000"),
        ("DarkSlateGray", "2f2f/4f4f/4f4f"),
        ("dark slate gray", "2f2f/4f4f/4f4f"),
        ("LightGoldenrod2", "eeee/dcdc/8282"),
    ):
        out.clear()
        s.feed(f"\x1b]4;3;{spec}\x07\x1b]4;3;?\x07\x1b]10;{spec}\x07\x1b]10;?\x07".encode())
        assert out == [f"\x1b]4;3;rgb:{answer}\x07", f"\x1b]10;rgb:{answer}\x07"], spec
    out.clear()
    for bad in ("#12", "#ggg", "rgb:1/2", "rgb:12345/0/0", "notacolour", ""):
        s.feed(f"\x1b]4;3;{bad}\x07".encode())
    s.feed(b"\x1b]4;3;?\x07")
    assert out == ["\x1b]4;3;rgb:eeee/dcdc/8282\x07"]  # none of them changed it


def test_palette_entries_10_and_11_are_not_the_default_colours() -> None:
    """OSC 4;10 and OSC 10 were kept under one key: setting palette entry 10 set the foreground, and
    OSC 104 (reset the palette) reset the default colours too."""
    s, out = screen()
    s.feed(b"\x1b]10;#112233\x07\x1b]4;10;#445566;11;#778899\x07\x1b]104\x07\x1b]10;?;?\x07\x1b]4;10;?\x07")
    assert out == [
        "\x1b]10;rgb:1111/2222/3333\x07",
        "\x1b]11;rgb:0000/0000/0000\x07",
        "\x1b]4;10;rgb:0000/ffff/0000\x07",
    ]
    before = s.colours_set
    s.feed(b"\x1b]110\x07")
    assert s.colour_sets == {} and s.colours_set > before  # each change is told: the view recolours
    s.feed(b"\x1b]4;1;red\x07\x1bc")
    assert s.colour_sets == {}  # RIS: the user's colours again


def test_origin_mode_homes_the_cursor_to_the_region_and_its_report_is_never_negative() -> None:
    """DECSET 6 put the cursor at the screen's top-left while CPR counted from the region's top: the
    report said row -4, and esctest's reader (any program's) lost step for every later report."""
    replies: list[str] = []
    s = TermScreen(80, 25, write_process_input=replies.append)
    s.feed(b"\x1b[6;11r\x1b[9;7H\x1b[?6h")
    assert (s.cursor.x, s.cursor.y) == (0, 5)  # the region's top-left
    s.feed(b"\x1b[6n\x1b[2`\x1b[6n\x1b[?6l\x1b[6n")
    assert replies == ["\x1b[1;1R", "\x1b[1;2R", "\x1b[1;1R"]


def test_decrqm_says_permanently_reset_for_the_modes_no_terminal_has() -> None:
    """As xterm does (esctest's DECRQM tests): 4 for ECMA-48's GATM … EBM and DEC's DECHCCM, not 0
    (unknown), while modes dsh keeps are still 1 or 2 and others 0."""
    replies: list[str] = []
    s = TermScreen(80, 25, write_process_input=replies.append)
    s.feed(b"\x1b[1$p\x1b[19$p\x1b[?60$p\x1b[4$p\x1b[3$p\x1b[?7$p\x1b[?9999$p")
    assert replies == [
        "\x1b[1;4$y",
        "\x1b[19;4$y",
        "\x1b[?60;4$y",
        "\x1b[4;2$y",
        "\x1b[3;0$y",
        "\x1b[?7;1$y",
        "\x1b[?9999;0$y",
    ]


def test_reverse_wraparound_takes_bs_and_cub_back_over_the_row_before() -> None:
    """xterm's mode 45 (and 1045) with DECAWM, as esctest checks it (xterm before patch 383)."""
    s = TermScreen(80, 25)
    s.feed(b"\x1b[?45h\x1b[2;1H\b")
    assert (s.cursor.x, s.cursor.y) == (79, 0)  # to the last column of the row above
    s.feed(b"\x1b[1;79Habcd\x1b[4D")
    assert (s.cursor.x, s.cursor.y) == (78, 0)  # back over "d", "c" and the wrap
    s.feed(b"\x1b[1;79Hab\b")
    assert (s.cursor.x, s.cursor.y) == (79, 0)  # a wrap pending at the last column: only taken back
    s.feed(b"\x1b[2;5r\x1b[2;1H\b")
    assert (s.cursor.x, s.cursor.y) == (79, 4)  # from the region's top to its bottom
    s.feed(b"\x1b[r\x1b[5;5H\x1b[160D")
    assert (s.cursor.x, s.cursor.y) == (4, 2)  # two whole rows back
    s.feed(b"\x1b[?7l\x1b[3;1H\b")
    assert (s.cursor.x, s.cursor.y) == (0, 2)  # not without autowrap
    s.feed(b"\x1b[?7h\x1b[!p\x1b[3;1H\b")
    assert (s.cursor.x, s.cursor.y) == (0, 2)  # DECSTR turns it off
    replies: list[str] = []
    TermScreen(80, 25, write_process_input=replies.append).feed(b"\x1b[?1045h\x1b[?1045$p\x1b[?45$p")
    assert replies == ["\x1b[?1045;1$y", "\x1b[?45;2$y"]


def test_da_and_da2_answer_by_the_level_a_program_set() -> None:
    """As xterm at each DECSCL level (esctest2's DA and DA2 tests); before any, the VT220 answers."""
    s, out = screen()
    s.feed(b"\x1b[c\x1b[>c")
    assert out == ["\x1b[?62;22c", "\x1b[>1;10;0c"]
    for level, da, da2 in (
        (65, "65;1;2;6;9;15;16;17;18;21;22;28;29", "64"),
        (64, "64;1;2;6;9;15;16;17;18;21;22;28;29", "41"),
        (63, "63;1;2;6;9;15;22;29", "24"),
        (62, "62;1;2;6;9;15;22;29", "1"),
        (61, "1;2", "0"),
    ):
        out.clear()
        s.feed(f'\x1b[4h\x1b[{level};1"p\x1b[c\x1b[0c\x1b[>c\x1b[>0c'.encode())
        assert out == [f"\x1b[?{da}c"] * 2 + [f"\x1b[>{da2};380;0c"] * 2, level
        assert 4 not in s.modes  # DECSCL is a soft reset too
    out.clear()
    s.feed(b"\x1b[?7$p\x1b[4$p")  # a VT100 has no DECRQM
    s.feed(b'\x1b[63"p\x1b[?7$p')
    assert out == ["\x1b[?7;1$y"]
    s.feed(b'\x1b[70"p\x1bc')
    assert s.conformance_level is None  # RIS: a new terminal's answers again


def test_titles_are_reported_and_pushed_and_popped_as_xterm_does() -> None:
    """XTWINOPS 20/21 report the icon name and title, 22/23 push and pop them (0 both, 1 the icon
    name, 2 the title) on one stack: esctest2's XtermWinops title tests."""
    s, out = screen()
    s.feed(b"\x1b]2;win\x07\x1b]1;ico\x07\x1b[20t\x1b[21t")
    assert out == ["\x1b]Lico\x1b\\", "\x1b]lwin\x1b\\"]
    s.feed(b"\x1b[22;1t\x1b[22;2t\x1b]0;y\x07\x1b[23;0t")
    assert (s.title, s.icon_name) == ("win", "ico")  # popping both goes down to the icon's push
    s.feed(b"\x1b[22;0t\x1b]0;x\x07\x1b[23;1t")
    assert (s.title, s.icon_name) == ("x", "ico")
    s.feed(b"\x1b[23;2t")
    assert s.title == "x"  # that push is gone, its title with it (PushIconAndWindow_PopIcon)
    s.feed(b"\x1b]2;a\x07\x1b[22;2t\x1b]2;b\x07\x1b[22;2t\x1b]2;z\x07\x1b[23;2t")
    assert s.title == "b"
    s.feed(b"\x1b[23;2t\x1b[23;2t\x1b[23t")  # popping an empty stack changes nothing
    assert s.title == "a"
    for i in range(15):
        s.feed(f"\x1b]2;t{i}\x07\x1b[22;2t".encode())
    assert len(s.title_stack) == 10 and s.title_stack[0] == (None, "t5")  # the oldest dropped
    out.clear()
    s.feed(b"\x1b]2;a\rb\x05\x9bc\x07\x1b[21t")
    assert len(out) == 1 and out[0].startswith("\x1b]l") and out[0].endswith("c\x1b\\")
    assert not any(ch in out[0][3:-2] for ch in "\r\x05\x9b")  # no control in a reported title


def test_a_pane_is_not_resized_or_moved_by_its_program() -> None:
    s, out = screen(30, 7)
    s.feed(b"\x1b[8;10;90t\x1b[4;100;200t\x1b[3;0;0t\x1b[2t\x1b[24t\x1b[?3h")
    assert (s.columns, s.lines) == (30, 7) and out == []
