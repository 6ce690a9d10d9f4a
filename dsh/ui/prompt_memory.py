"""What the prompt remembers, for prompt_toolkit: merged history, suggestions, and C-r's search."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Iterable
from concurrent.futures import Executor
from typing import TYPE_CHECKING

from prompt_toolkit.auto_suggest import AutoSuggest, Suggestion
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.history import History

from dsh.prompt.history_sources import HistorySources
from dsh.prompt.search import ReverseSearch
from dsh.prompt.suggest import Suggester
from dsh.store.history_file import PromptHistory

if TYPE_CHECKING:
    from collections.abc import Mapping


class _MergedHistory(History):
    """Up/Down walk every tier (this workspace's newest first); Enter saves to this workspace only.
    Loading reads files, so it runs on the session's worker thread; its failures are messages."""

    def __init__(self, memory: PromptMemory, executor: Executor | None) -> None:
        super().__init__()
        self._memory = memory
        self._executor = executor

    async def load(self) -> AsyncGenerator[str, None]:
        if not self._loaded:
            loop = asyncio.get_running_loop()
            strings = await loop.run_in_executor(self._executor, lambda: list(self.load_history_strings()))
            if not self._loaded:
                # Newest first: lines stored while this loaded (append_string put them in front).
                self._loaded_strings = [s for s in self._loaded_strings if s not in strings] + strings
                self._loaded = True
        for item in self._loaded_strings:
            yield item

    def load_history_strings(self) -> Iterable[str]:
        memory = self._memory
        try:
            own = memory.store.load()
        except (OSError, ValueError) as exc:
            memory.on_error(f"prompt history not loaded: {exc}")
            own = []
        sources = HistorySources.load(memory.cwd, memory.env, own=own)
        memory.loaded(sources)
        return reversed(sources.merged())

    def store_string(self, string: str) -> None:
        try:
            self._memory.store.append(string)
        except (OSError, ValueError) as exc:
            self._memory.on_error(f"prompt history not saved: {exc}")


class PromptMemory:
    """One prompt's history, suggestions and reverse search; built from disk once, on a thread."""

    def __init__(
        self, cwd: str, env: Mapping[str, str], on_error: Callable[[str], None], executor: Executor | None = None
    ) -> None:
        self.cwd = cwd
        self.env = env
        self.on_error = on_error
        self.store = PromptHistory.for_workspace(cwd)
        self.history = _MergedHistory(self, executor)
        self.suggester = Suggester()
        self._lines: list[str] = []  # merged, oldest first
        self.search: ReverseSearch | None = None

    def loaded(self, sources: HistorySources) -> None:
        """On the loading thread: the tiers are read; make the indexes (then swap them in whole)."""
        merged = sources.merged()
        suggester = Suggester([sources.workspace, sources.others, sources.shell])
        suggester.recent = self.suggester.recent  # lines run while this was loading
        # The files may have been read before this session's lines reached them: keep those last.
        typed = list(self.suggester.recent)
        known = set(typed)
        self.suggester, self._lines = suggester, [line for line in merged if line not in known] + typed

    def remember(self, line: str) -> None:
        self.suggester.add(line)
        self._lines.append(line)

    # -- C-r -------------------------------------------------------------------------------------------
    def start_search(self, buffer: Buffer) -> ReverseSearch:
        lines = list(reversed(self._lines))
        self.search = ReverseSearch(lines, buffer.text, buffer.cursor_position)
        return self.search

    def show_search(self, buffer: Buffer) -> None:
        search = self.search
        if search is None:
            return
        text = search.match if search.match is not None else search.original
        cursor = search.cursor() if search.match is not None else search.original_cursor
        buffer.set_document(Document(text, min(cursor, len(text))), bypass_readonly=True)

    def cancel_search(self, buffer: Buffer) -> None:
        """C-g / Escape: the line and the cursor as they were before C-r."""
        search, self.search = self.search, None
        if search is not None:
            buffer.set_document(Document(search.original, search.original_cursor), bypass_readonly=True)

    def end_search(self) -> None:
        """Any other key: the found line stays on the prompt, to run or edit."""
        self.search = None


class HistorySuggest(AutoSuggest):
    """fish's grey suffix: the newest history line that starts with the whole line typed."""

    def __init__(self, memory: PromptMemory, enabled: Callable[[], bool]) -> None:
        self._memory = memory
        self._enabled = enabled

    def get_suggestion(self, buffer: Buffer, document: Document) -> Suggestion | None:
        if not self._enabled() or not document.is_cursor_at_the_end or self._memory.search is not None:
            return None
        suffix = self._memory.suggester.suggest(document.text)
        return Suggestion(suffix) if suffix else None
