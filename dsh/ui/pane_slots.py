"""One view's pane slots: each pane's header and body windows, made, dropped, clicked and focused."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.layout.controls import FormattedTextControl

from dsh.session.client_state import Mode
from dsh.session.keyboard import PANE
from dsh.ui import chrome
from dsh.ui.pane_window import LineWindow, PaneWindow
from dsh.ui.panes_view import PaneSlot
from dsh.ui.terminal_control import TerminalControl

if TYPE_CHECKING:
    from dsh.session.pane import Pane
    from dsh.ui.app import DshApp


class PaneSlots:
    """The windows of the session's panes on one view (`app.slots`, the same dict; DshApp forwards)."""

    def __init__(self, app: DshApp) -> None:
        self.app = app

    def register_slot(self, pane: Pane) -> None:
        app = self.app
        control = TerminalControl(
            pane.terminal,
            on_click=lambda: self.click_pane(pane.id),
            on_copy=lambda text, lines: app.copy_text(text, lines=lines),
            refresh_interval=lambda: 0.0 if pane.id == app.session.tabs.active_pane else app.state.background_pace(),
        )
        body = PaneWindow(control, wrap_lines=False)
        header = LineWindow(FormattedTextControl(chrome.pane_header(app, pane.id)), height=1)
        app.slots[pane.id] = PaneSlot(pane.id, header, body, control)

    def panes_changed(self) -> None:
        slots, panes = self.app.slots, self.app.session.panes
        for pane_id in list(slots):
            if pane_id not in panes:
                del slots[pane_id]
        for pane in panes.values():
            slot = slots.get(pane.id)
            if slot is None or slot.control.terminal is not pane.terminal:
                self.register_slot(pane)

    def pane_frame_due(self, pane_id: str, redraw: Callable[[], None]) -> bool:
        slot = self.app.slots.get(pane_id)
        return slot is not None and slot.control is not None and slot.control.redraw_when_due(redraw)

    def click_pane(self, pane_id: str) -> None:
        app = self.app
        if pane_id not in app.session.panes:
            return
        if app.mode == Mode.COPY:
            app.leave_copy_mode()  # a click on another pane ends copy mode where it was
        if pane_id == app.session.tabs.active_pane:
            app.enter_pane()  # a click into the pane in focus: the user's choice, as the escape key
            return
        app.session.focus_pane(pane_id)  # a focus move: the keyboard follows the rule there

    def focus(self, target: str) -> None:
        """The keyboard to the active pane's body (PANE) or the prompt line."""
        app = self.app
        if target == PANE:
            self.focus_active_body()
        elif not app.layout.has_focus(app.prompt_window):
            app.layout.focus(app.prompt_window)

    def focus_active_body(self) -> None:
        app = self.app
        pane = app.active_pane
        if pane is not None and pane.id in app.slots:
            try:
                app.layout.focus(app.slots[pane.id].body)
            except ValueError:
                pass
