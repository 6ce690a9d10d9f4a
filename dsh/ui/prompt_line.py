"""The prompt line's behaviour for one view: what Enter does with a line, a question asked on the line,
and Tab on a shell line."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.buffer import Buffer, CompletionState
from prompt_toolkit.completion import Completion
from prompt_toolkit.document import Document

from dsh.commands.parse import parse_line
from dsh.commands.registry import CommandError
from dsh.prompt.complete import CommandNames, Found, Word, complete_line
from dsh.session.saving import pane_cwd
from dsh.ui.state import Mode

if TYPE_CHECKING:
    from dsh.ui.app import DshApp

PROMPT_LABEL = "dsh› "


class PromptLine:
    """Enter, questions and shell-line completion on the prompt. The buffer, its history and the
    layout stay on the view (`prompt_buffer`, `memory`), where the keys and the chrome find them."""

    def __init__(self, view: DshApp) -> None:
        self._view = view
        # A question asked on the prompt line (tab rename, search): what its answer is given to.
        self.pending_action: Callable[[str], None] | None = None
        self.label = PROMPT_LABEL
        self._return_mode = Mode.PROMPT  # where the keyboard goes back to when the question ends
        self._commands = CommandNames()

    def accept(self, buffer: Buffer) -> bool:
        """Enter on the prompt: the answer to a question, a password for the pane, or a line to run."""
        view = self._view
        line = buffer.text
        if self.pending_action is not None:
            action = self.pending_action
            self.end_ask()  # empties the line, so the answer stays out of the prompt history
            action(line)
            return True
        if view.pane_wants_secret():
            # A password: typed into the pane, never into the history or the session log.
            buffer.set_document(Document(""), bypass_readonly=True)
            pane = view.active_pane
            if pane is not None:
                pane.terminal.write(line.encode("utf-8", "surrogateescape") + b"\r")
            return False
        remember = self._remembered(line)
        if remember:
            view.memory.remember(line)
        else:
            buffer.set_document(Document(""), bypass_readonly=True)  # an empty line is not saved
        self.handle_line(line, remember=remember)
        return False  # clear the prompt line

    def _remembered(self, line: str) -> bool:
        """Whether a line goes to the history file and the session log. Not a line starting with a
        space (HISTCONTROL=ignorespace), and not one typed to a program running in the pane rather
        than to its shell (type-ahead, an answer to a program's own question)."""
        view = self._view
        if line.startswith(" ") or not line.strip():
            return False
        pane = view.active_pane
        if pane is None or not pane.running or (line.startswith("/") and not line.startswith("//")):
            return True
        if pane.terminal.screen.shell.state is not None:  # the shell says where it is (OSC 133)
            return pane.terminal.shell_at_prompt()
        foreground = pane.terminal.foreground_process()
        return foreground is None or foreground[0] == pane.terminal.pid

    def ask(self, label: str, action: Callable[[str], None], default: str = "") -> None:
        """Use the prompt line to ask for a value (tab rename, search)."""
        view = self._view
        self._return_mode = view.mode if view.mode in (Mode.PANE, Mode.COPY) else Mode.PROMPT
        self.pending_action = action
        self.label = label
        view.state.show_prompt()  # for the question only: no choice of where keys go is made
        view.prompt_buffer.set_document(Document(default, len(default)), bypass_readonly=True)

    def end_ask(self) -> None:
        """Drop the question on the prompt line; the keyboard goes back where it was when asked."""
        view = self._view
        self.pending_action = None
        self.label = PROMPT_LABEL
        view.prompt_buffer.reset()
        back, self._return_mode = self._return_mode, Mode.PROMPT
        if back == Mode.COPY and view.active_pane is not None:
            view.mode = Mode.COPY
            view.focus("pane")
            view.invalidate()
        else:
            view.return_keyboard()

    def is_path_line(self, line: str) -> bool:
        """`/usr/bin/uname -a`: a line whose first word is an existing path, not a command name."""
        view = self._view
        if not line.startswith("/") or line.startswith("//"):
            return False
        first = line.split(None, 1)[0]
        if view.registry.get(first[1:]) is not None:
            return False
        return os.path.exists(first)

    def handle_line(self, line: str, *, remember: bool = True) -> None:
        view = self._view
        view.message = None
        typed = line
        if self.is_path_line(line):
            line = "/" + line  # run it in the pane, as `//text` would
        try:
            parsed = parse_line(line)
        except CommandError as exc:
            view.announce(str(exc), error=True)
            return
        session = view.session
        if parsed.kind == "empty":
            pane = view.active_pane
            if pane is not None and pane.startable:
                view.start_tombstone(pane)
            elif pane is not None and pane.running:
                pane.terminal.write(b"\r")
            return
        if remember:
            session.record_input(typed)
        if parsed.kind == "command":
            view.run_command(parsed.name, parsed.args)
            return
        session.send_line(parsed.text)  # a program it starts that reads keys takes the keyboard (the rule)

    def complete_shell_line(self) -> None:
        """Tab on a shell line: candidates from the pane's directory and PATH, and the command's own
        bash completion, worked out on the session's worker; shown if the line is still the same."""
        view = self._view

        pane = view.active_pane
        if pane is None:
            return
        document = view.prompt_buffer.document
        cwd = pane_cwd(pane)
        env = dict(pane.env)
        commands = self._commands

        def work() -> tuple[Word, Found]:
            return complete_line(document.text_before_cursor, cwd, env, commands)

        future = view.loop.run_in_executor(view.session.worker, work)
        future.add_done_callback(lambda done: self._show_completions(document, done))

    def _show_completions(self, document: Document, done: asyncio.Future[Any]) -> None:
        view = self._view

        buffer = view.prompt_buffer
        if done.cancelled() or done.exception() is not None or buffer.document != document:
            return  # the line changed meanwhile: this answer is for another question
        word, found = done.result()
        if not found:
            return
        typed = len(word.typed)
        if found.total == 1:
            buffer.delete_before_cursor(typed)
            buffer.insert_text(found[0].text)
            return
        prefix = found.common
        if len(prefix) > typed:
            buffer.delete_before_cursor(typed)
            buffer.insert_text(prefix)
            typed = len(prefix)
        completions = [Completion(c.text, start_position=-typed, display=c.display, display_meta=c.meta) for c in found]
        buffer.complete_state = CompletionState(buffer.document, completions)  # a menu; Tab walks it
        if found.total > len(found):
            view.announce(f"{found.total} matches: the menu shows the first {len(found)}; type more to narrow them")
        view.invalidate()
