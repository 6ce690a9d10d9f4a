"""prompt_toolkit's Window without its 'last-line' pass: the window every part of dsh's view is drawn in."""

from __future__ import annotations

from prompt_toolkit.layout.containers import Window
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.utils import to_str

# The class prompt_toolkit adds to the last row of every Window, for styles that underline it.
LAST_LINE_CLASS = "last-line"


class ViewWindow(Window):
    """At every frame prompt_toolkit restyles the last row of each Window with `class:last-line`: a new
    style string made and looked up per cell, 0.1 ms for a 140-column row on this machine and a dozen
    such rows a frame (the tab bar, status, prompt, pane headers and bodies). dsh's style has no rule
    for that class (prompt_toolkit's defaults use it only in dialogs; tests/test_view_window.py holds
    dsh's style to that), so its windows skip the pass and keep their own style's fill."""

    def _apply_style(self, new_screen: Screen, write_position: WritePosition, parent_style: str) -> None:
        new_screen.fill_area(write_position, style=parent_style + " " + to_str(self.style), after=False)
