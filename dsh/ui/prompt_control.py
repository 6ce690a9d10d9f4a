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
        self._height: tuple[tuple[object, ...], int | None] | None = None

    def preferred_height(
        self, width: int, max_available_height: int, wrap_lines: bool, get_line_prefix: Any
    ) -> int | None:
        # Asked three times a frame (the chrome's split, its float, the window): each time the line was
        # run through the input processors again, about 9% of a keystroke's frame. Nothing can change
        # the line within one render, so the first answer of a render serves the others.
        app = get_app()
        key = (id(app), app.render_counter, width, max_available_height, wrap_lines, get_line_prefix)
        if self._height is not None and self._height[0] == key:
            return self._height[1]
        height = super().preferred_height(width, max_available_height, wrap_lines, get_line_prefix)
        self._height = (key, height)
        return height

    def mouse_handler(self, mouse_event: MouseEvent) -> Any:
        if mouse_event.event_type == MouseEventType.MOUSE_UP:
            self._on_click()
        return super().mouse_handler(mouse_event)


__all__ = ["PromptControl"]
