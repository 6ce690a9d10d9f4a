"""Key bindings, one module per mode, merged for one view (as prompt_toolkit's own defaults are)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.key_binding import KeyBindingsBase, merge_key_bindings

from dsh.ui.bindings.copy import copy_bindings
from dsh.ui.bindings.modes import Modes
from dsh.ui.bindings.overlay import help_bindings
from dsh.ui.bindings.pane import pane_bindings
from dsh.ui.bindings.prefix import prefix_bindings
from dsh.ui.bindings.prompt import prompt_bindings
from dsh.ui.keyhelp import checked_escape_key

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


def build_key_bindings(app: DshApp) -> KeyBindingsBase:
    app.escape_key = checked_escape_key(app)
    modes = app.modes = Modes(app)
    return merge_key_bindings([
        prefix_bindings(app, modes),
        pane_bindings(app, modes),
        prompt_bindings(app, modes),
        copy_bindings(app, modes),
        help_bindings(app, modes),
    ])
