"""One width table (dsh.term.widths) for the emulator, the compact rows, the view's cells and cursor and
the writer; and the emulator's cells and cursor against a real tmux for the strings users meet."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Point
from prompt_toolkit.layout.screen import Char, Screen

from dsh.term import widths
from dsh.term.rows import row_cells
from dsh.term.screen import TermScreen
from dsh.ui import screen_diff
from dsh.ui.cells import cursor_column, line_fragments
from dsh.ui.pane_window import character_columns
from dsh.ui.pane_window import row_cells as view_cells
from tests.test_screen_diff import Writer
from tests.tmuxserver import TmuxServer, tmux  # noqa: F401 (the fixture)

# What agents and shells print that terminals disagree about, each ended by a bar to show shifts.
STRINGS = [
    "e\u0301|",  # a combining accent
    "A\u26a0\ufe0fB|",  # ⚠️: a symbol and VS16
    "\u2733\ufe0f x|",  # ✳️
    "\U0001f1eb\U0001f1f7|",  # a flag: two regional indicators
    "\U0001f469\u200d\U0001f4bb|",  # a ZWJ sequence
    "\u4e2d\u6587|",  # wide characters
    "\U0001f44d\U0001f3fb|",  # a skin-tone modifier
    "#\ufe0f\u20e3|",  # a keycap
    "x\u200dy|",  # ZWJ between narrow characters joins nothing
    "\U0001f1ebx|",  # a regional indicator alone
    "a\u0301\u0302|",  # two marks
    "nb\u00a0sp|",  # a no-break space
]


@pytest.fixture(autouse=True)
def _wide_after() -> Iterator[None]:
    yield
    widths.configure("wide")


def feed(text: str, columns: int = 20, rows: int = 4) -> TermScreen:
    screen = TermScreen(columns, rows)
    screen.feed(text.encode())
    return screen


def cells(screen: TermScreen, y: int = 0) -> list[str]:
    return [cell.data for cell in screen.buffer[y]]


@pytest.mark.parametrize(
    ("text", "wide", "narrow"),
    [
        ("e\u0301", 1, 1),
        ("\u26a0\ufe0f", 2, 1),
        ("\u26a0", 1, 1),
        ("\U0001f1eb\U0001f1f7", 2, 2),
        ("\U0001f1eb", 2, 1),
        ("\U0001f469\u200d\U0001f4bb", 2, 2),
        ("\U0001f44d\U0001f3fb", 2, 4),
        ("x\u200dy", 2, 2),
        ("\u4e2d\u6587", 4, 4),
        ("ascii", 5, 5),
    ],
)
def test_text_width_in_each_style(text: str, wide: int, narrow: int) -> None:
    widths.configure("wide")
    assert widths.text_width(text) == wide
    widths.configure("narrow")
    assert widths.text_width(text) == narrow


def test_auto_is_narrow_only_inside_a_tmux_before_3_4() -> None:
    assert widths.configure("auto", {"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.3a"}) is False
    assert widths.configure("auto", {"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.2"}) is False
    assert widths.configure("auto", {"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.4"}) is True
    assert widths.configure("auto", {"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "next-3.6"}) is True
    assert widths.configure("auto", {"TERM_PROGRAM": "iTerm.app"}) is True
    assert widths.configure("auto", {}) is True
    assert widths.configure("narrow") is False


def test_the_emulator_joins_and_widens_cells_by_the_table() -> None:
    s = feed("A\u26a0\ufe0fB\U0001f1eb\U0001f1f7C\U0001f469\u200d\U0001f4bbD")
    assert cells(s)[:10] == [
        "A",
        "\u26a0\ufe0f",
        "",
        "B",
        "\U0001f1eb\U0001f1f7",
        "",
        "C",
        "\U0001f469\u200d\U0001f4bb",
        "",
        "D",
    ]
    assert s.cursor.x == 10
    widths.configure("narrow")
    s = feed("A\u26a0\ufe0fB\U0001f1eb\U0001f1f7C")
    assert cells(s)[:6] == ["A", "\u26a0\ufe0f", "B", "\U0001f1eb\U0001f1f7", "", "C"]
    assert s.cursor.x == 6


def test_vs16_on_the_last_column_stays_narrow_and_a_mark_there_is_kept() -> None:
    s = feed("x" * 19 + "\u26a0\ufe0f", columns=20)
    assert cells(s)[19] == "\u26a0\ufe0f" and s.cursor.y == 0
    s = feed("x" * 19 + "e\u0301", columns=20)
    assert cells(s)[19] == "e\u0301"


@pytest.mark.parametrize("style", ["wide", "narrow"])
def test_compact_rows_and_reads_split_anywhere_give_the_emulators_cells(style: str) -> None:
    widths.configure(style)
    rnd = random.Random(7)
    pieces = [*STRINGS, "abc", " ", "\u200d", "\ufe0f", "\U0001f1eb", "\u0301"]
    for _ in range(200):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 6)))
        whole = feed(text, columns=60)
        data = text.encode()
        slow = TermScreen(60, 4)
        for i in range(len(data)):
            slow.feed(data[i : i + 1])
        assert cells(slow) == cells(whole) and slow.cursor.x == whole.cursor.x, text
        # a line scrolled into history at once is kept compact (its text): read back, the same cells
        scrolled = feed("\r\n" * 4 + text + "\r\na\r\nb\r\nc\r\nd\r\n", columns=60)
        kept = scrolled.history[-2]
        assert type(kept) is not type(whole.buffer[0]), "the bulk path made cells"
        assert [c.data for c in row_cells(kept, 60)] == cells(whole), text


@pytest.mark.parametrize("style", ["wide", "narrow"])
def test_the_views_cells_and_cursor_follow_the_emulator(style: str) -> None:
    widths.configure(style)
    from dsh.ui.pane_window import install_widths

    install_widths()
    for text in STRINGS:
        s = feed(text + "Z", columns=30)
        row = s.buffer[0]
        fragments = line_fragments(row, 30)
        drawn = view_cells(fragments, 30)
        assert drawn is not None
        emulator = [c.data for c in row]
        shown = [c.char for c in drawn]
        # the same cells, column for column (a placeholder is prompt_toolkit's empty Char; a no-break
        # space a plain space)
        assert shown == [d.replace("\u00a0", " ") for d in emulator[: len(shown)]], text
        assert all(c.width == widths.cell_width(d) for c, d in zip(drawn, emulator, strict=False) if d), text
        # the cursor's character index lands on the cursor's column
        x = s.cursor.x - 1  # on the Z
        index = cursor_column(row, x, 30)
        assert dict(character_columns(fragments, 30))[index] == x, text
        assert Char(emulator[0]).width == widths.cell_width(emulator[0])


def test_a_no_break_space_is_drawn_as_a_plain_space() -> None:
    drawn = view_cells([("", "a\u00a0b")], 10)
    assert drawn is not None and drawn[1].char == " " and drawn[1].style == ""


# -- against tmux ----------------------------------------------------------------------------------
COLUMNS = 24


def _probe(text: str) -> bytes:
    """Row 0: the text, then a mark at column 20 (where the text's cells end shows in the spaces
    before it); row 1: the text again, the cursor after it."""
    return (text + "\x1b[20G#\r\n" + text).encode()


def test_the_emulator_draws_what_tmux_draws(tmux: TmuxServer, tmp_path: Path) -> None:  # noqa: F811
    widths.configure("auto", {"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": tmux.version()})
    probes = [*STRINGS, "x" * (COLUMNS - 1) + "e\u0301", "x" * (COLUMNS - 2) + "\u26a0\ufe0f"]
    for i, text in enumerate(probes):
        (tmp_path / f"{i}.txt").write_bytes(_probe(text))
        tmux.start(f"p{i}", f"cat {i}.txt; exec sleep 600", COLUMNS, 4, cwd=str(tmp_path))
    for i, text in enumerate(probes):
        tmux.wait(f"probe {i} drawn", lambda i=i: "#" in "".join(tmux.screen(f"p{i}")))
        tmux.wait(f"probe {i}'s cursor", lambda i=i: tmux.cursor(f"p{i}")[1] == 1)
        ours = feed(_probe(text).decode(), columns=COLUMNS)
        # (tmux drops a ZWJ that joins nothing; dsh keeps it in the cell before: both invisible)
        theirs = [line.rstrip().replace("\u200d", "") for line in tmux.screen(f"p{i}")[:2]]
        assert [line.rstrip().replace("\u200d", "") for line in ours.display[:2]] == theirs, text
        assert (ours.cursor.x, ours.cursor.y) == tmux.cursor(f"p{i}"), text


# -- the writer -----------------------------------------------------------------------------------
def _frame(text: str, cols: int) -> Screen:
    """A frame whose row 0 holds `text`'s cells as dsh makes them."""
    from dsh.ui.pane_window import install_widths

    install_widths()
    screen = Screen()
    drawn = view_cells([("", text)], cols)
    assert drawn is not None
    screen.data_buffer[0].update(enumerate(drawn))
    screen.height, screen.width = 2, cols
    screen.cursor_positions[None] = Point(x=0, y=1)  # type: ignore[index]
    return screen


