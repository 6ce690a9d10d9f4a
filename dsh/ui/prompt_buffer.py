"""The prompt's buffer: a line of at most PROMPT_MAX characters, and an undo history of bounded size."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.buffer import Buffer

# The prompt holds a command line, not a document: what would make it longer is refused, said once.
PROMPT_MAX = 1 << 20
# prompt_toolkit keeps the whole text at every undo step: a long line typed a key at a time kept every
# prefix of it (64 KB typed held 2 GB). The steps kept hold at most this many characters together.
UNDO_CHARS = 4 << 20


class PromptBuffer(Buffer):
    """A Buffer whose text stops at `PROMPT_MAX` (`refused(count)` is told what did not fit) and whose
    undo steps together hold at most `UNDO_CHARS` characters (the oldest go first)."""

    def __init__(self, *, refused: Callable[[int], None], **kwargs: Any) -> None:
        self._refused = refused
        self._undo_chars = 0
        super().__init__(**kwargs)

    def insert_text(
        self, data: str, overwrite: bool = False, move_cursor: bool = True, fire_event: bool = True
    ) -> None:
        room = PROMPT_MAX - len(self.text)
        if len(data) > room:
            self._refused(len(data) - max(room, 0))
            data = data[: max(room, 0)]
            if not data:
                return
        super().insert_text(data, overwrite=overwrite, move_cursor=move_cursor, fire_event=fire_event)

    def save_to_undo_stack(self, clear_redo_stack: bool = True) -> None:
        stack = self._undo_stack
        before = len(stack[-1][0]) if stack else 0
        count = len(stack)
        super().save_to_undo_stack(clear_redo_stack)
        if len(stack) > count:
            self._undo_chars += len(stack[-1][0])
        elif stack:
            self._undo_chars += len(stack[-1][0]) - before
        if self._undo_chars > UNDO_CHARS or len(stack) > 1000:
            self._undo_chars = sum(len(text) for text, _ in stack)
            drop = 0
            while drop < len(stack) - 1 and (self._undo_chars > UNDO_CHARS or len(stack) - drop > 1000):
                self._undo_chars -= len(stack[drop][0])
                drop += 1
            del stack[:drop]

    def reset(self, *args: Any, **kwargs: Any) -> None:
        super().reset(*args, **kwargs)
        self._undo_chars = 0
