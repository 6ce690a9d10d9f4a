"""The index's change log: which session logs each write of the index changed, numbered, so a listing read
at one number learns what every writer (in any process) changed since, not only its own refresh.

A picker lists every row, then refreshes and reads again only the rows its refresh changed. Another writer
(this client's first-frame refresh on another thread, `dsh sessions` in another terminal) that indexed a
new log between that listing and that refresh left the refresh nothing to change, and the new session was
never shown: an empty /resume, for as long as it stayed open.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import NamedTuple

# Writes remembered: a listing older than this many writes reads every row again.
KEPT = 64
# A write that changed more logs than this is kept as "many" (a first build: every row is read again).
PATHS_KEPT = 2000

STATEMENTS = (
    "CREATE TABLE IF NOT EXISTS changes (generation INTEGER PRIMARY KEY, paths TEXT, agents INTEGER NOT NULL)",
)


class Changes(NamedTuple):
    """What the writes after one generation changed."""

    generation: int  # the newest write's number (the one to ask from next time)
    paths: list[str] | None  # the session logs added, changed or gone; None: not known (read every row)
    agents: bool  # agent conversations changed


def record(conn: sqlite3.Connection, paths: Sequence[str], *, agents: bool = False) -> None:
    """Number this write (inside its transaction) and keep what it changed."""
    for statement in STATEMENTS:  # an index made before this table: no rebuild for it
        conn.execute(statement)
    kept = json.dumps(list(paths)) if len(paths) <= PATHS_KEPT else None
    conn.execute("INSERT INTO changes (paths, agents) VALUES (?, ?)", (kept, int(agents)))
    conn.execute("DELETE FROM changes WHERE generation <= (SELECT max(generation) FROM changes) - ?", (KEPT,))


def generation(conn: sqlite3.Connection) -> int:
    """The number of the newest write (0 before the first, or in an index that keeps no log)."""
    try:
        row = conn.execute("SELECT max(generation) FROM changes").fetchone()
    except sqlite3.OperationalError:  # no such table: no write has been numbered yet
        return 0
    return int(row[0] or 0)


def since(conn: sqlite3.Connection, after: int) -> Changes:
    """What the writes numbered after `after` changed."""
    try:
        rows = conn.execute(
            "SELECT generation, paths, agents FROM changes WHERE generation > ? ORDER BY generation", (after,)
        ).fetchall()
        low = conn.execute("SELECT min(generation), max(generation) FROM changes").fetchone()
    except sqlite3.OperationalError:
        return Changes(0, None if after else [], False)
    oldest, newest = int(low[0] or 0), int(low[1] or 0)
    if not rows:
        # None newer; an index started over (a rebuild) numbers from 1 again: what changed is not known.
        return Changes(newest, None if after > newest else [], False)
    # Writes are numbered one after another and forgotten oldest first: a gap is writes forgotten.
    paths: list[str] | None = None if oldest > after + 1 else []
    for _, text, _ in rows:
        if paths is None or text is None:
            paths = None
            continue
        paths.extend(json.loads(text))
    if paths is not None:
        paths = list(dict.fromkeys(paths))
    return Changes(newest, paths, any(agents for _, _, agents in rows))
