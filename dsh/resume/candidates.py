"""One picker row per session: display-safe text and the reason it cannot be resumed, if any."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from dsh.text import sanitize

CURRENT_SESSION = "this is the current session"
NO_WORKSPACE = "session has no recorded workspace"
UNTITLED = "untitled"
# A title or input longer than this is never shown whole on one row anyway.
_TEXT_MAX = 300


def clean(value: object, max_len: int = _TEXT_MAX) -> str:
    """`sanitize`, with a fast path for the usual text that has nothing to escape."""
    if not isinstance(value, str):
        return "" if value is None else sanitize(str(value), max_len)
    if len(value) <= max_len and value.isascii() and value.isprintable():
        return value
    return sanitize(value, max_len)


def live_reason(pid: int) -> str:
    return f"open in another dsh (pid {pid})"


def _label(cwd: str | None) -> str:
    if not cwd:
        return "(no workspace)"
    home = os.path.expanduser("~").rstrip("/")
    if home and (cwd == home or cwd.startswith(home + "/")):
        return "~" + cwd[len(home) :]
    return cwd


@dataclass(frozen=True, slots=True)
class Candidate:
    id: str
    cwd: str | None
    workspace_label: str
    title: str
    first_input: str
    created_at: str
    updated_at: str
    pane_count: int
    live_pid: int | None
    unresumable_reason: str | None
    preview: tuple[str, ...]
    workspace: str | None = None  # the store's partition key, when known: a workspace's other cwds

    @property
    def disabled(self) -> bool:
        return self.unresumable_reason is not None

    @classmethod
    def from_summary(cls, summary: Any, *, current_session_id: str | None, own_pid: int) -> Candidate:
        """Build a row from a store summary (any object with the Summary fields).

        Every text is shown escaped, never interpreted; the session id stays raw (ids are validated by
        the store and again by preflight), but its display copy in the title never carries controls.
        """
        cwd = summary.cwd if isinstance(summary.cwd, str) and summary.cwd else None
        live_pid = summary.live_pid if isinstance(summary.live_pid, int) else None
        reason = summary.unresumable_reason or None
        if reason is None and cwd is None:
            reason = NO_WORKSPACE
        if reason is None and current_session_id is not None and summary.id == current_session_id:
            reason = CURRENT_SESSION
        if reason is None and live_pid is not None and live_pid != own_pid:
            reason = live_reason(live_pid)
        first_input = clean(summary.first_input or "")
        title = clean(summary.title or "") or first_input or UNTITLED
        label = getattr(summary, "workspace_label", None) or _label(cwd)
        return cls(
            id=clean(summary.id, 64),
            cwd=cwd,
            workspace_label=clean(label),
            title=title,
            first_input=first_input,
            created_at=clean(summary.created_at or "", 64),
            updated_at=clean(summary.updated_at or "", 64),
            pane_count=summary.pane_count if isinstance(summary.pane_count, int) else 0,
            live_pid=live_pid,
            unresumable_reason=clean(reason) if reason is not None else None,
            preview=tuple(clean(line) for line in (summary.preview or ())),
            workspace=getattr(summary, "workspace", None),
        )
