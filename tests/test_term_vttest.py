"""vttest's screens for menus 1, 2, 3, 8 and 11.6, replayed through the screen model and checked
against what each screen tells a person they should see.

The byte streams were recorded from vttest 2.7 (tests/data/vttest/record.py; its licence is in
COPYING there). The 132-column screens are replayed with `allow_column_mode`, as xterm with its
allowColumnMode; a pane keeps its layout's width and only clears and homes (test_term_defects.py).

Side by side with tmux 3.3a at 80x24 (by hand, /work/shared/tools/tui), dsh draws every 80-column
screen of these menus as tmux does, except where tmux does not do what vttest asks: menu 1's
autowrap test (tmux's letters are out of order), the origin-mode test of menus 2 and 11.6.8 (tmux
draws the bottom line at the top), menu 8's delete-character test in double-width lines (tmux
ignores DECDWL), the protected area of 11.6.7.1 (tmux draws no box), and where both are allowed:
after insert/delete line tmux keeps the cursor's column, dsh (as the VT102) goes to column 1.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pytest

from dsh.term.cells import DOUBLE_WIDTH, Cell
from dsh.term.screen import TermScreen

DATA = Path(__file__).parent / "data" / "vttest"
INDEX = json.loads((DATA / "screens.json").read_text())


class Shot(NamedTuple):
    """A screen as it stood when vttest waited for a key."""

    text: list[str]
    cells: list[list[Cell]]
    columns: int
    reverse_video: bool
    line_sizes: list[int]

    def row(self, y: int) -> str:
        return self.text[y].rstrip()

    def find(self, needle: str) -> int:
        """The row holding `needle`."""
        return next(y for y, line in enumerate(self.text) if needle in line)


@cache
def shots(menu: str) -> list[Shot]:
    data = (DATA / f"menu-{menu}.bin").read_bytes()
    screen = TermScreen(80, 24, write_process_input=lambda _reply: None)
    screen.allow_column_mode = True
    out = []
    pos = 0
    for step in INDEX[menu]:
        screen.feed(data[pos : step["end"]])
        pos = step["end"]
        out.append(
            Shot(
                [line for line in screen.display],
                [list(row) for row in screen.buffer],
                screen.columns,
                screen.reverse_video,
                [row.size for row in screen.buffer],
            )
        )
    return out


def shot(menu: str, first_line: str, nth: int = 0) -> Shot:
    """The `nth` screen of a menu that has a line starting with `first_line`."""
    found = [s for s in shots(menu) if any(line.strip().startswith(first_line) for line in s.text)]
    return found[nth]


def test_the_recordings_hold_every_screen_of_the_menus() -> None:
    assert {menu: len(steps) for menu, steps in INDEX.items()} == {"1": 7, "2": 16, "3": 10, "8": 15, "11.6": 75}
    assert (DATA / "COPYING").read_text().startswith("Debianized-By")


# -- menu 1: cursor movements ------------------------------------------------------------------
@pytest.mark.parametrize(("menu", "nth", "columns"), [("1", 0, 80), ("1", 1, 132), ("11.6", 0, 80)])
def test_border_of_stars_and_pluses_and_a_frame_of_es_in_the_middle(menu: str, nth: int, columns: int) -> None:
    """ "The screen should be cleared, and have an unbroken border of *'s and +'s around the edge,
    and exactly in the middle there should be a frame of E's around this text with one (1) free
    position around it.\""""
    s = shot(menu, "*+++", nth)
    assert s.columns == columns
    assert s.row(0) == s.row(23) == "*" * columns
    assert s.row(1) == s.row(22) == "*" + "+" * (columns - 2) + "*"
    for y in range(2, 22):
        assert s.text[y][:2] == "*+" and s.text[y][-2:] == "+*", y
    top, bottom = 8, 15
    left = (columns - 60) // 2
    frame = [s.text[y][left : left + 60] for y in range(top, bottom + 1)]
    assert frame[0] == frame[-1] == "E" * 60
    for line in frame[1:-1]:
        assert line[0] == line[-1] == "E" and line[1] == line[-2] == " "
    assert frame[1] == frame[-2] == "E" + " " * 58 + "E"
    assert "The screen should be cleared" in frame[2]
    outside = [s.text[y][2:left] + s.text[y][left + 60 : columns - 2] for y in range(2, 22)]
    assert all(not part.strip() for part in outside)


@pytest.mark.parametrize(("menu", "nth", "columns"), [("1", 0, 80), ("1", 1, 132), ("11.6", 0, 80)])
def test_autowrap_keeps_the_margin_letters_in_order(menu: str, nth: int, columns: int) -> None:
    """ "The left/right margins should have letters in order.\""""
    s = shot(menu, "Test of autowrap", nth)
    assert s.columns == columns
    assert [s.text[y][0] + s.text[y][columns - 1] for y in range(2, 20)] == [
        chr(c) + chr(c).lower() for c in range(ord("I"), ord("Z") + 1)
    ]
    assert all(not s.text[y][1 : columns - 1].strip() for y in range(2, 20))


