"""The pane area's frame: four panes of text at 200x50 drawn by the view's PanesContainer, with the mouse
handled per pane in cells (one handler per pane, set a row at a time), beside the same frame drawn with
each window setting its own handler cell by cell (prompt_toolkit's way, what the view did before), in the
same process; the same frame with a mouse selection across one pane; and the same frame with each pane in
a plain window (ui/window.py's ViewWindow: prompt_toolkit's Window, which copies its rows a character at a
time; the view's PaneWindow copies rows made once).

    python bench/view.py
"""

from __future__ import annotations

import statistics
import time

from prompt_toolkit.application import DummyApplication
from prompt_toolkit.application.current import set_app
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition

from dsh.layout.geometry import Rect
from dsh.layout.tabs import TabSet
from dsh.term.selection import Selection
from dsh.term.terminal import Terminal
from dsh.ui import panes_view
from dsh.ui.pane_window import PaneWindow
from dsh.ui.panes_view import PanesContainer, PaneSlot
from dsh.ui.terminal_control import TerminalControl
from dsh.ui.window import ViewWindow

WIDTH, HEIGHT = 200, 50
FRAMES = 100
ROUNDS = 5


def build(body: type[Window] = PaneWindow) -> tuple[PanesContainer, list[PaneSlot]]:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    tabs.split("p3", "column")
    tabs.focus("p1")
    tabs.split("p4", "column")
    slots = []
    for pane_id in tabs.pane_ids():
        term = Terminal(["true"], cwd="/", rows=24, cols=100)
        term.feed(
            b"".join(b"\x1b[32m%s\x1b[0m line %d of some output text\r\n" % (pane_id.encode(), i) for i in range(400))
        )
        control = TerminalControl(term)
        slots.append(PaneSlot(pane_id, Window(FormattedTextControl(pane_id), height=1), body(control), control))
    container = PanesContainer(lambda area: tabs.rects(area), lambda: slots)
    return container, slots


def frame_ms(container: PanesContainer) -> float:
    times = []
    for _ in range(FRAMES):
        screen = Screen()
        handlers = MouseHandlers()
        start = time.perf_counter()
        container.write_to_screen(screen, handlers, WritePosition(0, 1, WIDTH, HEIGHT), "", False, None)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


class _CellByCell(MouseHandlers):
    """What the windows did before: each sets a handler for every cell of its area."""


def main() -> None:
    with set_app(DummyApplication()):  # one app for the frames (get_app() would make one per call)
        run()


def run() -> None:
    container, slots = build()
    plain, _ = build(ViewWindow)
    frame_ms(container)  # warm: terminals take the layout's sizes
    frame_ms(plain)
    ours_runs, before_runs, selected_runs, plain_runs = [], [], [], []
    control = slots[0].control
    for _ in range(ROUNDS):  # in turns, so the machine's load falls on each alike
        ours_runs.append(frame_ms(container))
        saved = panes_view._NO_MOUSE
        panes_view._NO_MOUSE = _CellByCell()  # windows fill a raster cell by cell again (thrown away)
        try:
            before_runs.append(frame_ms(container))
        finally:
            panes_view._NO_MOUSE = saved
        control.selection = Selection((390, 3), (405, 40))
        selected_runs.append(frame_ms(container))
        control.selection = None
        plain_runs.append(frame_ms(plain))
    ours, before, selected, copied = (
        statistics.median(runs) for runs in (ours_runs, before_runs, selected_runs, plain_runs)
    )
    raster = Rect(0, 1, WIDTH, HEIGHT)
    handlers = MouseHandlers()
    start = time.perf_counter()
    for _ in range(FRAMES):
        handlers.set_mouse_handler_for_range(raster.x, raster.right, raster.y, raster.bottom, print)
    cell_loop = (time.perf_counter() - start) * 1000 / FRAMES
    start = time.perf_counter()
    for _ in range(FRAMES):
        panes_view._set_handler(handlers, raster, print)
    row_update = (time.perf_counter() - start) * 1000 / FRAMES
    print(f"pane area {WIDTH}x{HEIGHT}, 4 panes, median of {ROUNDS} rounds of {FRAMES} frames each, taken in turns")
    print(f"  frame, the mouse per pane in cells:               {ours:6.2f} ms  ({ours / before:.2f}x the next)")
    print(f"  frame, each window's handler set cell by cell:    {before:6.2f} ms")
    print(f"  frame with a 16-row mouse selection in one pane:  {selected:6.2f} ms  ({selected / ours:.2f}x the first)")
    print(f"  frame, each pane in a plain window (row by char): {copied:6.2f} ms  (the first is {ours / copied:.2f}x)")
    print(
        f"  the mouse raster alone: a row at a time {row_update:.3f} ms, prompt_toolkit's cell loop"
        f" {cell_loop:.3f} ms ({row_update / cell_loop:.2f}x)"
    )


if __name__ == "__main__":
    main()
