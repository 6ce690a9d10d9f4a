"""prompt_toolkit completion for the REPL prompt, from the command registry's own table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from dsh.commands.registry import Registry


class RegistryCompleter(Completer):
    """Completes `/command` names and their arguments; plain shell lines are left alone."""

    def __init__(self, registry: Registry, ctx: Any = None) -> None:
        self.registry = registry
        self.ctx = ctx

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or text.startswith("//"):
            return
        for item in self.registry.complete(text, self.ctx):
            yield Completion(
                item.text,
                start_position=item.start_position,
                display=item.display or item.text,
                display_meta=item.meta or "",
            )
