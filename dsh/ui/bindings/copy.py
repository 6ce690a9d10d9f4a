"""Copy mode's keys: a cursor over the active pane's history; select, search, copy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def copy_bindings(app: DshApp, m: Modes) -> KeyBindings:
    kb = KeyBindings()
    # -- copy mode: a line cursor over the active pane's history; select, copy ------------------
    def copy_mode():  # type: ignore[no-untyped-def]
        pane = app.active_pane
        return pane.terminal.copy if pane is not None else None

    def move(lines: int) -> None:
        copy = copy_mode()
        if copy is not None:
            copy.move(lines)
            app.invalidate()

    def page() -> int:
        pane = app.active_pane
        return max(1, (pane.terminal.rows if pane else 20) - 1)

    @kb.add("up", filter=m.in_copy)
    @kb.add("k", filter=m.in_copy)
    def _copy_up(event: KeyPressEvent) -> None:
        move(1)

    @kb.add("down", filter=m.in_copy)
    @kb.add("j", filter=m.in_copy)
    def _copy_down(event: KeyPressEvent) -> None:
        move(-1)

    @kb.add("pageup", filter=m.in_copy)
    @kb.add("c-b", filter=m.in_copy)
    def _copy_pageup(event: KeyPressEvent) -> None:
        move(page())

    @kb.add("pagedown", filter=m.in_copy)
    @kb.add("c-f", filter=m.in_copy)
    def _copy_pagedown(event: KeyPressEvent) -> None:
        move(-page())

    @kb.add("g", filter=m.in_copy)
    @kb.add("home", filter=m.in_copy)
    def _copy_top(event: KeyPressEvent) -> None:
        move(10**9)

    @kb.add("G", filter=m.in_copy)
    @kb.add("end", filter=m.in_copy)
    def _copy_bottom(event: KeyPressEvent) -> None:
        move(-(10**9))

    @kb.add("space", filter=m.in_copy)
    @kb.add("v", filter=m.in_copy)
    def _copy_select(event: KeyPressEvent) -> None:
        copy = copy_mode()
        if copy is not None:
            copy.toggle_selection()
            app.invalidate()

    @kb.add("enter", filter=m.in_copy)
    @kb.add("y", filter=m.in_copy)
    def _copy_yank(event: KeyPressEvent) -> None:
        app.copy_selection()

    @kb.add("/", filter=m.in_copy)
    @kb.add("?", filter=m.in_copy)
    def _copy_search(event: KeyPressEvent) -> None:
        backwards = True  # copy mode starts at the bottom, so both keys look back into history

        def search(text: str) -> None:
            app.mode = "copy"
            app._focus_active_body()
            app.search_history(text, backwards=backwards)

        app.ask("search history: ", search)

    @kb.add("n", filter=m.in_copy)
    def _copy_next(event: KeyPressEvent) -> None:
        text = getattr(app, "_last_search", "")
        if text:
            app.search_history(text, backwards=True)

    @kb.add("N", filter=m.in_copy)
    def _copy_prev(event: KeyPressEvent) -> None:
        text = getattr(app, "_last_search", "")
        if text:
            app.search_history(text, backwards=False)

    @kb.add("q", filter=m.in_copy)
    @kb.add("escape", filter=m.in_copy)
    def _copy_quit(event: KeyPressEvent) -> None:
        app.leave_copy_mode()

    @kb.add(Keys.Any, filter=m.in_copy)
    def _copy_other(event: KeyPressEvent) -> None:
        pass

    return kb
