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

# Statements one at a time (executescript would commit an open transaction); triggers hold `;` inside.
STATEMENTS = [
    "CREATE TABLE lines (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, text TEXT NOT NULL)",
    "CREATE INDEX lines_by_owner ON lines (owner)",
    "CREATE VIRTUAL TABLE lines_fts USING fts5(text, content='lines', content_rowid='id', tokenize='trigram')",
    "CREATE TRIGGER lines_added AFTER INSERT ON lines BEGIN"
    " INSERT INTO lines_fts (rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER lines_removed AFTER DELETE ON lines BEGIN"
    " INSERT INTO lines_fts (lines_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
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
    conn.execute("DELETE FROM lines WHERE owner = ?", (owner,))
    add_lines(conn, owner, lines)


def add_lines(conn: sqlite3.Connection, owner: str, lines: Iterable[str]) -> None:
    conn.executemany("INSERT INTO lines (owner, text) VALUES (?, ?)", ((owner, line) for line in lines if line))


def remove_owner(conn: sqlite3.Connection, owner: str) -> None:
    conn.execute("DELETE FROM lines WHERE owner = ?", (owner,))


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
