"""The index's finished `dsh sessions --json` rows of sessions with saved panes, kept while nothing they
were made from has changed: the log (its size and mtime, as the sessions table has it), the snapshot
(size, mtime and inode) and what each agent pane's state was read from (agents/lookups.py).

A row is kept as the listing writes it (json.dumps of the row with its panes) around the two values
that change without any of those changing, the workspace label and the title, which the listing's
query joins in (see json_listing). A session that is live is never kept: its panes are its host's now.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# path, (log size, log mtime_ns), (snapshot size, mtime_ns, inode), checks (JSON or None), head, tail
Kept = tuple[str, tuple[int, int], tuple[int, int, int], str | None, str, str]


def save(conn: sqlite3.Connection, kept: Iterable[Kept], dropped: Iterable[str]) -> None:
    """Forget the rows that no longer held, then keep the rows made this time."""
    conn.executemany("DELETE FROM listed_rows WHERE row_path = ?", [(path,) for path in dropped])
    conn.executemany(
        "INSERT OR REPLACE INTO listed_rows (row_path, log_size, log_mtime_ns, snap_size, snap_mtime_ns,"
        " snap_ino, checks, row_head, row_tail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(path, *log, *snapshot, checks, head, tail) for path, log, snapshot, checks, head, tail in kept],
    )


def forget(conn: sqlite3.Connection, paths: Iterable[str | bytes]) -> None:
    """Drop the rows of logs that are gone (the index's refresh removes their sessions)."""
    conn.executemany("DELETE FROM listed_rows WHERE row_path = ?", [(path,) for path in paths])
