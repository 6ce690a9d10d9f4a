"""Every listed session's title and first line, and its whole searched text, lowered, in listing order: a
narrow table the picker's searches at the open scan instead of wide rows, kept in step by triggers.

A LIKE of a query's letters over the covering index of the titles (`SEARCH_INDEX`) read 100,000 rows
of eight columns and joined two of them for each: 55-60 ms, the most of what a query typed at the open
waited for. The same search over this table is a GLOB of a lowered pattern over one lowered column:
about 16 ms. The triggers keep it right whichever process (or dsh version) writes a session; it is keyed
by the log's path, as `INSERT OR REPLACE` fires no delete trigger.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

TABLE = "session_titles"

# A super-sequence of a row's whole searched text in the picker (title · first line · id · label): the
# title may fall back to the first line or `untitled`, the label is the cwd with `~` for the home folder,
# or `(no workspace)`. `{p}` is the row's prefix (`NEW.`, or none).
_WIDE = (
    "({p}title || ' · ' || coalesce({p}first_input, '') || ' · untitled · ' || coalesce({p}first_input, '')"
    " || ' · ' || {p}id || ' · ~' || coalesce({p}cwd, '') || ' (no workspace)')"
)


def wide_text(prefix: str = "") -> str:
    """The SQL of that text for the row `prefix` names."""
    return _WIDE.format(p=prefix)


def _row(row: str) -> str:
    """The table's columns, made of the `sessions` row `row` names: its texts lowered as SQLite lowers them
    (the first as `index.matching` always read it)."""
    text = f"lower({row}.title || ' ' || coalesce({row}.first_input, ''))"
    keys = f"{row}.path, {row}.rowid, {row}.root, {row}.updated_at, {row}.mtime_ns, {row}.id"
    return f"{keys}, {text}, lower({wide_text(row + '.')})"


def _insert(row: str) -> str:
    return f"INSERT INTO {TABLE} SELECT {_row(row)} WHERE {row}.archived = 0;"


STATEMENTS = (
    # `path` takes no type: it is TEXT or the BLOB of a path that is not UTF-8, as in `sessions`.
    f"CREATE TABLE IF NOT EXISTS {TABLE} (path PRIMARY KEY, rid INTEGER NOT NULL, root TEXT NOT NULL,"
    " updated_at TEXT NOT NULL, mtime_ns INTEGER NOT NULL, id TEXT NOT NULL, text TEXT NOT NULL, wide TEXT NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_order ON {TABLE} (root, updated_at DESC, mtime_ns DESC, id DESC, text, rid)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_wide ON {TABLE} (root, updated_at DESC, mtime_ns DESC, id DESC, wide, rid)",
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_insert AFTER INSERT ON sessions BEGIN"
    f" DELETE FROM {TABLE} WHERE path = NEW.path; {_insert('NEW')} END",
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_update AFTER UPDATE OF"
    " path, root, updated_at, mtime_ns, id, title, first_input, archived ON sessions BEGIN"
    f" DELETE FROM {TABLE} WHERE path = OLD.path; {_insert('NEW')} END",
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_delete AFTER DELETE ON sessions BEGIN"
    f" DELETE FROM {TABLE} WHERE path = OLD.path; END",
)

_OBJECTS = (TABLE, f"{TABLE}_order", f"{TABLE}_wide", f"{TABLE}_insert", f"{TABLE}_update", f"{TABLE}_delete")


def present(conn: sqlite3.Connection) -> bool:
    """Whether the table and every trigger that keeps it are in this index."""
    sql = f"SELECT count(*) FROM sqlite_master WHERE name IN ({', '.join('?' for _ in _OBJECTS)})"
    return int(conn.execute(sql, _OBJECTS).fetchone()[0]) == len(_OBJECTS)


# A write of more sessions than this drops the table and makes it again after (`drop`, `create`).
BULK_ROWS = 2000


def drop(conn: sqlite3.Connection) -> None:
    """The table, its index and its triggers gone (inside a write transaction that then calls `create`)."""
    for name in _OBJECTS[3:]:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    conn.execute(f"DROP TABLE IF EXISTS {TABLE}")


def create(conn: sqlite3.Connection) -> None:
    """Make the table, fill it from `sessions`, then its index and triggers (inside a write transaction):
    about 1 s at 100,000 sessions. The index is made over the filled table, in order: filled through
    it, its pages were half empty and a scan of it read more of them."""
    drop(conn)  # a part left by a crash, or a table to make again whole
    table, order, wide, *triggers = STATEMENTS
    conn.execute(table)
    conn.execute(f"INSERT INTO {TABLE} SELECT {_row('sessions')} FROM sessions WHERE sessions.archived = 0")
    conn.execute(order)
    conn.execute(wide)
    for statement in triggers:
        conn.execute(statement)


def glob_subsequence(term: str) -> str:
    """A GLOB pattern that holds where `term`'s characters occur in order (lowered by SQL's `lower`, as
    the text is: ASCII case aside, as LIKE matches)."""
    return "*" + "*".join(f"[{ch}]" if ch in "*?[" else ch for ch in term) + "*"


def matching_ids(
    conn: sqlite3.Connection, root: object, terms: Sequence[str], limit: int, *, wide: bool = False
) -> list[int]:
    """The `sessions` row ids of the newest `limit` listed sessions of `root` whose title or first line
    (`wide`: whole searched text, `wide_text`) hold every term as a sub-sequence, ASCII case aside."""
    column, index = ("wide", f"{TABLE}_wide") if wide else ("text", f"{TABLE}_order")
    where = " AND ".join(["root = ?", *(f"{column} GLOB lower(?)" for _ in terms)])
    sql = (
        f"SELECT rid FROM {TABLE} INDEXED BY {index} WHERE {where}"
        f" ORDER BY updated_at DESC, mtime_ns DESC, id DESC LIMIT {int(limit)}"
    )
    return [int(row[0]) for row in conn.execute(sql, [root, *map(glob_subsequence, terms)])]
