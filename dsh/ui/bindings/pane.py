"""Keys while the keyboard is in a pane: everything goes to its program."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def pane_bindings(app: DshApp, m: Modes) -> KeyBindings:
    kb = KeyBindings()
    # -- inside a pane: every other key goes to the child -----------------------------------
    @kb.add("enter", filter=m.in_pane & m.no_prefix & m.pane_is_tombstone)
    def _start_tombstone(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is not None:
            app.start_tombstone(pane)

    @kb.add(Keys.Any, filter=m.in_pane & m.no_prefix)
    def _to_pane(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is None or not pane.running:
            return
        if pane.terminal.scroll_offset:
            pane.terminal.scroll_to_bottom()
        app.session.used = True
        for press in event.key_sequence:
            pane.terminal.send_key(press.key, press.data)

    @kb.add(Keys.BracketedPaste, filter=m.in_pane & m.no_prefix)
    def _paste(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is not None and pane.running:
            app.session.used = True
            pane.terminal.paste(event.data)

    return kb
