"""Every mode's key bindings merged for one view, built on the loop's turn after its first frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.key_binding import ConditionalKeyBindings, KeyBindingsBase, merge_key_bindings
from prompt_toolkit.key_binding.bindings.auto_suggest import load_auto_suggest_bindings

from dsh.ui.agents_view import list_bindings
from dsh.ui.bindings import prepare_modes
from dsh.ui.bindings.copy import copy_bindings
from dsh.ui.bindings.modes import Modes
from dsh.ui.bindings.overlay import help_bindings
from dsh.ui.bindings.pane import pane_bindings
from dsh.ui.bindings.prefix import prefix_bindings
from dsh.ui.bindings.prompt import prompt_bindings, search_bindings
from dsh.ui.bindings.readonly import readonly_bindings

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


def build_key_bindings(app: DshApp) -> KeyBindingsBase:
    """The view's bindings from its keymap and escape key as they are now (its modes made anew)."""
    return mode_bindings(app, prepare_modes(app))


def mode_bindings(app: DshApp, modes: Modes) -> KeyBindingsBase:
    """Every mode's bindings, merged."""
    return merge_key_bindings(
        [
            # Right, C-f and C-e take the grey suggestion (as fish; prompt_toolkit's own, for the prompt).
            ConditionalKeyBindings(load_auto_suggest_bindings(), modes.in_prompt & modes.no_prefix),
            prefix_bindings(app, modes),
            pane_bindings(app, modes),
            prompt_bindings(app, modes),
            search_bindings(app, modes),
            copy_bindings(app, modes),
            help_bindings(app, modes),
            list_bindings(app, modes),  # after help's: a list shown in its place takes its keys
            readonly_bindings(app, modes),  # last: a read-only client's keys go nowhere
        ]
    )
