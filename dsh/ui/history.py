"""The prompt's history for prompt_toolkit: the workspace's PromptHistory, whose failures are messages."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prompt_toolkit.history import History

from dsh.store.history import PromptHistory


class WorkspaceHistory(History):
    """prompt_toolkit's History over a PromptHistory. Saving runs inside the prompt's Enter handler,
    so it never raises: a full disk or a planted FIFO is one message and the prompt goes on as usual."""

    def __init__(self, model: PromptHistory, on_error: Callable[[str], None]) -> None:
        super().__init__()
        self.model = model
        self._on_error = on_error

    def load_history_strings(self) -> Iterable[str]:
        try:
            entries = self.model.load()
        except (OSError, ValueError) as exc:
            self._on_error(f"prompt history not loaded: {exc}")
            return []
        return reversed(entries)

    def store_string(self, string: str) -> None:
        try:
            self.model.append(string)
        except (OSError, ValueError) as exc:
            self._on_error(f"prompt history not saved: {exc}")
