"""The filters every mode's bindings share: which mode the keyboard is in, and whether a prefix waits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition

from dsh.ui.state import WORK_MODES, Mode

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


class Modes:
    """Conditions over one view's keyboard state, made once and given to each mode's bindings."""

    def __init__(self, app: DshApp) -> None:
        # A y/n question waiting for its one key: what y does, and what to say otherwise (the client's).
        self.confirming = app.state.confirming
        self.prefix_pending = Condition(lambda: app.prefix_pending)
        self.confirm_pending = Condition(lambda: bool(self.confirming))
        self.no_prefix = ~self.prefix_pending & ~self.confirm_pending
        self.in_prompt = Condition(lambda: app.mode == Mode.PROMPT)
        self.in_pane = Condition(lambda: app.mode == Mode.PANE)
        self.in_copy = Condition(lambda: app.mode == Mode.COPY)
        self.in_help = Condition(lambda: app.mode == Mode.HELP)
        self.in_work = Condition(lambda: app.mode in WORK_MODES)
        self.in_picker = Condition(lambda: app.mode == Mode.PICKER)
        self.pane_is_tombstone = Condition(lambda: bool(app.active_pane and app.active_pane.startable))
        self.pane_has_saved_command = Condition(
            lambda: app.active_pane is not None and app.active_pane.rerun_line is not None
        )
