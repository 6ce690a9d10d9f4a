"""The pane area: places each pane of the active tab at the rectangle the layout model computes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from prompt_toolkit.data_structures import Point
from prompt_toolkit.layout.containers import Container, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.mouse_handlers import MouseHandler, MouseHandlers
from prompt_toolkit.layout.screen import Char, Screen, WritePosition
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

from dsh.layout.geometry import Border, Layout, Rect
from dsh.values import Value

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone


class _NoMouseHandlers(MouseHandlers):
    """Handed to the panes' own windows: the container sets one handler per pane itself, in cells
    of the pane (a window would give a column in the line's characters, and only over its text)."""

    def set_mouse_handler_for_range(
        self, x_min: int, x_max: int, y_min: int, y_max: int, handler: Callable[[MouseEvent], NotImplementedOrNone]
    ) -> None:
        return None


_NO_MOUSE = _NoMouseHandlers()


class _SpanRow(defaultdict[int, MouseHandler]):
    """One row of prompt_toolkit's mouse raster over the pane area, holding each pane's (and border's)
    handler as a column span, found when a click asks for a cell, rather than written into every cell
    at every frame (5,600 writes a keystroke's frame with two panes at 140x40, about a seventh of its
    time). A cell written afterwards (a float drawn over the panes) is a key of its own and wins, as the
    later write wins in prompt_toolkit's raster."""

    def __init__(self, row: defaultdict[int, MouseHandler]) -> None:
        super().__init__(row.default_factory, row)
        self.spans: list[tuple[int, int, MouseHandler]] = []

    def __missing__(self, x: int) -> MouseHandler:
        for left, right, handler in reversed(self.spans):  # the span set last wins
            if left <= x < right:
                return handler
        assert self.default_factory is not None
        return self.default_factory()

    def add(self, left: int, right: int, handler: MouseHandler) -> None:
        if self:
            for x in [x for x in self if left <= x < right]:
                del self[x]  # written before this span, so under it
        self.spans.append((left, right, handler))


class _SpanRaster(defaultdict[int, defaultdict[int, MouseHandler]]):
    """prompt_toolkit's mouse raster by rows, in which a row under the pane area is made when first
    asked for (a click, or a float drawing over it), with the spans of the rectangles given so far,
    rather than every row at every frame (37 rows a keystroke's frame at 140x40)."""

    def __init__(self, rows: defaultdict[int, defaultdict[int, MouseHandler]]) -> None:
        super().__init__(rows.default_factory, rows)
        self.rects: list[tuple[Rect, MouseHandler]] = []

    def __missing__(self, y: int) -> defaultdict[int, MouseHandler]:
        assert self.default_factory is not None
        row = self.default_factory()
        spans = [(rect.x, rect.right, handler) for rect, handler in self.rects if rect.y <= y < rect.bottom]
        if spans:
            row = _SpanRow(row)
            row.spans.extend(spans)
        self[y] = row
        return row

    def add(self, rect: Rect, handler: MouseHandler) -> None:
        self.rects.append((rect, handler))
        for y, row in list(self.items()):  # the rows made already (a few) take the span now
            if rect.y <= y < rect.bottom:
                if not isinstance(row, _SpanRow):
                    row = self[y] = _SpanRow(row)
                row.add(rect.x, rect.right, handler)


def _set_handler(handlers: MouseHandlers, rect: Rect, handler: MouseHandler) -> None:
    rows = handlers.mouse_handlers
    if not isinstance(rows, _SpanRaster):
        rows = handlers.mouse_handlers = _SpanRaster(rows)
    rows.add(rect, handler)


class PaneSlot(Value, fields=("pane_id", "header", "body", "control")):
    """What the view needs of one pane: its header window and its body window."""

    pane_id: str
    header: Window
    body: Window
    control: Any  # the TerminalControl in `body`: which terminal this slot draws

    def __init__(self, pane_id: str, header: Window, body: Window, control: Any = None) -> None:
        self.pane_id = pane_id
        self.header = header
        self.body = body
        self.control = control


class PanesContainer(Container):
    """Draws panes at model-computed rectangles, so what you see is what focus-by-direction uses.

    Each pane's rectangle holds a one-line header (title and state) over its terminal; the layout's
    borders are drawn between them.
    """

    def __init__(
        self,
        get_layout: Callable[[Rect], Layout],
        get_slots: Callable[[], Sequence[PaneSlot]],
        on_area: Callable[[Rect], None] | None = None,
        on_border_drag: Callable[[int, int, int], int | None] | None = None,
        on_border_drop: Callable[[], None] | None = None,
    ) -> None:
        self._get_layout = get_layout
        self._get_slots = get_slots
        self._on_area = on_area
        # A border grabbed at cell (x, y) dragged to column or row `to`: its new place, or None.
        self._on_border_drag = on_border_drag
        self._on_border_drop = on_border_drop
        # While a button is held after a press on a pane or a border: where every move and the release
        # go, wherever over the panes they happen.
        self._capture: MouseHandler | None = None

    def reset(self) -> None:
        for slot in self._get_slots():
            slot.header.reset()
            slot.body.reset()

    def preferred_width(self, max_available_width: int) -> Dimension:
        return Dimension()

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        return Dimension()

    def write_to_screen(
        self,
        screen: Screen,
        mouse_handlers: MouseHandlers,
        write_position: WritePosition,
        parent_style: str,
        erase_bg: bool,
        z_index: int | None,
    ) -> None:
        area = Rect(write_position.xpos, write_position.ypos, write_position.width, write_position.height)
        if self._on_area is not None:
            self._on_area(area)
        layout = self._get_layout(area)
        slots = {slot.pane_id: slot for slot in self._get_slots()}
        for pane_id, rect in layout.rects.items():
            slot = slots.get(pane_id)
            if slot is None or rect.width <= 0 or rect.height <= 0:
                continue
            slot.header.write_to_screen(
                screen,
                _NO_MOUSE,
                WritePosition(rect.x, rect.y, rect.width, 1),
                parent_style,
                erase_bg,
                z_index,
            )
            if rect.height > 1:
                slot.body.write_to_screen(
                    screen,
                    _NO_MOUSE,
                    WritePosition(rect.x, rect.y + 1, rect.width, rect.height - 1),
                    parent_style,
                    erase_bg,
                    z_index,
                )
            _set_handler(mouse_handlers, rect, partial(self._pane_mouse, slot, rect))
        self._draw_borders(screen, layout.borders)
        for border in layout.borders:
            vertical = border.orientation == "vertical"
            cells = Rect(border.x, border.y, 1 if vertical else border.length, border.length if vertical else 1)
            _set_handler(mouse_handlers, cells, partial(self._border_mouse, border))

    # -- the mouse ------------------------------------------------------------------------------
    def _captured(self, event: MouseEvent) -> NotImplementedOrNone:
        """Give a move or the release to whatever the last press grabbed; NotImplemented if nothing did."""
        capture = self._capture
        if capture is None or event.event_type not in (MouseEventType.MOUSE_MOVE, MouseEventType.MOUSE_UP):
            return NotImplemented
        if event.event_type == MouseEventType.MOUSE_UP or event.button == MouseButton.NONE:
            self._capture = None  # released (a move with no button: released where no pane saw it)
        capture(event)
        return None

    def _pane_mouse(self, slot: PaneSlot, rect: Rect, event: MouseEvent) -> NotImplementedOrNone:
        if self._captured(event) is None:
            return None
        if event.position.y == rect.y or slot.control is None:
            return NotImplemented  # the header
        handler = partial(_in_pane, slot.control, rect)
        if event.event_type == MouseEventType.MOUSE_DOWN:
            self._grab(handler, event)
        return handler(event)

    def _grab(self, handler: MouseHandler, event: MouseEvent) -> None:
        """A press: what it grabbed gets the moves and the release. A grab whose release never came
        (the button came up over the chrome) ends first, as if released here."""
        stale, self._capture = self._capture, handler
        if stale is not None:
            stale(MouseEvent(event.position, MouseEventType.MOUSE_UP, event.button, event.modifiers))

    def _border_mouse(self, border: Border, event: MouseEvent) -> NotImplementedOrNone:
        if self._captured(event) is None:
            return None
        if event.event_type != MouseEventType.MOUSE_DOWN or event.button != MouseButton.LEFT:
            return NotImplemented
        grabbed = [event.position.x, event.position.y]
        vertical = border.orientation == "vertical"

        def drag(moved: MouseEvent) -> None:
            if moved.event_type == MouseEventType.MOUSE_MOVE and moved.button == MouseButton.LEFT:
                to = moved.position.x if vertical else moved.position.y
                if self._on_border_drag is not None:
                    now = self._on_border_drag(grabbed[0], grabbed[1], to)
                    if now is not None:
                        grabbed[0 if vertical else 1] = now
            elif self._on_border_drop is not None:
                self._on_border_drop()

        self._grab(drag, event)
        return None

    @staticmethod
    def _draw_borders(screen: Screen, borders: list[Border]) -> None:
        buffer = screen.data_buffer
        vertical = Char("│", "class:pane.border")
        horizontal = Char("─", "class:pane.border")
        for border in borders:
            if border.orientation == "vertical":
                for y in range(border.y, border.y + border.length):
                    buffer[y][border.x] = vertical
            else:
                row = buffer[border.y]
                for x in range(border.x, border.x + border.length):
                    row[x] = horizontal

    def get_children(self) -> list[Container]:
        children: list[Container] = []
        for slot in self._get_slots():
            children.append(slot.header)
            children.append(slot.body)
        return children


def _in_pane(control: Any, rect: Rect, event: MouseEvent) -> NotImplementedOrNone:
    """An event over the pane area given to a pane's control in the pane's own cells (the row under
    its header is row 0)."""
    local = Point(x=event.position.x - rect.x, y=event.position.y - rect.y - 1)
    result: NotImplementedOrNone = control.mouse_handler(
        MouseEvent(position=local, event_type=event.event_type, button=event.button, modifiers=event.modifiers)
    )
    return result
