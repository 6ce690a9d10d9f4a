"""The prompt line's control: prompt_toolkit's BufferControl, its height worked out once a render."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.application.current import get_app
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType


class PromptControl(BufferControl):
    """The prompt line; a click on it puts the keyboard back on the prompt (as a click on a pane enters it)."""

    def __init__(self, on_click: Callable[[], None], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_click = on_click
        self._height: tuple[tuple[object, ...], int, int | None] | None = None

    def preferred_height(
        self, width: int, max_available_height: int, wrap_lines: bool, get_line_prefix: Any
    ) -> int | None:
        # Asked three times a frame (the chrome's split, its float, the window), each with another
        # max_available_height (40, 2, 1 at 140x40), and each time the line was run through the input
        # processors again: about a tenth of a keystroke's frame. Nothing can change the line within one
        # render, and prompt_toolkit's answer is the line's full height capped at the maximum (the line
        # count when not wrapping), so the first answer of a render serves the others unless it was
        # capped below a larger maximum asked later.
        app = get_app()
        key = (id(app), app.render_counter, width, wrap_lines, get_line_prefix)
        cached = self._height
        if cached is not None and cached[0] == key:
            asked, height = cached[1], cached[2]
            if height is None or not wrap_lines:
                return height
            if height < asked or max_available_height <= asked:
                return min(height, max_available_height)
        height = super().preferred_height(width, max_available_height, wrap_lines, get_line_prefix)
        self._height = (key, max_available_height, height)
        return height

    def mouse_handler(self, mouse_event: MouseEvent) -> Any:
        if mouse_event.event_type == MouseEventType.MOUSE_UP:
            self._on_click()
        return super().mouse_handler(mouse_event)


__all__ = ["PromptControl"]
