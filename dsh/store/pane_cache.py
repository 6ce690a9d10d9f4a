"""The index's copy of each snapshot's pane records, keyed by the file's size, mtime and inode."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# (size, mtime_ns, inode) of the snapshot the records were read from; a snapshot is replaced by a
# rename, so any write gives it a new inode even within one timestamp tick.
Key = tuple[int, int, int]


def load(conn: sqlite3.Connection) -> dict[str, tuple[Key, str]]:
    """Every kept entry: session id -> (the snapshot's key, its records as JSON text)."""
    return {
        sid: ((size, mtime_ns, ino), panes)
        for sid, size, mtime_ns, ino, panes in conn.execute(
            "SELECT session_id, size, mtime_ns, ino, panes FROM snapshot_panes"
        )
    }


def save(conn: sqlite3.Connection, fresh: Iterable[tuple[str, Key, str]], gone: Iterable[str]) -> None:
    """Keep the records read this time, and forget the sessions whose state folder is gone."""
    conn.executemany(
        "INSERT OR REPLACE INTO snapshot_panes (session_id, size, mtime_ns, ino, panes) VALUES (?, ?, ?, ?, ?)",
        [(sid, *key, panes) for sid, key, panes in fresh],
    )
    conn.executemany("DELETE FROM snapshot_panes WHERE session_id = ?", [(sid,) for sid in gone])
