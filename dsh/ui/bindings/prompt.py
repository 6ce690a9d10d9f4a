"""Keys on the prompt line beyond prompt_toolkit's line editing: completion, C-c, C-d, paging."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.buffer import CompletionState
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def prompt_bindings(app: DshApp, m: Modes) -> KeyBindings:
    kb = KeyBindings()
    # -- on the prompt ------------------------------------------------------------------------
    @kb.add("c-c", filter=m.in_prompt & m.no_prefix)
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = app.prompt_buffer
        if app._pending_prompt_action is not None:
            app.end_ask()
            return
        if buffer.text:
            buffer.reset()
            return
        pane = app.active_pane
        if pane is not None and pane.running:
            pane.terminal.write(b"\x03")

    @kb.add("tab", filter=m.in_prompt & m.no_prefix)
    def _complete(event: KeyPressEvent) -> None:
        # Completions are computed here, at once: prompt_toolkit drops a Tab that arrives while the
        # complete-while-typing task for the previous key is still pending (fast typing, pasted text).
        buffer = app.prompt_buffer
        state = buffer.complete_state
        if state is not None and state.completions:
            buffer.complete_next()
            return
        completer = buffer.completer
        if completer is None:
            return
        found = list(completer.get_completions(buffer.document, CompleteEvent(completion_requested=True)))
        if len(found) == 1:
            buffer.apply_completion(found[0])
        elif found:
            buffer.complete_state = CompletionState(buffer.document, found)
            buffer.go_to_completion(0)

    empty_prompt = Condition(lambda: not app.prompt_buffer.text)

    @kb.add("c-d", filter=m.in_prompt & m.no_prefix & empty_prompt)
    def _eof(event: KeyPressEvent) -> None:
        # Like C-c above: on an empty prompt line the key is meant for the program in the pane.
        pane = app.active_pane
        if pane is not None and pane.running and app._pending_prompt_action is None:
            pane.terminal.write(b"\x04")

    @kb.add("c-z", filter=m.in_prompt & m.no_prefix & empty_prompt)
    def _suspend_program(event: KeyPressEvent) -> None:
        # Job control: C-z on an empty prompt stops the pane's foreground program, as in its shell.
        pane = app.active_pane
        if pane is not None and pane.running and app._pending_prompt_action is None:
            pane.terminal.write(b"\x1a")

    asking = Condition(lambda: app._pending_prompt_action is not None)

    @kb.add("escape", filter=m.in_prompt & m.no_prefix & asking)
    def _cancel_ask(event: KeyPressEvent) -> None:
        app.end_ask()

    @kb.add("pageup", filter=m.in_prompt & m.no_prefix)
    def _prompt_pageup(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is not None:
            pane.terminal.scroll_by(max(1, pane.terminal.rows // 2))
            app.invalidate()

    @kb.add("pagedown", filter=m.in_prompt & m.no_prefix)
    def _prompt_pagedown(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is not None:
            pane.terminal.scroll_by(-max(1, pane.terminal.rows // 2))
            app.invalidate()

    return kb
