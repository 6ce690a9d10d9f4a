"""Preflight: re-read a session's header from disk and return its id and cwd together, or say why not."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsh.resume.candidates import NO_WORKSPACE, clean
from dsh.store.ids import ID_PATTERN


class PreflightError(Exception):
    """A session cannot be resumed; the message is for the user."""


@dataclass(frozen=True)
class Resolved:
    session_id: str
    cwd: str


def preflight(
    candidate_or_id: Any,
    *,
    find_log: Callable[[str], Path | None],
    read_header: Callable[[Path], dict[str, Any]],
) -> Resolved:
    """The id and the cwd recorded on disk *now* (a cwd that moved since the listing is the new one)."""
    session_id = candidate_or_id if isinstance(candidate_or_id, str) else getattr(candidate_or_id, "id", None)
    if not isinstance(session_id, str) or not ID_PATTERN.fullmatch(session_id):
        raise PreflightError(f"invalid session id {clean(str(session_id), 80)!r}")
    try:
        path = find_log(session_id)
    except OSError as exc:
        raise PreflightError(f"session {session_id} cannot be looked up: {clean(str(exc))}") from exc
    if path is None:
        raise PreflightError(f"session {session_id} is gone: its log is no longer in the store")
    try:
        header = read_header(path)
    # The header reader is the store's; whatever it raises on bad bytes is a message, not a traceback.
    except Exception as exc:
        raise PreflightError(f"session {session_id} cannot be read: {clean(str(exc))}") from exc
    if not isinstance(header, dict):
        raise PreflightError(f"session {session_id} cannot be read: its header is not a record")
    recorded_id = header.get("id")
    if recorded_id is not None and recorded_id != session_id:
        named = clean(str(recorded_id), 80)
        raise PreflightError(f"session {session_id} cannot be read: its header names {named!r}")
    cwd = header.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        raise PreflightError(NO_WORKSPACE)
    if "\x00" in cwd or not os.path.isabs(cwd):
        raise PreflightError(f"recorded workspace {clean(cwd)!r} is not an absolute path")
    return Resolved(session_id=session_id, cwd=cwd)
