"""A prompt_toolkit UIControl that shows one Terminal; the layout's size becomes the child's size."""

from __future__ import annotations

import time
from collections.abc import Callable

from prompt_toolkit.data_structures import Point
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

from dsh.term.terminal import Terminal
from dsh.ui.cells import cursor_column, line_fragments

__all__ = ["WHEEL_LINES", "TerminalControl"]

WHEEL_LINES = 3

_BUTTONS = {MouseButton.LEFT: 0, MouseButton.MIDDLE: 1, MouseButton.RIGHT: 2}


class TerminalControl(UIControl):
    """Draws `terminal` (with its scroll offset and search match) and handles the mouse.

    It has no key bindings on purpose: the application routes keys (its prefix key first),
    and a pane-level catch-all binding would shadow the application's."""

    def __init__(
        self,
        terminal: Terminal,
        *,
        on_click: Callable[[], None] | None = None,
        refresh_interval: Callable[[], float] | None = None,
    ) -> None:
        self.terminal = terminal
        self.on_click = on_click
        # Seconds a drawn frame may be reused (0: always fresh). The app gives background panes a
        # few frames a second, so a flood there costs little drawing and never delays keystrokes.
        self.refresh_interval = refresh_interval
        self._cached: tuple[float, int, int, UIContent] | None = None

    def is_focusable(self) -> bool:
        return True

    def create_content(self, width: int, height: int) -> UIContent:
        interval = self.refresh_interval() if self.refresh_interval is not None else 0.0
        now = time.monotonic()
        cached = self._cached
        if interval > 0 and cached is not None and cached[1:3] == (width, height) and now - cached[0] < interval:
            return cached[3]
        content = self._fresh_content(width, height, frozen=interval > 0)
        self._cached = (now, width, height, content) if interval > 0 else None
        return content

    def _fresh_content(self, width: int, height: int, *, frozen: bool) -> UIContent:
        term = self.terminal
        if width > 0 and height > 0 and (height, width) != (term.rows, term.cols):
            term.resize(height, width)
        height = max(1, height)
        lines = term.visible_lines(height)
        columns = term.cols
        match = term.match_in_view(height)
        selection = term.copy.view_rows(height) if term.copy is not None else None
        reverse = term.screen.reverse_video

        drawn: dict[int, list[tuple[str, str]]] = {}  # prompt_toolkit may ask for a line twice

        def get_line(i: int) -> list[tuple[str, str]]:
            fragments = drawn.get(i)
            if fragments is None:
                if not 0 <= i < len(lines):
                    return []
                highlight = (match[1], match[2]) if match is not None and match[0] == i else None
                fragments = line_fragments(lines[i], columns, highlight=highlight, reverse_screen=reverse)
                if selection is not None and selection[0] <= i <= selection[1]:
                    fragments = _marked(fragments, columns, cursor=i == selection[2])
                drawn[i] = fragments
            return fragments

        cursor = term.cursor_in_view(height)
        if cursor is None:
            position = Point(x=0, y=height - 1)
            show = False
        else:
            x, y = cursor
            position = Point(x=cursor_column(lines[y], x, columns), y=y)
            show = term.scroll_offset == 0 and term.screen.cursor_visible and term.copy is None
        if frozen:
            # A reused frame must not change under prompt_toolkit as the screen's rows move on.
            for i in range(len(lines)):
                get_line(i)
        return UIContent(get_line=get_line, line_count=len(lines), cursor_position=position,
                         show_cursor=show)

    def mouse_handler(self, mouse_event: MouseEvent) -> None:
        term = self.terminal
        kind = mouse_event.event_type
        x, y = mouse_event.position.x, mouse_event.position.y
        if term.mouse_tracking and term.scroll_offset == 0:
            if kind == MouseEventType.SCROLL_UP:
                term.send_mouse(64, x, y)
            elif kind == MouseEventType.SCROLL_DOWN:
                term.send_mouse(65, x, y)
            elif kind == MouseEventType.MOUSE_DOWN:
                term.send_mouse(_BUTTONS.get(mouse_event.button, 0), x, y)
                self._clicked()
            elif kind == MouseEventType.MOUSE_UP:
                term.send_mouse(_BUTTONS.get(mouse_event.button, 0), x, y, release=True)
            elif kind == MouseEventType.MOUSE_MOVE and term.screen.has_private_mode(1002):
                term.send_mouse(_BUTTONS.get(mouse_event.button, 0), x, y, motion=True)
            return None
        if kind in (MouseEventType.SCROLL_UP, MouseEventType.SCROLL_DOWN):
            up = kind == MouseEventType.SCROLL_UP
            if term.alternate_screen:
                # A pager or editor without mouse reporting: the wheel moves it (xterm's alternateScroll).
                for _ in range(WHEEL_LINES):
                    term.send_key("up" if up else "down")
            else:
                term.scroll_by(WHEEL_LINES if up else -WHEEL_LINES)
        elif kind == MouseEventType.MOUSE_UP:
            self._clicked()
        return None

    def _clicked(self) -> None:
        if self.on_click is not None:
            self.on_click()


def _marked(fragments: list[tuple[str, str]], columns: int, *, cursor: bool) -> list[tuple[str, str]]:
    """A copy-mode line: selected (and the cursor line marked), padded so even a blank line shows."""
    mark = " class:copy.cursor" if cursor else " class:copy.selection"
    width = sum(len(text) for _, text in fragments)
    out = [(style + mark, text) for style, text in fragments]
    if width < columns:
        out.append((mark.strip(), " " * (columns - width)))
    return out