@pytest.mark.parametrize("menu", ["1", "11.6"])
def test_controls_inside_escape_sequences(menu: str) -> None:
    """ "Below should be four identical lines.\""""
    s = shot(menu, "Test of cursor-control characters inside ESC sequences")
    assert [s.row(y) for y in range(3, 7)] == ["A B C D E F G H I"] * 4


def test_leading_zeros_in_escape_sequences() -> None:
    """ "Two lines below you should see the sentence "This is a correct sentence".\""""
    s = shot("1", "Test of leading zeros")
    assert s.row(3) == "This is a correct sentence"


# -- menu 2: screen features -----------------------------------------------------------------------
@pytest.mark.parametrize("menu", ["2", "11.6"])
def test_wrap_around_fills_three_lines(menu: str) -> None:
    """ "This should be three identical lines of *'s completely filling the top of the screen
    without any empty lines between.\""""
    s = shot(menu, "This should be three identical lines")
    assert [s.row(y) for y in range(3)] == ["*" * 80] * 3
    assert s.row(3) == ""


@pytest.mark.parametrize("menu", ["2", "11.6"])
def test_tab_stops_set_and_reset_give_the_same_two_lines(menu: str) -> None:
    """ "Test of TAB setting/resetting. These two lines should look the same.\""""
    s = shot(menu, "Test of TAB setting")
    assert s.row(0) == s.row(1) == "      " + "*     " * 12 + "*"


@pytest.mark.parametrize(("columns", "background"), [(132, "light"), (80, "light"), (132, "dark"), (80, "dark")])
def test_column_mode_and_reverse_video(columns: int, background: str) -> None:
    """ "This is 132 column mode, light background." and its three siblings: light is DECSCNM."""
    s = shot("2", f"This is {columns} column mode, {background} background.")
    assert s.columns == columns
    assert s.reverse_video == (background == "light")
    for y in range(2, 20):
        assert s.text[y].startswith(" " * y + f"This is {columns} column mode, {background} background.")


@pytest.mark.parametrize(("kind", "nth"), [("Soft", 0), ("Jump", 0), ("Soft", 1), ("Jump", 1)])
def test_scrolling_regions(kind: str, nth: int) -> None:
    """The scroll tests end with their last line in the region: [12..13] then [1..24]."""
    s = [shot for shot in shots("2") if any(line.startswith(f"{kind} scroll down") for line in shot.text)][nth]
    if nth == 0:
        assert s.row(11) == "Push <RETURN>"
        assert s.row(12) == f"{kind} scroll down region [12..13] size 2 Line 29"
        assert all(s.row(y) == "" for y in range(24) if y not in (11, 12))
    else:
        assert s.row(0) == "Push <RETURN>"
        assert [s.row(y) for y in range(1, 24)] == [
            f"{kind} scroll down region [1..24] size 24 Line {n}" for n in range(29, 6, -1)
        ]


@pytest.mark.parametrize("menu", ["2", "11.6"])
def test_origin_mode(menu: str) -> None:
    """ "This line should be the one above the bottom of the screen." / "Origin mode test. This
    line should be at the bottom of the screen." / "This line should be at the top of the screen.\""""
    first = shot(menu, "This line should be the one above the bottom")
    assert first.row(22).startswith("This line should be the one above the bottom of the screen.")
    assert first.row(23) == "Origin mode test. This line should be at the bottom of the screen."
    second = shot(menu, "This line should be at the top of the screen.")
    assert second.row(0).startswith("This line should be at the top of the screen.")
    assert second.row(23) == "Origin mode test. This line should be at the bottom of the screen."
    assert all(second.row(y) == "" for y in range(1, 23))


