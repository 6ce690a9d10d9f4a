"""A prompt_toolkit UIControl that shows one Terminal; the layout's size becomes the child's size."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.application.current import get_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType, MouseModifier

from dsh.term.selection import CHAR, LINE, LineCells, Pos, Selection, char_class
from dsh.term.terminal import Terminal
from dsh.ui.cells import cursor_column, line_fragments, marked
from dsh.ui.pane_colours import PaneColours

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

__all__ = ["WHEEL_LINES", "TerminalControl"]

WHEEL_LINES = 3
# Presses on one cell this close together count as a double (then triple) click.
MULTI_CLICK_SECONDS = 0.4

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
        on_copy: Callable[[str, bool], None] | None = None,
    ) -> None:
        self.terminal = terminal
        self.on_click = on_click
        # What a mouse selection copies, and whether it is whole lines, when the button comes up.
        self.on_copy = on_copy
        self.selection: Selection | None = None  # a mouse selection being dragged (copy mode has its own)
        self._pressed: Pos | None = None  # where the left button went down, while it is down
        self._selecting = False
        self._last_press: tuple[float, Pos, int] | None = None  # (when, where, clicks so far)
        # Seconds a drawn frame may be reused (0: always fresh). The app gives background panes a
        # few frames a second, so a flood there costs little drawing and never delays keystrokes.
        self.refresh_interval = refresh_interval
        self._cached: tuple[float, int, int, UIContent, int] | None = None  # (when, size, frame, bytes fed)
        self._redraw_pending = False
        self._same: tuple[object, UIContent] | None = None  # (what it was drawn from, the frame)
        self._colours = PaneColours()  # the program's own palette and default colours, once it sets some

    def is_focusable(self) -> bool:
        return True

    def create_content(self, width: int, height: int) -> UIContent:
        interval = self.refresh_interval() if self.refresh_interval is not None else 0.0
        now = time.monotonic()
        cached = self._cached
        fed = self.terminal.fed
        if (
            interval > 0
            and cached is not None
            and cached[1:3] == (width, height)
            and now - cached[0] < interval
            and self._pressed is None
        ):
            if cached[4] != fed:
                self._redraw_later(cached[0] + interval - now)
            return cached[3]
        key = self._unchanged_key(width, height) if interval <= 0 else None
        if key is not None and self._same is not None and self._same[0] == key:
            # Nothing about this pane changed since its last frame (a key typed on the prompt, another
            # pane's output): the same lines, not made again.
            return self._same[1]
        content = self._fresh_content(width, height, frozen=interval > 0 or key is not None)
        self._cached = (now, width, height, content, fed) if interval > 0 else None
        self._same = (key, content) if key is not None else None
        return content

    def _unchanged_key(self, width: int, height: int) -> tuple[object, ...] | None:
        """What the drawn frame depends on, when it can be told without drawing; None while a copy-mode
        cursor, a selection or a search match is shown (those are drawn fresh each time)."""
        term = self.terminal
        if (
            term.copy is not None
            or self.selection is not None
            or self._pressed is not None
            or term.search_match is not None
        ):
            return None
        screen = term.screen
        cursor = screen.cursor
        return (
            width,
            height,
            term.fed,
            term.rows,
            term.cols,
            term.scroll_offset,
            cursor.x,
            cursor.y,
            screen.cursor_visible,
            screen.reverse_video,
            screen.alternate_screen,
            term.running,
        )

    def redraw_when_due(self, invalidate: Callable[[], None]) -> bool:
        """The pane printed while this control shows a reused frame: have `invalidate` called when
        that frame may be replaced, and not before (True). False when no such frame is held: draw now.

        `invalidate` is the view's own: output arrives outside the application's context, where
        prompt_toolkit's `get_app()` is a dummy."""
        cached = self._cached
        if cached is None or self.refresh_interval is None:
            return False
        left = cached[0] + self.refresh_interval() - time.monotonic()
        if left <= 0:
            return False
        self._redraw_later(left, invalidate)
        return True

    def _redraw_later(self, delay: float, invalidate: Callable[[], None] | None = None) -> None:
        """A reused frame is older than the pane's output: draw again once it may be replaced, or that
        output would wait for whatever redraws next (a key press), however long that is."""
        if self._redraw_pending:
            return
        try:
            if invalidate is None:
                invalidate = get_app().invalidate
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._redraw_pending = True
        then = invalidate

        def redraw() -> None:
            self._redraw_pending = False
            then()

        loop.call_later(max(0.0, delay), redraw)

    def _fresh_content(self, width: int, height: int, *, frozen: bool) -> UIContent:
        term = self.terminal
        if width > 0 and height > 0 and (height, width) != (term.rows, term.cols):
            term.resize(height, width)
        height = max(1, height)
        lines = term.visible_lines(height)
        columns = term.cols
        match = term.match_in_view(height)
        copy = term.copy
        if copy is not None:
            spans, mark = copy.view_spans(height), copy.cursor_in_view(height)
        elif self.selection is not None:
            spans, mark = self.selection.view_spans(term.line_at(0, height), height, columns), None
        else:
            spans, mark = {}, None
        reverse = term.screen.reverse_video
        screen = term.screen
        colour_sets = screen.colour_sets  # (empty but for a program that set colours: then drawn in them)

        if mark is not None:
            position = Point(x=cursor_column(lines[mark[1]], mark[0], columns), y=mark[1])
            show = True
        else:
            cursor = term.cursor_in_view(height)
            if cursor is None:
                position = Point(x=0, y=height - 1)
                show = False
            else:
                x, y = cursor
                position = Point(x=cursor_column(lines[y], x, columns), y=y)
                show = term.scroll_offset == 0 and term.screen.cursor_visible and copy is None

        drawn: dict[int, list[tuple[str, str]]] = {}  # prompt_toolkit may ask for a line twice

        def get_line(i: int) -> list[tuple[str, str]]:
            fragments = drawn.get(i)
            if fragments is None:
                if not 0 <= i < len(lines):
                    return []
                line = lines[i]
                highlight = (match[1], match[2]) if match is not None and match[0] == i else None
                fragments = line_fragments(line, columns, highlight=highlight, reverse_screen=reverse)
                if colour_sets:
                    fragments = self._colours.fragments(fragments, colour_sets, screen.colours_set, columns)
                span = spans.get(i)
                if span is not None:
                    fragments = marked(
                        fragments,
                        cursor_column(line, span[0], columns),
                        cursor_column(line, span[1], columns),
                        "class:copy.selection",
                    )
                if mark is not None and mark[1] == i:
                    at = cursor_column(line, mark[0], columns)
                    fragments = marked(fragments, at, at + 1, "class:copy.cursor")
                if i == position.y:
                    # prompt_toolkit puts a cursor only on a character of the row's fragments (else
                    # at the window's top-left), and a row stops at its last character: pad the
                    # cursor's row up to the cursor.
                    length = sum(len(text) for _, text, *_ in fragments)
                    if position.x >= length:
                        fragments = [*fragments, ("", " " * (position.x - length + 1))]
                drawn[i] = fragments
            return fragments

        if frozen:
            # A reused frame must not change under prompt_toolkit as the screen's rows move on.
            for i in range(len(lines)):
                get_line(i)
        return UIContent(
            # Its (style, text) pairs are fragments; the list type is invariant, so mypy wants the wider one.
            get_line=get_line,  # type: ignore[arg-type]
            line_count=len(lines),
            cursor_position=position,
            show_cursor=show,
        )

    # -- the mouse ------------------------------------------------------------------------------
    def mouse_handler(self, mouse_event: MouseEvent) -> NotImplementedOrNone:
        """A mouse event at a cell of the pane (x, y may lie outside it while a drag that began here
        goes on). A program that asked for the mouse gets it; otherwise the wheel scrolls, a drag
        selects (a double click a word, a triple click a line) and the release copies."""
        term = self.terminal
        kind = mouse_event.event_type
        if MouseModifier.SHIFT in mouse_event.modifiers and kind != MouseEventType.MOUSE_UP:
            return NotImplemented  # Shift-drag is the outer terminal's own selection
        x = max(0, min(mouse_event.position.x, term.cols - 1))
        y = mouse_event.position.y
        if term.mouse_tracking and term.scroll_offset == 0 and term.copy is None:
            self._forward(mouse_event, x, max(0, min(y, term.rows - 1)))
            return None
        if kind in (MouseEventType.SCROLL_UP, MouseEventType.SCROLL_DOWN):
            self._wheel(kind == MouseEventType.SCROLL_UP)
        elif kind == MouseEventType.MOUSE_DOWN and mouse_event.button == MouseButton.LEFT:
            self._press(x, y)
        elif kind == MouseEventType.MOUSE_MOVE and self._pressed is not None:
            if mouse_event.button == MouseButton.LEFT:
                self._drag(x, y)
            elif mouse_event.button == MouseButton.NONE:
                self._release()  # the button came up where nobody saw it (over the chrome)
        elif kind == MouseEventType.MOUSE_UP:
            self._release()
        else:
            return NotImplemented
        return None

    def _forward(self, mouse_event: MouseEvent, x: int, y: int) -> None:
        term = self.terminal
        kind = mouse_event.event_type
        button = _BUTTONS.get(mouse_event.button, 0)
        if kind == MouseEventType.SCROLL_UP:
            term.send_mouse(64, x, y)
        elif kind == MouseEventType.SCROLL_DOWN:
            term.send_mouse(65, x, y)
        elif kind == MouseEventType.MOUSE_DOWN:
            term.send_mouse(button, x, y)
            self._clicked()
        elif kind == MouseEventType.MOUSE_UP:
            term.send_mouse(button, x, y, release=True)
        elif (
            kind == MouseEventType.MOUSE_MOVE and term.screen.has_private_mode(1002) and mouse_event.button in _BUTTONS
        ):
            term.send_mouse(button, x, y, motion=True)

    def _wheel(self, up: bool) -> None:
        term = self.terminal
        if term.alternate_screen:
            # A pager or editor without mouse reporting: the wheel moves it (xterm's alternateScroll).
            for _ in range(WHEEL_LINES):
                term.send_key("up" if up else "down")
        else:
            term.scroll_by(WHEEL_LINES if up else -WHEEL_LINES)

    def _position(self, x: int, y: int) -> Pos:
        term = self.terminal
        return term.line_at(max(0, min(y, term.rows - 1)), term.rows), x

    def _press(self, x: int, y: int) -> None:
        now = time.monotonic()
        pos = self._position(x, y)
        last = self._last_press
        clicks = last[2] + 1 if last is not None and last[1] == pos and now - last[0] < MULTI_CLICK_SECONDS else 1
        self._last_press = (now, pos, clicks if clicks < 3 else 3)
        self._pressed = pos
        self._selecting = clicks >= 2
        if clicks >= 2:
            self._set_selection(self._clicked_selection(pos, word=clicks == 2))

    def _clicked_selection(self, pos: Pos, *, word: bool) -> Selection:
        """A double click's word (a run of one kind of character) or a triple click's line."""
        if not word:
            return Selection(pos, pos, LINE)
        line, col = pos
        cells = LineCells(self.terminal.screen, self.terminal.cols)
        kind = char_class(cells.char_at(line, col))
        start = stop = col
        while start > 0 and char_class(cells.char_at(line, start - 1)) == kind:
            start -= 1
        while stop < cells.columns - 1 and char_class(cells.char_at(line, stop + 1)) == kind:
            stop += 1
        return Selection((line, start), (line, stop), CHAR)

    def _drag(self, x: int, y: int) -> None:
        term = self.terminal
        if y < 0 or y >= term.rows:
            term.scroll_by(1 if y < 0 else -1)  # dragged past the pane's edge: the view follows
        pos = self._position(x, y)
        selection = self._current_selection()
        if selection is None or not self._selecting:
            if pos == self._pressed or self._pressed is None:
                return
            self._selecting = True
            self._set_selection(Selection(self._pressed, pos, CHAR))
        else:
            selection.cursor = pos
            if term.copy is not None:
                term.copy.go_to(pos)

    def _release(self) -> None:
        pressed, self._pressed = self._pressed, None
        if pressed is None:
            if self.terminal.copy is None:
                self._clicked()  # a release whose press nobody saw (a terminal that sends none)
            return
        selection = self._current_selection() if self._selecting else None
        self._selecting = False
        if selection is None:
            if self.terminal.copy is not None:
                self.terminal.copy.go_to(pressed)  # a click moves copy mode's cursor
            else:
                self._clicked()
            return
        text = selection.text(LineCells(self.terminal.screen, self.terminal.cols))
        self.selection = None
        if self.on_copy is not None:
            self.on_copy(text, selection.kind == LINE)

    def _current_selection(self) -> Selection | None:
        copy = self.terminal.copy
        return copy.selection if copy is not None else self.selection

    def _set_selection(self, selection: Selection) -> None:
        copy = self.terminal.copy
        if copy is None:
            self.selection = selection
            return
        copy.selection = selection
        copy.go_to(selection.cursor)

    def _clicked(self) -> None:
        if self.on_click is not None:
            self.on_click()
