"""Keys while the keyboard is in a pane: everything goes to its program."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from dsh.commands.keymap import key_sequence
from dsh.persist.states import PaneState
from dsh.ui.chrome import RERUN_KEY, START_ALL_KEY

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

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

    @kb.add(*key_sequence(RERUN_KEY), filter=m.in_work & m.no_prefix & m.pane_has_saved_command)
    def _rerun(event: KeyPressEvent) -> None:
        app.rerun_saved_command()

    waiting = Condition(
        lambda: any(p.state in (PaneState.RESTORED, PaneState.RESUMABLE) for p in app.session.panes.values())
    )

    @kb.add(*key_sequence(START_ALL_KEY), filter=m.in_work & m.no_prefix & waiting)
    def _start_all(event: KeyPressEvent) -> None:
        app.run_command_line("start-all")

    @kb.add(Keys.Any, filter=m.in_pane & m.no_prefix)
    def _to_pane(event: KeyPressEvent) -> NotImplementedOrNone:
        # The active pane, or with /sync on every running pane of the tab.
        scrolled = False
        for pane in app.session.input_panes():
            if pane.terminal.scroll_offset:
                pane.terminal.scroll_to_bottom()
                scrolled = True
            app.session.used = True
            for press in event.key_sequence:
                pane.terminal.send_key(press.key, press.data)
        # Nothing on screen changed yet: what the program does with the key (its echo) redraws when it
        # comes. A frame drawn now would only delay that one (under a flood, by a whole frame's time).
        return None if scrolled else NotImplemented

    @kb.add(Keys.BracketedPaste, filter=m.in_pane & m.no_prefix)
    def _paste(event: KeyPressEvent) -> None:
        for pane in app.session.input_panes():
            app.session.used = True
            pane.terminal.paste(event.data)

    return kb
