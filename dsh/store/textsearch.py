"""Full-text search over every line typed in a session and every agent prompt (SQLite FTS5, trigram).

The lines live in `lines` (owner, text); `lines_fts` indexes them (external content, kept in step by
triggers). An owner is `s:<session id>` for a dsh session or `a:<kind>:<id>` for an agent conversation.
A trigram index finds any substring of three characters or more, case-insensitively, in a few ms at
millions of lines; shorter terms cannot use it and are left to the fuzzy search.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import NamedTuple

# Statements one at a time (executescript would commit an open transaction). No triggers: a row at a time
# through a trigger took 8x as long as one INSERT … SELECT of every new line (`sync`).
STATEMENTS = [
    "CREATE TABLE lines (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, text TEXT NOT NULL)",
    "CREATE INDEX lines_by_owner ON lines (owner)",
    "CREATE VIRTUAL TABLE lines_fts USING fts5(text, content='lines', content_rowid='id', tokenize='trigram')",
    "CREATE TABLE lines_synced (id INTEGER NOT NULL)",  # lines up to this id are in lines_fts
    "INSERT INTO lines_synced (id) VALUES (0)",
]
MIN_TERM = 3
# Lines looked at per search: the newest first; enough for the rows a picker shows.
SEARCH_LINES = 400


class Hit(NamedTuple):
    owner: str
    line: str


def session_owner(session_id: str) -> str:
    return f"s:{session_id}"


def agent_owner(kind: str, session_id: str) -> str:
    return f"a:{kind}:{session_id}"


def replace_lines(conn: sqlite3.Connection, owner: str, lines: Iterable[str]) -> None:
    remove_owner(conn, owner)
    add_lines(conn, owner, lines)


def add_lines(conn: sqlite3.Connection, owner: str, lines: Iterable[str]) -> None:
    """Add lines to the search; they are found once `sync` ran (at the end of the same transaction)."""
    conn.executemany(
        "INSERT INTO lines (owner, text) VALUES (?, ?)", ((_utf8(owner), _utf8(line)) for line in lines if line)
    )


def _utf8(text: str) -> str:
    """Text SQLite can store: a byte that was not UTF-8 (a lone surrogate) becomes U+FFFD for the search."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def remove_owner(conn: sqlite3.Connection, owner: str) -> None:
    if conn.execute("SELECT 1 FROM lines WHERE owner = ? LIMIT 1", (owner,)).fetchone() is None:
        return  # nothing to take out (a first build): no sync, so new lines go in as one batch
    sync(conn)  # a line must be in the full-text index before it can be taken out of it
    conn.execute(
        "INSERT INTO lines_fts (lines_fts, rowid, text) SELECT 'delete', id, text FROM lines WHERE owner = ?",
        (owner,),
    )
    conn.execute("DELETE FROM lines WHERE owner = ?", (owner,))


def sync(conn: sqlite3.Connection, limit: int | None = None) -> bool:
    """Index the lines added since the last sync (at most `limit`, in one statement); True if some are left."""
    (synced,) = conn.execute("SELECT id FROM lines_synced").fetchone()
    (last,) = conn.execute("SELECT coalesce(max(id), 0) FROM lines").fetchone()
    upto = last if limit is None else min(last, synced + limit)
    if upto > synced:
        conn.execute(
            "INSERT INTO lines_fts (rowid, text) SELECT id, text FROM lines WHERE id > ? AND id <= ?", (synced, upto)
        )
        conn.execute("UPDATE lines_synced SET id = ?", (upto,))
    return upto < last


def match_expression(query: str) -> str | None:
    """The FTS5 query for a picker query: every term of three characters or more, as a quoted phrase,
    all on one line; None when no term is long enough for the trigram index."""
    terms = [term for term in query.split() if len(term) >= MIN_TERM]
    if not terms:
        return None
    return " AND ".join('"' + term.replace('"', '""') + '"' for term in terms)


def search(conn: sqlite3.Connection, query: str, *, limit: int = 50, owners: Sequence[str] | None = None) -> list[Hit]:
    """Owners whose lines match `query`, the newest matching line of each, newest first (at most `limit`)."""
    expression = match_expression(query)
    if expression is None:
        return []
    sql = (
        "SELECT lines.owner, lines.text FROM lines_fts JOIN lines ON lines.id = lines_fts.rowid"
        " WHERE lines_fts MATCH ? ORDER BY lines_fts.rowid DESC LIMIT ?"
    )
    wanted = set(owners) if owners is not None else None
    hits: list[Hit] = []
    seen: set[str] = set()
    for owner, text in conn.execute(sql, (expression, SEARCH_LINES)):
        if owner in seen or (wanted is not None and owner not in wanted):
            continue
        seen.add(owner)
        hits.append(Hit(owner, text))
        if len(hits) >= limit:
            break
    return hits
