"""A read-only client (`dsh attach -r`): every key and click is dropped but the prefix and its d."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from dsh.commands.keymap import key_display, key_sequence

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def readonly_bindings(app: DshApp, m: Modes) -> KeyBindings:
    """Merged last, so that they win over every other binding while the view is read-only."""
    kb = KeyBindings()
    read_only = Condition(lambda: app.read_only)
    prefix = app.keymap.prefix

    @kb.add(Keys.Any, filter=read_only, eager=True)
    @kb.add("escape", Keys.Any, filter=read_only, eager=True)
    def _dropped(event: KeyPressEvent) -> None:
        if app.prefix_pending:
            app.prefix_pending = False
            app.release_keyboard()
        app.announce(f"read-only: {key_display(prefix)} d detaches")

    @kb.add(*key_sequence(prefix), filter=read_only & m.no_prefix, eager=True)
    def _prefix(event: KeyPressEvent) -> None:
        app.prefix_pending = True
        app.hold_keyboard()

    @kb.add("d", filter=read_only & m.prefix_pending, eager=True)
    def _detach(event: KeyPressEvent) -> None:
        app.prefix_pending = False
        app.release_keyboard()
        app.detach()

    return kb
