"""`dsh sessions --json` written by SQLite: one JSON object per session, in the order and with the keys of
Summary.to_json() plus `panes`, built by json_object() in C.

Building 100,000 Summaries and dicts in Python and encoding them took most of the 4–5 s such a listing
took; SQLite writes the same text in a fraction of that. What SQLite cannot know is patched in Python on
the few rows that need it: the live pid of a session not closed (asked of its log's lock), the panes of
a session with a saved snapshot, and non-ASCII text (the contract is ASCII with JSON escapes).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from dsh.store.log import live_pid
from dsh.store.summary import CLOSED, CRASHED, JSON_KEYS, session_state
from dsh.store.workspace import NO_WORKSPACE, home_dir

# Column (or SQL expression) per key of JSON_KEYS; ?1 is the home folder labels shorten to `~`.
_EXPRESSIONS = {
    "workspace_label": (
        f"CASE WHEN cwd IS NULL OR cwd = '' THEN '{NO_WORKSPACE}'"
        " WHEN ?1 <> '' AND (cwd = ?1 OR substr(cwd, 1, length(?1) + 1) = ?1 || '/')"
        " THEN '~' || substr(cwd, length(?1) + 1) ELSE cwd END"
    ),
    "live_pid": "NULL",
    "archived": "CASE archived WHEN 0 THEN json('false') ELSE json('true') END",
    "preview": "json(coalesce(preview_json, '[]'))",
    "state": f"CASE closed WHEN 0 THEN '{CRASHED}' ELSE '{CLOSED}' END",
    "agents": "json(coalesce(agents_json, '[]'))",
}
_OBJECT = "json_object(" + ", ".join(f"'{key}', {_EXPRESSIONS.get(key, key)}" for key in JSON_KEYS) + ")"

Panes = Callable[[str, bool], list[dict[str, object]] | None]
Fallback = Callable[[str], dict[str, Any] | None]


def json_listing(
    conn: sqlite3.Connection,
    where: str,
    params: Sequence[object],
    *,
    include_archived: bool,
    panes: Panes,
    raw_row: Fallback,
    home: str | None = None,
) -> Iterator[str]:
    """The listing's objects as JSON text (ASCII), newest first.

    `panes(session_id, live)` gives a session's panes, or None when it has no saved snapshot (`[]` then);
    `raw_row(path)` the Summary.to_json() of a row whose text SQLite holds as bytes.
    """
    sql = f"SELECT CASE raw WHEN 0 THEN {_OBJECT} END, closed, attached, id, path FROM sessions WHERE {where}"
    if not include_archived:
        sql += " AND archived = 0"
    sql += " ORDER BY updated_at DESC, mtime_ns DESC, id DESC"
    label_home = home_dir() if home is None else home
    for text, closed, attached, session_id, path in conn.execute(sql, [label_home, *params]):
        if text is None:  # some text was not UTF-8: SQLite holds it as bytes, json_object() cannot
            data = raw_row(path if isinstance(path, str) else path.decode("utf-8", "surrogatepass"))
            if data is not None:
                data["panes"] = panes(data["id"], data["live_pid"] is not None) or []
                yield json.dumps(data)
            continue
        pid = None if closed else live_pid(Path(path))
        found = panes(session_id, pid is not None)
        if pid is None and found is None and text.isascii():
            yield text[:-1] + ',"panes":[]}'
            continue
        data = json.loads(text)
        if pid is not None:
            data["live_pid"] = pid
            data["state"] = session_state(pid, bool(closed), bool(attached))
        data["panes"] = found or []
        yield json.dumps(data)
