"""Reading opencode's own store, `opencode.db` (SQLite), read-only: its sessions, their message counts and
first prompts.

As opencode 1.18.33 writes it (checked here offline): a `session` row {id, project_id, parent_id,
directory, title, time_created, time_updated, time_archived, ...} is made when the first prompt is sent
(`time_created` within moments of its Enter), `message` rows {id, session_id, time_created, data: JSON
with `role`} and `part` rows {message_id, session_id, data: JSON, `{"type": "text", "text"}` for typed
text} follow. A session's `project_id` is its git checkout's root commit, or `global` outside git, and
`opencode session list` lists only the project it runs in; the database holds every project's. A
session with a `parent_id` is a subagent's, never the user's to resume. Asking the CLI costs its start
(2-3.6 s and 2.3 s of CPU here); a read of the database a millisecond.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

# A reader never waits long on opencode's writer: the next look will do.
_BUSY_SECONDS = 0.5
_PROMPT_SCAN = 40  # parts read per session to find its first typed prompt


@dataclass(frozen=True)
class OpencodeSession:
    """One top-level session as the store keeps it (times in epoch seconds)."""

    id: str
    directory: str
    title: str
    created: float
    updated: float
    project: str
    messages: int = 0
    first_prompt: str | None = None


def _connect(home: Path) -> sqlite3.Connection | None:
    path = home / "opencode.db"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # a FIFO or a device there must not hang a probe
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=_BUSY_SECONDS)
    except (OSError, sqlite3.Error):
        return None
    return conn


def _seconds(value: object) -> float | None:
    return value / 1000.0 if isinstance(value, int | float) and not isinstance(value, bool) else None


def read_sessions(
    home: Path, *, updated_since: float | None = None, details: bool = False
) -> list[OpencodeSession] | None:
    """The top-level sessions not archived (updated since `updated_since`, when given), newest first; with
    `details`, their message counts and first prompts too. None when there is no store this dsh can read
    here (none yet, not SQLite, a schema it does not know): the CLI is then the way to ask."""
    conn = _connect(home)
    if conn is None:
        return None
    try:
        rows = conn.execute(
            "SELECT id, directory, title, time_created, time_updated, project_id FROM session"
            " WHERE parent_id IS NULL AND time_archived IS NULL AND time_updated >= ? ORDER BY time_updated DESC",
            (int((updated_since or 0.0) * 1000),),
        ).fetchall()
        found: list[OpencodeSession] = []
        for sid, directory, title, created, updated, project in rows:
            created_s, updated_s = _seconds(created), _seconds(updated)
            if not isinstance(sid, str) or not isinstance(directory, str) or created_s is None:
                continue
            found.append(
                OpencodeSession(
                    sid,
                    directory,
                    title if isinstance(title, str) else "",
                    created_s,
                    updated_s if updated_s is not None else created_s,
                    project if isinstance(project, str) else "",
                )
            )
        if details:
            counts = dict(conn.execute("SELECT session_id, count(*) FROM message GROUP BY session_id").fetchall())
            found = [
                OpencodeSession(
                    s.id, s.directory, s.title, s.created, s.updated, s.project, counts.get(s.id, 0), _first(conn, s.id)
                )
                for s in found
            ]
        return found
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def _first(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The text of the session's first user message."""
    rows = conn.execute(
        "SELECT m.id, m.data, p.data FROM message m JOIN part p ON p.message_id = m.id"
        " WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id LIMIT ?",
        (session_id, _PROMPT_SCAN),
    ).fetchall()
    for _, message, part in rows:
        if _field(message, "role") != "user" or _field(part, "type") != "text":
            continue
        text = _field(part, "text")
        if isinstance(text, str) and text.strip():
            return text
    return None


def _field(raw: object, name: str) -> object:
    if not isinstance(raw, str | bytes):
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return data.get(name) if isinstance(data, dict) else None