_RENDITIONS = {
    "vanilla": (),
    "bold": ("bold",),
    "underline": ("underscore",),
    "bold underline": ("bold", "underscore"),
    "blink": ("blink",),
    "bold blink": ("bold", "blink"),
    "underline blink": ("underscore", "blink"),
    "bold underline blink": ("bold", "underscore", "blink"),
    "negative": ("reverse",),
    "bold negative": ("bold", "reverse"),
    "underline negative": ("underscore", "reverse"),
    "bold underline negative": ("bold", "underscore", "reverse"),
    "blink negative": ("blink", "reverse"),
    "bold blink negative": ("bold", "blink", "reverse"),
    "underline blink negative": ("underscore", "blink", "reverse"),
    "bold underline blink negative": ("bold", "underscore", "blink", "reverse"),
}


@pytest.mark.parametrize(
    ("menu", "title", "nth", "light"),
    [
        ("2", "Graphic rendition test pattern:", 0, False),
        ("2", "Graphic rendition test pattern:", 1, True),
        ("11.6", "Color/Graphic rendition test pattern:", 0, False),
        ("11.6", "Extended/Graphic rendition test pattern:", 0, False),
        ("11.6", "Extended/Graphic rendition test pattern:", 1, True),
    ],
)
def test_graphic_rendition_pattern_draws_each_word_in_its_rendition(
    menu: str, title: str, nth: int, light: bool
) -> None:
    """Each word of the pattern is drawn in the rendition it names, on a dark or light screen."""
    s = shot(menu, title, nth)
    assert s.reverse_video == light
    flags = ("bold", "underscore", "blink", "reverse")
    for y in range(3, 18, 2):
        line = s.text[y]
        for x in (line.index(line.strip()[:3]), 39 if y % 4 == 3 else 44):
            word = line[x:].split("  ")[0].strip()
            cell = s.cells[y][x]
            assert tuple(f for f in flags if getattr(cell, f)) == _RENDITIONS[word], (y, word)


def test_concealed_text_is_hidden() -> None:
    """ "concealed negative <- concealed text": SGR 8, and SGR 28 for what follows."""
    s = shot("11.6", "Extended/Graphic rendition test pattern:")
    y = s.find("concealed")
    assert s.cells[y][0].hidden and s.cells[y][39].hidden and s.cells[y][39].reverse
    assert not s.cells[y][s.text[y].index("<-")].hidden


def test_save_and_restore_cursor() -> None:
    """ "There should be ten characters of each flavour, and a rectangle of 5 x 4 A's filling the
    top left of the screen.\""""
    s = shot("2", "Test of the SAVE/RESTORE CURSOR feature.")
    assert [s.row(y)[:6] for y in range(4)] == ["AAAAA"] * 4
    assert s.row(4) == ""
    flavours = {
        "normal": (),
        "bold": ("bold",),
        "underscored": ("underscore",),
        "blinking": ("blink",),
        "reversed": ("reverse",),
    }
    for name, char in (("stars:", "*"), ("line:", "─"), ("x'es:", "x"), ("diamonds:", "◆")):
        y = s.find(name)
        groups = s.row(y)[len(name) :].split()
        assert groups == [char * 10] * 5, name
        starts = [s.text[y].index(group, 11 + 12 * i) for i, group in enumerate(groups)]
        for x, rendition in zip(starts, flavours.values(), strict=True):
            cell = s.cells[y][x]
            assert tuple(f for f in ("bold", "underscore", "blink", "reverse") if getattr(cell, f)) == rendition


# -- menu 3: character sets ------------------------------------------------------------------------
def test_vt100_character_sets() -> None:
    """ "These are the installed character sets": each set selected as G0 (SI) and as G1 (SO)
    draws the same; set 0 is the line-drawing set, set A (British) has £ for #."""
    s = shot("3", "Selected as G0 (with SI)")
    for y in range(3, 18):
        if s.text[y].startswith("Character set"):
            continue
        left = s.text[y][:41].strip()
        assert s.text[y][41:].strip() == left, y
    special = s.find("Character set 0")
    assert s.text[special + 3][9:41].rstrip() == "◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·"
    british = s.find("Character set A")
    assert s.text[british + 1][10:44].startswith('!"£$%')


def test_shift_in_and_shift_out() -> None:
    """ "These are the G0 and G1 character sets": G1, selected with SO, is the set designated."""
    s = shot("3", "These are the G0 and G1 character sets.")
    g1 = s.find("Selected as G1 (with SO)")
    assert s.text[g1 + 1].strip().startswith('!"£$%')
    g0 = s.find("Selected as G0 (with SI)")
    assert s.text[g0 + 1].strip().startswith('!"#$%')


