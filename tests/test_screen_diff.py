"""The diff by rows (ui/screen_diff.py) leaves the terminal as prompt_toolkit's own diff does.

Random sequences of frames are written by both diffs; each byte stream is fed to its own pyte screen
(a terminal nobody here wrote). After every frame each cell must show what a full redraw of that frame
shows wherever prompt_toolkit's diff gets it right (both leave the right half of a wide character that
a narrow one overwrote to the terminal; the row diff rewrites more cells, so it can only be right more
often), with the same cursor. The row diff must also write less: one write per run of a style, not one
per cell.
"""

from __future__ import annotations

import io
import random
from types import SimpleNamespace

import prompt_toolkit.renderer as pt_renderer
import pyte
import pytest
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.layout.screen import Char, Screen
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.styles import DummyStyleTransformation, Style

from dsh.ui import screen_diff

STYLES = ["", "[transparent]", "fg:ansired", "bg:ansiblue", "bold", "reverse", "fg:#ffaa00 bg:#003366", "underline"]
CHARS = "abcxyz .-|#中"  # 中 is two columns wide


def random_screen(rng: random.Random, cols: int, rows: int, base: Screen | None) -> Screen:
    """A frame: mostly the last one's rows (the very Char objects, as an unchanged pane row is), some
    rows rewritten, some shortened or blank, now and then a zero-width escape."""
    screen = Screen()
    for y in range(rows):
        if base is not None and y in base.data_buffer and rng.random() < 0.6:
            screen.data_buffer[y].update(base.data_buffer[y])
            continue
        length = rng.choice([0, rng.randrange(cols), cols])
        x = 0
        style = rng.choice(STYLES)
        while x < length:
            if rng.random() < 0.2:
                style = rng.choice(STYLES)
            char = Char(rng.choice(CHARS), style)
            screen.data_buffer[y][x] = char
            if rng.random() < 0.02:
                screen.zero_width_escapes[y][x] = "\x1b]8;;http://x/\x1b\\"
            x += char.width or 1
    screen.height = rows
    screen.width = cols
    screen.cursor_positions[None] = Point(x=rng.randrange(cols), y=rng.randrange(rows))  # type: ignore[index]
    return screen


class Writer:
    """One diff function driven as prompt_toolkit's Renderer drives it, frame after frame."""

    def __init__(self, diff: object, cols: int, rows: int) -> None:
        self.diff = diff
        self.sink = io.StringIO()
        self.size = Size(rows=rows, columns=cols)
        self.output = Vt100_Output(self.sink, lambda: self.size, term="xterm-256color")
        style = Style.from_dict({})
        self.attrs = pt_renderer._StyleStringToAttrsCache(style.get_attrs_for_style_str, DummyStyleTransformation())
        self.has_style = pt_renderer._StyleStringHasStyleCache(self.attrs)
        self.pos = Point(x=0, y=0)
        self.last_style: str | None = None
        self.previous: Screen | None = None
        self.previous_width = cols
        self.app = SimpleNamespace(layout=SimpleNamespace(current_window=None))
        self.writes = 0
        plain_write = self.output.write

        def counted(data: str) -> None:
            self.writes += 1
            plain_write(data)

        self.output.write = counted  # type: ignore[method-assign]

    def frame(self, screen: Screen, *, done: bool = False) -> str:
        self.pos, self.last_style = self.diff(  # type: ignore[operator]
            self.app,
            self.output,
            screen,
            self.pos,
            ColorDepth.DEPTH_24_BIT,
            self.previous,
            self.last_style,
            done,
            True,
            self.attrs,
            self.has_style,
            self.size,
            self.previous_width,
        )
        self.previous = screen
        self.previous_width = self.size.columns
        self.output.flush()
        text = self.sink.getvalue()
        self.sink.seek(0)
        self.sink.truncate()
        return text


def cells(screen: pyte.Screen) -> dict[tuple[int, int], tuple[object, ...]]:
    return {(x, y): tuple(screen.buffer[y][x]) for y in range(screen.lines) for x in range(screen.columns)}


def copy_of(screen: Screen) -> Screen:
    """A frame of its own for each diff: prompt_toolkit's reads insert blank cells into the frames."""
    twin = Screen()
    for y, row in screen.data_buffer.items():
        twin.data_buffer[y].update(row)
    for y, row in screen.zero_width_escapes.items():
        twin.zero_width_escapes[y].update(row)
    twin.height, twin.width, twin.cursor_positions = screen.height, screen.width, dict(screen.cursor_positions)
    return twin


def full_redraw(screen: Screen, cols: int, rows: int) -> dict[tuple[int, int], tuple[object, ...]]:
    """What the terminal should show: the frame drawn whole on a blank terminal."""
    term = pyte.Screen(cols, rows)
    pyte.Stream(term).feed(Writer(screen_diff._STOCK, cols, rows).frame(copy_of(screen)))
    return cells(term)


def test_the_stock_diff_is_the_one_it_was_written_against() -> None:
    # install() would keep prompt_toolkit's diff otherwise; this says so when prompt_toolkit moves on.
    import inspect

    assert tuple(inspect.signature(screen_diff._STOCK).parameters) == screen_diff.PARAMETERS


