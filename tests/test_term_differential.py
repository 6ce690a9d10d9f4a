"""The fast TermScreen feed draws the same cells as stock pyte for the benchmark streams."""

from __future__ import annotations

import pyte
import pytest

from bench.streams import COLS, ROWS, STREAMS
from dsh.term.screen import TermScreen

_PYTE_FIELDS = len(pyte.screens.Char._fields)


def _feed_both(data: bytes, chunk: int) -> tuple[pyte.Screen, TermScreen]:
    ref = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(ref)
    mine = TermScreen(COLS, ROWS)
    for i in range(0, len(data), chunk):
        stream.feed(data[i:i + chunk])
        mine.feed(data[i:i + chunk])
    return ref, mine


@pytest.mark.parametrize("chunk", [65536, 997])
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_cells_and_cursor_match_stock_pyte(name: str, chunk: int) -> None:
    data = STREAMS[name](60_000)
    if name == "frames":
        # Stock pyte has no alternate screen: compare while the frames are still showing.
        data = data[: data.rindex(b"\x1b[?25h\x1b[?1049l")]
    ref, mine = _feed_both(data, chunk)
    diffs = [
        (y, x, tuple(ref.buffer[y][x]), tuple(mine.buffer[y][x])[:_PYTE_FIELDS])
        for y in range(ROWS)
        for x in range(COLS)
        if tuple(ref.buffer[y][x]) != tuple(mine.buffer[y][x])[:_PYTE_FIELDS]
    ]
    assert diffs == []
    assert (mine.cursor.x, mine.cursor.y) == (ref.cursor.x, ref.cursor.y)
    assert tuple(mine.cursor.attrs)[:_PYTE_FIELDS] == tuple(ref.cursor.attrs)
    assert mine.display == ref.display
    assert any(line.strip() for line in mine.display)
