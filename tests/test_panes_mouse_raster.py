"""The pane area's mouse raster (spans per row) answers every cell as prompt_toolkit's cell-by-cell one."""

from __future__ import annotations

import random

import pytest
from prompt_toolkit.layout.mouse_handlers import MouseHandlers

from dsh.layout.geometry import Rect
from dsh.ui import panes_view
from dsh.ui.panes_view import _set_handler

WIDTH, HEIGHT = 30, 12


def _handler(name: str):  # type: ignore[no-untyped-def]
    def handle(event: object) -> str:
        return name

    return handle


@pytest.mark.parametrize("seed", range(30))
def test_every_cell_answers_as_prompt_toolkits_raster(seed: int) -> None:
    rng = random.Random(seed)
    ours, theirs = MouseHandlers(), MouseHandlers()
    for step in range(rng.randint(1, 12)):
        x, y = rng.randrange(WIDTH), rng.randrange(HEIGHT)
        width, height = rng.randint(1, WIDTH - x), rng.randint(1, HEIGHT - y)
        handler = _handler(f"{step}")
        if rng.random() < 0.6:  # a pane or a border, through the spans
            _set_handler(ours, Rect(x, y, width, height), handler)
        else:  # any other window (a float over the panes, the chrome), cell by cell
            ours.set_mouse_handler_for_range(x, x + width, y, y + height, handler)
        theirs.set_mouse_handler_for_range(x, x + width, y, y + height, handler)
    for y in range(HEIGHT + 1):
        for x in range(WIDTH + 1):
            assert ours.mouse_handlers[y][x](None) == theirs.mouse_handlers[y][x](None), (x, y)


def test_a_frame_writes_a_span_per_row_not_a_handler_per_cell() -> None:
    handlers = MouseHandlers()
    _set_handler(handlers, Rect(0, 1, 70, 40), _handler("left"))
    _set_handler(handlers, Rect(71, 1, 69, 40), _handler("right"))
    row = handlers.mouse_handlers[5]
    assert isinstance(row, panes_view._SpanRow)
    assert len(row) == 0 and len(row.spans) == 2
    assert row[3](None) == "left" and row[100](None) == "right" and row[70](None) is NotImplemented
