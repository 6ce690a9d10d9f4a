"""The finished `dsh sessions --json` row of a session with saved panes, kept in its own index row (the
`kept_*` columns) while nothing it was made from has changed: the log (the index row is replaced, and
with it what was kept, when the log changes; the snapshot changes only with it, see
persist/listing.py) and what each agent pane's state was read from (agents/lookups.py).

A row is kept as the listing writes it (json.dumps of the row with its panes) around the two values
that change without any of those changing, the workspace label and the title, which the listing's
query joins in (see json_listing). A session that is live is never kept: its panes are its host's now.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# path, (log size, log mtime_ns) as listed, checks (JSON or None), head, tail
Kept = tuple[str, tuple[int, int], str | None, str, str]


def save(conn: sqlite3.Connection, kept: Iterable[Kept], dropped: Iterable[str]) -> None:
    """Forget the rows that no longer held, then keep the rows made this time: each only while its index
    row is the one listed (another process's refresh may have parsed the log again since)."""
    conn.executemany(
        "UPDATE sessions SET kept_checks = NULL, kept_head = NULL, kept_tail = NULL WHERE path = ?",
        [(path,) for path in dropped],
    )
    conn.executemany(
        "UPDATE sessions SET kept_checks = ?, kept_head = ?, kept_tail = ?"
        " WHERE path = ? AND size = ? AND mtime_ns = ?",
        [(checks, head, tail, path, *log) for path, log, checks, head, tail in kept],
    )
