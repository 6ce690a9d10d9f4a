"""One agent conversation as its transcript is read, a chunk at a time: what the picker shows of it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from dsh.store.agent_table import ConversationRow
from dsh.store.timefmt import iso_from_epoch

NO_PROMPT = "(no prompt yet)"
TITLE_MAX = 200
LINE_MAX = 500
_SPACE = re.compile(r"\s+")


def one_line(text: str, limit: int = LINE_MAX) -> str:
    """A prompt as one line of text (whitespace runs as one space), cut to `limit` characters."""
    flat = _SPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass
class Fold:
    """What is known of a conversation after reading its transcript up to some point."""

    kind: str
    id: str
    cwd: str | None = None
    first_prompt: str | None = None
    custom_title: str | None = None
    summary: str | None = None
    message_count: int = 0
    prompt_count: int = 0
    branch: str | None = None
    created_at: str | None = None
    updated_at: str | None = None

    @property
    def title(self) -> str:
        """Its rename, else its summary, else its first prompt (as Claude Code's own /resume shows it)."""
        return self.custom_title or self.summary or self.first_prompt or NO_PROMPT

    def prompt(self, text: str) -> str | None:
        """Count a prompt the user sent; the line the transcript search keeps of it (None for nothing)."""
        line = one_line(text)
        if not line:
            return None
        self.prompt_count += 1
        if self.first_prompt is None:
            self.first_prompt = one_line(text, TITLE_MAX)
        return line

    def to_row(
        self, *, path: str, source: str, size: int, mtime_ns: int, parsed_to: int, home: str | None
    ) -> ConversationRow:
        updated = self.updated_at or iso_from_epoch(mtime_ns / 1e9)
        return ConversationRow(
            path,
            source,
            size,
            mtime_ns,
            parsed_to,
            self.kind,
            self.id,
            f"{self.kind}:{self.id}",
            self.cwd,
            self.title,
            self.first_prompt,
            self.custom_title,
            self.summary,
            self.message_count,
            self.prompt_count,
            self.branch,
            self.created_at or updated,
            updated,
            home,
        )

    @classmethod
    def from_row(cls, row: ConversationRow) -> Fold:
        return cls(
            row.kind,
            row.id,
            row.cwd,
            row.first_prompt,
            row.custom_title,
            row.summary,
            row.message_count,
            row.prompt_count,
            row.branch,
            row.created_at,
            row.updated_at,
        )
