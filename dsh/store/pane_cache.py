"""The index's copy of each snapshot's pane records, keyed by the file's size, mtime and inode."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# (size, mtime_ns, inode) of the snapshot the records were read from; a snapshot is replaced by a
# rename, so any write gives it a new inode even within one timestamp tick.
Key = tuple[int, int, int]


def get(conn: sqlite3.Connection, session_id: str) -> tuple[Key, str] | None:
    """The kept entry of one session: the snapshot's key and its records as JSON text. A listing asks
    only for the sessions whose finished row (store/listed_rows.py) no longer holds."""
    sql = "SELECT size, mtime_ns, ino, panes FROM snapshot_panes WHERE session_id = ?"
    row = conn.execute(sql, (session_id,)).fetchone()
    return ((row[0], row[1], row[2]), row[3]) if row is not None else None


def save(conn: sqlite3.Connection, fresh: Iterable[tuple[str, Key, str]], gone: Iterable[str]) -> None:
    """Keep the records read this time, and forget the sessions whose state folder is gone."""
    conn.executemany(
        "INSERT OR REPLACE INTO snapshot_panes (session_id, size, mtime_ns, ino, panes) VALUES (?, ?, ?, ?, ?)",
        [(sid, *key, panes) for sid, key, panes in fresh],
    )
    conn.executemany("DELETE FROM snapshot_panes WHERE session_id = ?", [(sid,) for sid in gone])
