"""The finished `dsh sessions --json` row of a session with saved panes, kept in its own index row (the
`kept_*` columns) while nothing it was made from has changed: the log (the index row is replaced, and
with it what was kept, when the log changes; the snapshot changes only with it, see
persist/listing.py) and what each agent pane's state was read from (agents/lookups.py).

A row is kept whole, as the listing writes it (json.dumps of the row with its panes), with what its two
values that change without any of those changing were made from: the home folder the workspace label
shortens to `~` and the title. The listing's query uses it only while both are the same (see
json_listing). A session that is live is never kept: its panes are its host's now.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# One finished row to keep: path, (log size, log mtime_ns) as listed, checks (JSON or None), text, home, title
ListedRow = tuple[str, tuple[int, int], str | None, str, str, str]


def save(conn: sqlite3.Connection, kept: Iterable[ListedRow], dropped: Iterable[str]) -> None:
    """Forget the rows that no longer held, then keep the rows made this time: each only while its index
    row is the one listed (another process's refresh may have parsed the log again since)."""
    conn.executemany(
        "UPDATE sessions SET kept_checks = NULL, kept_text = NULL, kept_home = NULL, kept_title = NULL WHERE path = ?",
        [(path,) for path in dropped],
    )
    conn.executemany(
        "UPDATE sessions SET kept_checks = ?, kept_text = ?, kept_home = ?, kept_title = ?"
        " WHERE path = ? AND size = ? AND mtime_ns = ?",
        [(checks, text, home, title, path, *log) for path, log, checks, text, home, title in kept],
    )