@pytest.mark.parametrize("seed", range(40))
def test_random_frames_leave_the_terminal_as_the_stock_diff_does(seed: int) -> None:
    rng = random.Random(seed)
    cols, rows = rng.choice([(20, 6), (41, 9), (80, 12)])
    stock = Writer(screen_diff._STOCK, cols, rows)
    ours = Writer(screen_diff.output_screen_diff, cols, rows)
    term_stock, term_ours = pyte.Screen(cols, rows), pyte.Screen(cols, rows)
    feed_stock, feed_ours = pyte.Stream(term_stock), pyte.Stream(term_ours)
    screen: Screen | None = None
    for _ in range(12):
        screen = random_screen(rng, cols, rows, screen)
        truth = full_redraw(screen, cols, rows)
        feed_stock.feed(stock.frame(copy_of(screen)))
        feed_ours.feed(ours.frame(screen))
        stock_right = {at for at, cell in cells(term_stock).items() if cell == truth[at]}
        ours_right = {at for at, cell in cells(term_ours).items() if cell == truth[at]}
        assert stock_right <= ours_right
        assert (term_ours.cursor.x, term_ours.cursor.y) == (term_stock.cursor.x, term_stock.cursor.y)
        assert (ours.pos, ours.last_style) == (stock.pos, stock.last_style)


def test_a_changed_row_is_written_a_run_at_a_time() -> None:
    cols, rows = 80, 10
    stock = Writer(screen_diff._STOCK, cols, rows)
    ours = Writer(screen_diff.output_screen_diff, cols, rows)

    def frame(n: int) -> Screen:
        screen = Screen()
        for y in range(rows):
            for x in range(cols):
                screen.data_buffer[y][x] = Char("0123456789"[(x + y + n) % 10], "fg:ansigreen")
        screen.height, screen.width = rows, cols
        return screen

    for writer in (stock, ours):
        writer.frame(frame(0))
        writer.writes = 0
        writer.frame(frame(1))  # every cell changed, one style
    assert ours.writes <= 2 * rows + 4  # a move and a run a row
    assert stock.writes >= rows * cols


def test_install_puts_the_row_diff_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pt_renderer, "_output_screen_diff", screen_diff._STOCK)
    assert screen_diff.install()
    assert pt_renderer._output_screen_diff is screen_diff.output_screen_diff


def test_a_change_under_a_wide_character_rewrites_the_character() -> None:
    # The last frame had a cell under the right half of 中 (a float drawn there, say); this one has
    # none. prompt_toolkit's diff steps over the covered cell; the row diff compares it, and must write
    # from 中 rather than put a blank in its right half.
    cols, rows = 10, 2
    truth_term = pyte.Screen(cols, rows)
    writer = Writer(screen_diff.output_screen_diff, cols, rows)
    term = pyte.Screen(cols, rows)
    stream = pyte.Stream(term)
    before, after = Screen(), Screen()
    for screen, under in ((before, True), (after, False)):
        for x, char in enumerate("ab中"):
            screen.data_buffer[0][x] = Char(char, "")
        screen.data_buffer[0][4] = Char("z", "")  # the same last column: no erase of the row's end
        if under:
            screen.data_buffer[0][3] = Char("y", "")
        screen.height, screen.width = rows, cols
        stream.feed(writer.frame(screen))
    pyte.Stream(truth_term).feed(Writer(screen_diff._STOCK, cols, rows).frame(copy_of(after)))
    assert cells(term) == cells(truth_term)


def test_a_row_that_is_a_plain_dict_reads_as_blank_where_unwritten() -> None:
    cols, rows = 12, 2
    writer = Writer(screen_diff.output_screen_diff, cols, rows)
    term = pyte.Screen(cols, rows)
    stream = pyte.Stream(term)
    first, second = Screen(), Screen()
    first.data_buffer[0] = {0: Char("a", ""), 1: Char("b", "")}  # type: ignore[assignment]
    second.data_buffer[0] = {0: Char("a", ""), 2: Char("c", "")}  # type: ignore[assignment]
    for screen in (first, second):
        screen.height, screen.width = rows, cols
        stream.feed(writer.frame(screen))
    assert term.display[0].rstrip() == "a c"


@pytest.mark.parametrize("seed", range(10))
def test_the_last_frame_at_exit_leaves_the_terminal_as_the_stock_diff_does(seed: int) -> None:
    # When the application ends, prompt_toolkit draws once more "as done": everything again from the
    # top, then the cursor below the frame, with autowrap back on.
    rng = random.Random(1000 + seed)
    cols, rows = 30, 8
    stock = Writer(screen_diff._STOCK, cols, rows)
    ours = Writer(screen_diff.output_screen_diff, cols, rows)
    term_stock, term_ours = pyte.Screen(cols, rows), pyte.Screen(cols, rows)
    screen: Screen | None = None
    for n in range(4):
        screen = random_screen(rng, cols, rows, screen)
        done = n == 3
        pyte.Stream(term_stock).feed(stock.frame(copy_of(screen), done=done))
        pyte.Stream(term_ours).feed(ours.frame(screen, done=done))
    assert cells(term_ours) == cells(term_stock)
    assert (term_ours.cursor.x, term_ours.cursor.y) == (term_stock.cursor.x, term_stock.cursor.y)
    assert ours.pos == stock.pos
