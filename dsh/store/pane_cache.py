"""The index's copy of each snapshot's pane records, keyed by the file's size, mtime and inode."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

# (size, mtime_ns, inode) of the snapshot the records were read from; a snapshot is replaced by a
# rename, so any write gives it a new inode even within one timestamp tick.
Key = tuple[int, int, int]


def load(conn: sqlite3.Connection, where: str, params: Sequence[object]) -> dict[str, tuple[Key, str]]:
    """The kept entries of the sessions a listing shows (`where` and `params` select them from the
    sessions table): session id -> (the snapshot's key, its records as JSON text). A listing of one
    workspace does not read every session's records."""
    sql = (
        "SELECT session_id, size, mtime_ns, ino, panes FROM snapshot_panes"
        f" WHERE session_id IN (SELECT id FROM sessions WHERE {where})"
    )
    return {sid: ((size, mtime_ns, ino), panes) for sid, size, mtime_ns, ino, panes in conn.execute(sql, params)}


def save(conn: sqlite3.Connection, fresh: Iterable[tuple[str, Key, str]], gone: Iterable[str]) -> None:
    """Keep the records read this time, and forget the sessions whose state folder is gone."""
    conn.executemany(
        "INSERT OR REPLACE INTO snapshot_panes (session_id, size, mtime_ns, ino, panes) VALUES (?, ?, ?, ?, ?)",
        [(sid, *key, panes) for sid, key, panes in fresh],
    )
    conn.executemany("DELETE FROM snapshot_panes WHERE session_id = ?", [(sid,) for sid in gone])