@pytest.mark.parametrize("terminal", ["wide", "narrow"])
def test_whatever_width_the_terminal_gives_an_emoji_the_rest_of_the_row_stays_in_place(terminal: str) -> None:
    widths.configure("wide")  # dsh draws ⚠️ two cells wide; the terminal below may not
    writer = Writer(screen_diff.output_screen_diff, 20, 2)
    before = writer.frame(_frame("XXXXXXXXXX", 20))
    after = writer.frame(_frame("A\u26a0\ufe0fB\U0001f1eb\U0001f1f7C|", 20))
    widths.configure(terminal)
    outer = TermScreen(20, 2)
    outer.feed((before + after).encode())
    shown = outer.display[0]
    assert shown.rstrip().endswith("B\U0001f1eb\U0001f1f7C|")
    assert [c.data for c in outer.buffer[0]][3:8] == ["B", "\U0001f1eb\U0001f1f7", "", "C", "|"]
    assert "X" not in shown  # nothing stale where the terminal drew it narrower


def test_a_mark_on_the_terminals_last_column_is_written_with_autowrap_on() -> None:
    writer = Writer(screen_diff.output_screen_diff, 10, 2)
    out = writer.frame(_frame("x" * 9 + "e\u0301", 10))
    assert "\x1b[?7he\u0301\x1b[?7l" in out
