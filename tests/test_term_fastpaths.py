"""The fast paths (lines scrolled in as compact rows, whole rows kept as sent, runs drawn in one
slice) give exactly the cells that drawing one byte at a time gives."""

from __future__ import annotations

import random
from collections.abc import Callable

from dsh.term.rows import row_cells
from dsh.term.screen import TermScreen

_SGRS = [
    "\x1b[0m",
    "\x1b[m",
    "\x1b[1;31m",
    "\x1b[44m",
    "\x1b[38;5;208m",
    "\x1b[48;2;1;2;3m",
    "\x1b[7m",
    "\x1b[4:3m",
    "\x1b[0;1m",
    "\x1b[38;5;1m",
    "\x1b[22m",
]
_TEXT = ["word", "a much longer piece of text", "x", " ", "日本", "e\u0301", "👍", "│", "ünï", "\u200d"]


def _line(rnd: random.Random, cols: int) -> str:
    parts = []
    for _ in range(rnd.randint(0, 8)):
        roll = rnd.random()
        if roll < 0.3:
            parts.append(rnd.choice(_SGRS))
        elif roll < 0.4:
            parts.append("\x1b[K")
        else:
            parts.append(rnd.choice(_TEXT) * rnd.choice((1, 1, 1, 3, cols // 4)))
    return "".join(parts)


def _stream(rnd: random.Random, cols: int, rows: int) -> bytes:
    out = []
    for _ in range(rnd.randint(5, 60)):
        roll = rnd.random()
        if roll < 0.15:  # a full-screen program redrawing a row
            out.append(f"\x1b[{rnd.randint(1, rows)};1H{_line(rnd, cols)}\x1b[K")
        elif roll < 0.2:
            out.append(f"\x1b[{rnd.randint(1, rows)};{rnd.randint(1, cols)}H")
        elif roll < 0.25:
            out.append(
                rnd.choice(
                    (
                        "\x1b[2J",
                        "\x1b[?1049h",
                        "\x1b[?1049l",
                        "\x1b[3;5r",
                        "\x1b[r",
                        "\x1b[L",
                        "\x1b[2M",
                        "\x1b[3@",
                        "\x1b[2P",
                        "\x1b[5X",
                        "\r",
                        "\n",
                        "\t",
                        "\x1b[A",
                    )
                )
            )
        else:
            out.append(_line(rnd, cols) + "\r\n" * rnd.choice((1, 1, 2)))
    return "".join(out).encode()


def _state(s: TermScreen) -> tuple:
    cols = s.columns
    history = [(list(row_cells(r, cols)), row_cells(r, cols).wrapped) for r in s.history]
    screen = [(list(r), r.wrapped) for r in s.buffer]
    return history, screen, (s.cursor.x, s.cursor.y), s.cursor.attrs, s.history_pushed


def _check_against_one_byte_at_a_time(
    make: Callable[[random.Random, int, int], bytes], rnd: random.Random, count: int
) -> None:
    """`count` random streams from `make`, fed whole and a byte at a time: the same screens."""
    for _ in range(count):
        cols, rows = rnd.randint(4, 40), rnd.randint(2, 12)
        data = make(rnd, cols, rows)
        whole = TermScreen(cols, rows, scrollback=300)
        whole.feed(data)
        slow = TermScreen(cols, rows, scrollback=300)
        for i in range(len(data)):
            slow.feed(data[i : i + 1])
        assert _state(whole) == _state(slow), data


def test_fast_paths_draw_what_one_byte_at_a_time_draws() -> None:
    _check_against_one_byte_at_a_time(_stream, random.Random(11), 150)


def test_rows_scrolled_by_in_bulk_are_never_made_into_cells() -> None:
    s = TermScreen(20, 5, scrollback=1000)
    s.feed(b"".join(b"line %d \x1b[31mred\x1b[0m\r\n" % i for i in range(500)))
    assert {type(row).__name__ for row in s.history} == {"Row", "Raw"}
    assert sum(type(row).__name__ == "Row" for row in s.history) <= 5  # only rows that had been on screen
    assert {type(row).__name__ for row in s.screen_rows()[:-1]} == {"Raw"}  # nobody has read them yet
    assert s.buffer[0][9].fg == "red"  # reading the screen gives them cells
    assert {type(row).__name__ for row in s.screen_rows()} == {"Row"}


def test_a_row_redrawn_whole_keeps_no_cells_until_read() -> None:
    s = TermScreen(20, 3)
    s.feed(b"\x1b[?1049h")
    for frame in range(50):
        s.feed(b"\x1b[2;1H\x1b[1mframe\x1b[0m %d\x1b[K" % frame)
    assert type(s.screen_rows()[1]).__name__ == "Raw"
    assert s.display[1].rstrip() == "frame 49"
    assert s.buffer[1][0].bold and not s.buffer[1][6].bold
    assert (s.cursor.x, s.cursor.y) == (8, 1)


def test_rewrapping_compact_rows_gives_what_rewrapping_cells_gives() -> None:
    """History kept compact (as sent) and history kept as cells rewrap to the same rows."""
    rnd = random.Random(5)
    for _ in range(60):
        cols, rows = rnd.randint(6, 30), rnd.randint(2, 8)
        data = b"".join(_line(rnd, cols).encode() + b"\r\n" for _ in range(rnd.randint(5, 40)))
        whole = TermScreen(cols, rows, scrollback=500)
        whole.feed(data)
        slow = TermScreen(cols, rows, scrollback=500)
        for i in range(len(data)):
            slow.feed(data[i : i + 1])
        for width in (rnd.randint(3, 40), rnd.randint(3, 40), cols):
            whole.resize(columns=width)
            slow.resize(columns=width)
            assert _state(whole) == _state(slow), (data, width)


def _frame(rnd: random.Random, cols: int, rows: int) -> bytes:
    """Rows redrawn one after another, as a full-screen program sends a frame, with what makes a
    row leave the quick way now and then (too long, wide text, a double-width row, origin mode)."""
    out = []
    for _ in range(rnd.randint(1, 3 * rows)):
        roll = rnd.random()
        if roll < 0.05:
            out.append(
                rnd.choice(("\x1b#6", "\x1b#5", "\x1b[?6h", "\x1b[?6l", "\x1b[2;4r", "\x1b[r", "\x1b(0", "\x1b(B"))
            )
        row = f"\x1b[{rnd.randint(0, rows + 1)};1H{_line(rnd, cols)}\x1b[K"
        out.append(row + rnd.choice(("", "", "\x1b[0m", "\x1b[1;32m")))
    return "".join(out).encode()


def test_a_frame_of_rows_draws_what_one_byte_at_a_time_draws() -> None:
    _check_against_one_byte_at_a_time(_frame, random.Random(23), 200)


def test_only_the_last_row_of_a_frame_is_measured() -> None:
    """A row followed by another row's CUP is kept as sent without working out its width (the
    cursor's column after it is never needed); the last row sets the cursor."""
    s = TermScreen(30, 5)
    s.feed(b"\x1b[?1049h")
    s.feed(b"".join(b"\x1b[%d;1H\x1b[1mrow\x1b[0m %d\x1b[K" % (y, y) for y in range(1, 6)))
    kept = s.screen_rows()
    assert [type(row).__name__ for row in kept] == ["Raw"] * 5
    assert [row.width for row in kept[:-1]] == [-1] * 4
    assert (s.cursor.x, s.cursor.y) == (5, 4)
    assert s.display[2].rstrip() == "row 3" and s.buffer[2][0].bold and not s.buffer[2][3].bold


def test_every_control_inside_text_does_what_it_does_on_its_own() -> None:
    """A control in the middle of a run of text (ASCII or not) ends the run there, whichever it is."""
    for code in [*range(0x20), 0x7F, *range(0x80, 0xA0)]:
        control = chr(code)
        for text in ("tab\there ", "wide 日本 "):
            data = f"ab\x1b[1mcd {text}{control}ef\x1b[0m gh\r\n\x1b[Hij{control}kl\r\n".encode() * 3
            whole = TermScreen(12, 4, scrollback=20)
            whole.feed(data)
            slow = TermScreen(12, 4, scrollback=20)
            for i in range(len(data)):
                slow.feed(data[i : i + 1])
            assert _state(whole) == _state(slow), (hex(code), text)


def test_long_plain_lines_wrap_as_drawn_one_byte_at_a_time() -> None:
    """Plain ASCII lines of every length around multiples of the width, scrolled in together."""
    rnd = random.Random(3)
    for cols in (1, 5, 12):
        lengths = [n for k in range(4) for n in (k * cols - 1, k * cols, k * cols + 1) if n >= 0]
        rnd.shuffle(lengths)
        data = "".join("".join(rnd.choice("abc xyz") for _ in range(n)) + "\r\n" for n in lengths).encode()
        whole = TermScreen(cols, 3, scrollback=100)
        whole.feed(data)
        assert any(type(row).__name__ == "Packed" and row.wrapped for row in whole.history)
        slow = TermScreen(cols, 3, scrollback=100)
        for i in range(len(data)):
            slow.feed(data[i : i + 1])
        assert _state(whole) == _state(slow), (cols, data)