@pytest.mark.parametrize("which", ["SS2", "SS3"])
def test_single_shifts(which: str) -> None:
    """Each "(x)" shows character x as G2 (SS2) or G3 (SS3) draws it, for one character only:
    the set vttest designates with ESC * A / ESC + A is the British one (£ for #)."""
    s = shot("3", f"Testing single-shift G{which[-1]} into GL ({which})")
    cells = " ".join(s.text)
    assert "35: (£)" in cells and "36: ($)" in cells and "65: (A)" in cells and "126: (~)" in cells


def test_locking_shifts_into_gl() -> None:
    """LS2 and LS3 put G2 and G3 (British, as designated) into GL until further notice."""
    s = shot("3", "Locking shifts, with NRC disabled:")
    for title in ("in G2            Maps G2 into GL (LS2)", "in G3            Maps G3 into GL (LS3)"):
        y = s.find(title)
        assert s.text[y + 1][4:36] == " !\"£$%&'()*+,-./0123456789:;<=>?"


# -- menu 8: VT102 insert and delete ----------------------------------------------------------------
@pytest.mark.parametrize(("nth", "columns"), [(0, 80), (1, 132)])
def test_accordion_of_insert_and_delete_line(nth: int, columns: int) -> None:
    """ "Screen accordion test (Insert & Delete Line)", then "Top line: A's, bottom line: X's, this
    line, nothing more.\""""
    accordion = [s for s in shots("8") if "Screen accordion test" in s.text[3]][nth]
    rows = [accordion.row(y) for y in range(24)]
    for y, row in enumerate(rows):
        if y != 3:
            assert row == chr(ord("A") + y) * columns, y
    after = [s for s in shots("8") if s.row(1).startswith("Top line: A's")][nth]
    assert after.row(0) == "A" * columns
    assert after.row(23) == "X" * columns
    assert after.row(1) == "Top line: A's, bottom line: X's, this line, nothing more. Push <RETURN>"
    assert all(after.row(y) == "" for y in range(2, 23))


@pytest.mark.parametrize(("nth", "columns"), [(0, 80), (1, 132)])
def test_insert_mode_and_delete_character(nth: int, columns: int) -> None:
    """ "The top line should be 'A*** ... ***B'." then "The top line should be 'AB'.\""""
    insert = [s for s in shots("8") if "Test of 'Insert Mode'" in s.text[3]][nth]
    assert insert.row(0) == "A" + "*" * (columns - 2) + "B"
    delete = [s for s in shots("8") if "Test of 'Delete Character'" in s.text[3]][nth]
    assert delete.row(0) == "AB"


@pytest.mark.parametrize(("nth", "columns"), [(0, 80), (1, 80), (2, 132), (3, 132)])
def test_right_column_staggered_by_one(nth: int, columns: int) -> None:
    """ "The right column should be staggered by one." (the second of each pair in double-width
    lines, each holding half as many characters)."""
    s = [s for s in shots("8") if s.text[3].startswith("The right column should be staggered")][nth]
    assert s.columns == columns
    double = nth % 2 == 1
    width = columns // 2 if double else columns
    lengths = [len(s.row(y)) for y in range(24) if y not in (3, 4)]
    assert lengths == [width - 1 - y for y in range(24) if y not in (3, 4)]
    assert all(size == DOUBLE_WIDTH for size in s.line_sizes) == double


@pytest.mark.parametrize("menu", ["8", "11.6"])
def test_insert_character(menu: str) -> None:
    """ "you should see a line like this  A B C D ... below:\""""
    s = shot(menu, "If your terminal has the ANSI 'Insert Character' function")
    assert s.row(2) == "  A B C D E F G H I J K L M N O P Q R S T U V W X Y Z"
    assert s.row(5) == s.row(2)


# -- menu 11.6: ISO 6429 colours --------------------------------------------------------------------
_COLOURS = ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]


def test_colour_pattern() -> None:
    """ "8x8 matrix of foreground/background colors", bright off then on: a column per foreground,
    a row per background."""
    s = shot("11.6", "There are 64 color combinations")
    for top, bold in ((3, False), (14, True)):
        for r, bg in enumerate(_COLOURS):
            for c, fg in enumerate(_COLOURS):
                cell = s.cells[top + r][8 + 8 * c]
                assert (cell.data, cell.fg, cell.bg, cell.bold) == ("H", fg, bg, bold)


