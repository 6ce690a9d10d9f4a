"""Keys on the prompt line beyond prompt_toolkit's line editing: completion, C-c, C-d, paging."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.buffer import CompletionState
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def prompt_bindings(app: DshApp, m: Modes) -> KeyBindings:
    kb = KeyBindings()

    # -- on the prompt ------------------------------------------------------------------------
    @kb.add("c-c", filter=m.in_prompt & m.no_prefix)
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = app.prompt_buffer
        if app.line.pending_action is not None:
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
        text = buffer.document.text_before_cursor
        if not text.startswith("/") or text.startswith("//") or app.is_path_line(text):
            app.complete_shell_line()  # on the session's worker: file names, commands, bash-completion
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
        if pane is not None and pane.running and app.line.pending_action is None:
            pane.terminal.write(b"\x04")

    @kb.add("c-z", filter=m.in_prompt & m.no_prefix & empty_prompt)
    def _suspend_program(event: KeyPressEvent) -> None:
        # Job control: C-z on an empty prompt stops the pane's foreground program, as in its shell.
        pane = app.active_pane
        if pane is not None and pane.running and app.line.pending_action is None:
            pane.terminal.write(b"\x1a")

    asking = Condition(lambda: app.line.pending_action is not None)

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


# Keys that end a reverse search and then act as usual on the found line (as in bash).
_ENDS_SEARCH = ("left", "right", "home", "end", "up", "down", "c-a", "c-e", "c-f", "c-b", "tab", "c-k", "c-u")


def search_bindings(app: DshApp, m: Modes) -> KeyBindings:
    """C-r: bash's reverse-i-search over the merged history, shown on the prompt line itself."""
    kb = KeyBindings()
    memory = app.memory
    buffer = app.prompt_buffer
    searching = Condition(lambda: memory.search is not None)
    on_prompt = m.in_prompt & m.no_prefix

    @kb.add("c-r", filter=on_prompt)
    def _search(event: KeyPressEvent) -> None:
        search = memory.search or memory.start_search(buffer)
        if search.query:
            search.older()
        memory.show_search(buffer)

    @kb.add(Keys.Any, filter=on_prompt & searching)
    def _type(event: KeyPressEvent) -> None:
        text = "".join(ch for ch in event.data if ch.isprintable())
        if text and memory.search is not None:
            memory.search.type(text)
            memory.show_search(buffer)

    @kb.add("backspace", filter=on_prompt & searching)
    @kb.add("c-h", filter=on_prompt & searching)
    def _erase(event: KeyPressEvent) -> None:
        if memory.search is not None:
            memory.search.backspace()
            memory.show_search(buffer)

    @kb.add("c-g", filter=on_prompt & searching)
    @kb.add("c-c", filter=on_prompt & searching)
    def _cancel(event: KeyPressEvent) -> None:
        memory.cancel_search(buffer)

    @kb.add("escape", filter=on_prompt & searching, eager=True)
    def _keep(event: KeyPressEvent) -> None:
        # Escape ends the search on the line it found, to edit (bash's isearch-terminators); C-g and
        # C-c give the line back as it was.
        memory.end_search()

    @kb.add("enter", filter=on_prompt & searching)
    def _run(event: KeyPressEvent) -> None:
        # Enter runs the line found, as bash does.
        memory.end_search()
        buffer.validate_and_handle()

    for key in _ENDS_SEARCH:

        @kb.add(key, filter=on_prompt & searching)
        def _leave(event: KeyPressEvent) -> None:
            memory.end_search()
            for press in reversed(event.key_sequence):
                event.app.key_processor.feed(press, first=True)

    return kb
