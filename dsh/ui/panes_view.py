"""The pane area: places each pane of the active tab at the rectangle the layout model computes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.layout.containers import Container, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Char, Screen, WritePosition

from dsh.layout.geometry import Border, Layout, Rect


@dataclass
class PaneSlot:
    """What the view needs of one pane: its header window and its body window."""

    pane_id: str
    header: Window
    body: Window
    control: Any = None  # the TerminalControl in `body`: which terminal this slot draws


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
    ) -> None:
        self._get_layout = get_layout
        self._get_slots = get_slots
        self._on_area = on_area

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
                mouse_handlers,
                WritePosition(rect.x, rect.y, rect.width, 1),
                parent_style,
                erase_bg,
                z_index,
            )
            if rect.height > 1:
                slot.body.write_to_screen(
                    screen,
                    mouse_handlers,
                    WritePosition(rect.x, rect.y + 1, rect.width, rect.height - 1),
                    parent_style,
                    erase_bg,
                    z_index,
                )
        self._draw_borders(screen, layout.borders)

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
