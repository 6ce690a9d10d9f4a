"""The help overlay's keys: those of a pager."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def help_bindings(app: DshApp, m: Modes) -> KeyBindings:
    kb = KeyBindings()

    # -- help overlay --------------------------------------------------------------------------
    # The keys of a pager (less, tmux copy mode), which is what help looks like.
    @kb.add("up", filter=m.in_help)
    @kb.add("k", filter=m.in_help)
    def _help_up(event: KeyPressEvent) -> None:
        app.scroll_help(-1)

    @kb.add("down", filter=m.in_help)
    @kb.add("j", filter=m.in_help)
    def _help_down(event: KeyPressEvent) -> None:
        app.scroll_help(1)

    @kb.add("pageup", filter=m.in_help)
    @kb.add("b", filter=m.in_help)
    @kb.add("c-b", filter=m.in_help)
    def _help_pageup(event: KeyPressEvent) -> None:
        app.scroll_help(-10)

    @kb.add("pagedown", filter=m.in_help)
    @kb.add("space", filter=m.in_help)
    @kb.add("c-f", filter=m.in_help)
    def _help_pagedown(event: KeyPressEvent) -> None:
        app.scroll_help(10)

    @kb.add("home", filter=m.in_help)
    @kb.add("g", filter=m.in_help)
    def _help_top(event: KeyPressEvent) -> None:
        app.scroll_help(-len(app.help_lines))

    @kb.add("end", filter=m.in_help)
    @kb.add("G", filter=m.in_help)
    def _help_bottom(event: KeyPressEvent) -> None:
        app.scroll_help(len(app.help_lines))

    @kb.add("q", filter=m.in_help)
    @kb.add("escape", filter=m.in_help)
    @kb.add("enter", filter=m.in_help)
    def _help_close(event: KeyPressEvent) -> None:
        app.close_overlay()

    @kb.add(Keys.Any, filter=m.in_help)
    def _help_other(event: KeyPressEvent) -> None:
        pass

    return kb
