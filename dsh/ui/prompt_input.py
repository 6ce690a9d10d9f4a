"""One view's prompt buffer and its memory (history, suggestions, reverse search), its history read in first."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition

from dsh.session.client_state import Mode
from dsh.ui import prompt_buffer
from dsh.ui.completion import RegistryCompleter
from dsh.ui.prompt_buffer import PromptBuffer
from dsh.ui.prompt_memory import HistorySuggest, PromptMemory

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


class PromptInput:
    """The prompt's buffer (`app.prompt_buffer`) and memory (`app.memory`), where the keys and the chrome
    find them; Enter's behaviour is `PromptLine`'s."""

    def __init__(self, app: DshApp) -> None:
        self.app = app
        session = app.session
        self.memory = PromptMemory(
            session.cwd, session.env, lambda text: app.announce(text, error=True), session.worker
        )
        self.buffer: PromptBuffer = PromptBuffer(
            refused=self._full,
            name="prompt",
            multiline=False,
            history=self.memory.history,
            auto_suggest=HistorySuggest(self.memory, enabled=self._suggesting),
            completer=RegistryCompleter(app.registry, app),
            complete_while_typing=Condition(lambda: self.buffer.text.startswith("/")),
            accept_handler=app.line.accept,
        )
        self._in_buffer = asyncio.Event()
        self._loading: asyncio.Future[None] | None = None

    def _full(self, count: int) -> None:
        most = prompt_buffer.PROMPT_MAX  # read as it is now (a test makes it smaller)
        self.app.announce(
            f"the prompt holds {most // (1 << 20)} MB at most: {count} characters were not added", error=True
        )

    def _suggesting(self) -> bool:
        app = self.app
        return app.mode == Mode.PROMPT and app.line.pending_action is None and not app.pane_wants_secret()

    def label(self) -> str:
        """The prompt's label: reverse search's while it runs, else the line's (a question's, or dsh›)."""
        search = self.memory.search
        return search.label if search is not None else self.app.line.label

    def start_loading(self) -> None:
        """Read the merged history on the session's worker now, before anything else is queued there
        (suggestions want it at once)."""
        self._loading = asyncio.ensure_future(self._load())

    async def _load(self) -> None:
        async for _ in self.memory.history.load():
            break

    def into_buffer(self) -> None:
        """Put the history's lines into the buffer (Up walks them there), as the Application starts."""
        self.buffer.load_history_if_not_yet_loaded()
        # prompt_toolkit's own task that puts the lines into the buffer.
        loading = getattr(self.buffer, "_load_history_task", None)
        if isinstance(loading, asyncio.Future) and not loading.done():
            loading.add_done_callback(lambda _done: self._in_buffer.set())
        else:
            self._in_buffer.set()

    async def history_ready(self) -> None:
        """Done once the prompt's history is in its buffer: until then Up, pressed at once after an
        attach, would find nothing to go back to (the remote view holds keys until this is done)."""
        await self._in_buffer.wait()
