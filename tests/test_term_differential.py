"""The fast TermScreen draws the same cells as stock pyte for the benchmark streams (less the two
behaviours dsh corrects on purpose, see bench/reference.py)."""

from __future__ import annotations

import pyte
import pytest

from bench.reference import FIELDS, ReferenceScreen, differences
from bench.streams import COLS, ROWS, STREAMS
from dsh.term.screen import TermScreen


def _feed_both(data: bytes, chunk: int) -> tuple[pyte.Screen, TermScreen]:
    ref = ReferenceScreen(COLS, ROWS)
    stream = pyte.ByteStream(ref)
    mine = TermScreen(COLS, ROWS)
    for i in range(0, len(data), chunk):
        stream.feed(data[i : i + chunk])
        mine.feed(data[i : i + chunk])
    return ref, mine


@pytest.mark.parametrize("chunk", [65536, 997])
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_cells_and_cursor_match_stock_pyte(name: str, chunk: int) -> None:
    data = STREAMS[name](60_000)
    if name == "frames":
        # Stock pyte has no alternate screen: compare while the frames are still showing.
        data = data[: data.rindex(b"\x1b[?25h\x1b[?1049l")]
    ref, mine = _feed_both(data, chunk)
    assert differences(ref, mine, ROWS, COLS) == []
    assert (mine.cursor.x, mine.cursor.y) == (ref.cursor.x, ref.cursor.y)
    assert tuple(mine.cursor.attrs)[:FIELDS] == tuple(ref.cursor.attrs)
    assert any(line.strip() for line in mine.display)


def test_the_reference_differs_from_pyte_only_where_dsh_corrects_it() -> None:
    """The corrections are real: stock pyte paints a reverse tail after ESC[7m ESC[K, the
    reference (and dsh) do not; everything else in the frames stream is identical."""
    data = STREAMS["frames"](60_000)
    data = data[: data.rindex(b"\x1b[?25h\x1b[?1049l")]
    stock = pyte.Screen(COLS, ROWS)
    pyte.ByteStream(stock).feed(data)
    ref, _ = _feed_both(data, 65536)
    diffs = differences(stock, ref, ROWS, COLS)
    assert diffs and all(a[7] and not b[7] and a[0] == " " for _, _, a, b in diffs)
