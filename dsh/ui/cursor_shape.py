"""The user's terminal's cursor shape follows the focused pane's program (DECSCUSR: vim's insert bar)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.cursor_shapes import CursorShape, CursorShapeConfig

# DECSCUSR's parameter to prompt_toolkit's shapes (0, the terminal's own default, is a reset).
SHAPES = {
    1: CursorShape.BLINKING_BLOCK,
    2: CursorShape.BLOCK,
    3: CursorShape.BLINKING_UNDERLINE,
    4: CursorShape.UNDERLINE,
    5: CursorShape.BLINKING_BEAM,
    6: CursorShape.BEAM,
}


class PaneCursorShape(CursorShapeConfig):
    """`shape()` is the DECSCUSR value of the pane the keys go to (0 when they go to dsh's prompt)."""

    def __init__(self, shape: Callable[[], int]) -> None:
        self._shape = shape

    def get_cursor_shape(self, application: Any) -> CursorShape:
        found = SHAPES.get(self._shape())
        if found is not None:
            return found
        # The terminal's own shape again: prompt_toolkit's output resets it only when it ends, so it is
        # reset here (when it was changed), and nothing is set.
        application.output.reset_cursor_shape()
        return CursorShape._NEVER_CHANGE