def test_sgr_0_resets_colours() -> None:
    """ "You should see only black: … up to here", "only white", then text in the default colours."""
    s = shot("11.6", "Test SGR-0 color reset")
    black, white = s.find("You should see only black"), s.find("You should see only white")
    for y, colour in ((black, "black"), (white, "white")):
        start = s.text[y].index(":") + 1
        hidden = s.cells[y][start : s.text[y].index("up to here") - 1]
        assert {(cell.fg, cell.bg) for cell in hidden} == {(colour, colour)}
    for needle in ("SGR 0 reset works (explicit 0)", "SGR 0 reset works (default param)"):
        y = s.find(needle)
        x = s.text[y].index(needle)
        assert {(cell.fg, cell.bg) for cell in s.cells[y][x : x + len(needle)]} == {("default", "default")}


@pytest.mark.parametrize("nth", [0, 1])
def test_bce_clears_in_the_background_colour(nth: int) -> None:
    """ "The screen background should be blue, with a box made of asterisks and this caption, in
    orange (non-bold yellow). There should be no cells with the default foreground or background."
    (ED/EL, then ECH and indexing.) A blank cell's foreground cannot be seen: dsh erases with the
    background only, as tmux does (issue 11, defect 6); every character drawn is orange."""
    s = shot("11.6", "* The screen background should be blue,", nth)
    assert {cell.bg for row in s.cells for cell in row} == {"blue"}
    assert {cell.fg for row in s.cells for cell in row if cell.data != " "} == {"brown"}
    assert not any(cell.bold for row in s.cells for cell in row)


@pytest.mark.parametrize("nth", [0, 1])
def test_bce_back_to_black(nth: int) -> None:
    """ "The screen background should be black, with a box made of asterisks and this caption, in
    white (actually gray - it is not bold). Only the asterisk box should be in color.\""""
    s = shot("11.6", "* The screen background should be black,", nth)
    stars = {(cell.fg, cell.bg) for row in s.cells for cell in row if cell.data == "*"}
    assert stars == {("brown", "blue")}
    others = {(cell.fg, cell.bg) for row in s.cells for cell in row if cell.data not in "* "}
    assert others == {("white", "black")}
    assert {cell.bg for row in s.cells for cell in row if cell.data != "*"} == {"black"}


@pytest.mark.parametrize("title", ["This test inserts after every second line", "This test deletes every third line"])
def test_insert_and_delete_line_with_bce(title: str) -> None:
    """ "The foreground and background should be yellow(orange) and blue, respectively.\""""
    s = shot("11.6", title)
    assert {cell.bg for row in s.cells for cell in row} == {"blue"}
    assert {cell.fg for row in s.cells for cell in row if cell.data != " "} == {"brown"}
    rows = [s.row(y) for y in range(3, 24)]
    if "inserts" in title:
        assert rows[:4] == ["", "   row   5: this is some text", "   row   6: this is some text", "*"]
    else:
        assert rows[:4] == [
            "",
            "   row   5: this is some text",
            "   row   6: this is some text",
            "*  row   8: this is some text",
        ]


def test_protected_area() -> None:
    """ "There should be an solid box made of *'s in the middle of the screen." (SPA, then every
    kind of erase.)"""
    s = shot("11.6", "Test Protected-Areas (SPA)")
    assert [s.row(y) for y in range(4, 18)] == [" " * 19 + "*" * 40] * 14
    assert all(s.row(y) == "" for y in range(1, 4))


def test_repeat() -> None:
    """ "There should be a diagonal of 2 +'s down to the row of *'s above this message. The ++ in
    the row of *'s is the target.\""""
    s = shot("11.6", "Test Repeat (REP)")
    for y in range(17):
        assert s.row(y) == " " * (y + 1) + "++"
    assert s.row(17) == "*" * 18 + "++" + "*" * 60


def test_scroll_down_and_up() -> None:
    """ "There should be a horizontal row of *'s above, just above the message." (SD) and "…, on the
    top row." (SU)"""
    down = shot("11.6", "Test Scroll-Down (SD)")
    ruler = down.find("----+----1")
    assert down.row(ruler - 1) == "*" * 20
    assert all(down.row(y) == "" for y in range(ruler - 1))
    up = shot("11.6", "Test Scroll-Up (SU)")
    assert up.row(0) == "*" * 20
    assert all(up.row(y) == "" for y in range(1, up.find("----+----1")))
