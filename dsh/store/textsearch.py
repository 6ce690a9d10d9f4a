"""Full-text search over every line typed in a session and every agent prompt (SQLite FTS5, trigram).

The lines live in `lines` (owner, text): each row holds the lines one refresh found for one owner, joined
by newlines (a newline typed inside a line is kept as a space: no search term holds whitespace, so the
same lines match). `lines_fts` indexes them (external content, synced in batches by `sync`). An owner is
`s:<session id>` for a dsh session or `a:<kind>:<id>` for an agent conversation. A trigram index finds
any substring of three characters or more, case-insensitively, in a few ms at millions of lines; shorter
terms cannot use it and are left to the fuzzy search.

A row per line cost a first build of 10,000 sessions as much as everything else it does (170,000 rows,
each with its owner, in the table and the owner index); a row per owner and refresh is 10,000 rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple

# Statements one at a time (executescript would commit an open transaction). No triggers: a row at a time
# through a trigger took 8x as long as one INSERT … SELECT of every new row (`sync`).
STATEMENTS = [
    # AUTOINCREMENT: an id is never given twice, or rows added after the newest were removed would get
    # ids `lines_synced` already counts as indexed, and never be searchable.
    "CREATE TABLE lines (id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, text TEXT NOT NULL)",
    "CREATE INDEX lines_by_owner ON lines (owner)",
    "CREATE VIRTUAL TABLE lines_fts USING fts5(text, content='lines', content_rowid='id', tokenize='trigram')",
    "CREATE TABLE lines_synced (id INTEGER NOT NULL)",  # rows up to this id are in lines_fts
    "INSERT INTO lines_synced (id) VALUES (0)",
]
MIN_TERM = 3
# Rows looked at per search (each holds one or more lines): the newest first; enough for a picker's rows.
SEARCH_ROWS = 400


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
    add_owned_lines(conn, [(owner, lines)])


def add_owned_lines(conn: sqlite3.Connection, batches: Iterable[tuple[str, Iterable[str]]]) -> None:
    """Add the lines of many owners in one statement, a row for each owner's lines."""
    rows = ((_utf8(owner), _joined(lines)) for owner, lines in batches)
    conn.executemany("INSERT INTO lines (owner, text) VALUES (?, ?)", (row for row in rows if row[1]))


def _joined(lines: Iterable[str]) -> str:
    text = "\n".join(line.replace("\n", " ") for line in lines if line)
    return text if text.isascii() else _utf8(text)


def owners_with_lines(conn: sqlite3.Connection, owners: Sequence[str]) -> set[str]:
    """Those of `owners` that have lines stored."""
    out: set[str] = set()
    for start in range(0, len(owners), 500):
        chunk = [_utf8(owner) for owner in owners[start : start + 500]]
        sql = f"SELECT DISTINCT owner FROM lines WHERE owner IN ({', '.join('?' * len(chunk))})"
        out.update(owner for (owner,) in conn.execute(sql, chunk))
    return out


def _utf8(text: str) -> str:
    """Text SQLite can store: a byte that was not UTF-8 (a lone surrogate) becomes U+FFFD for the search."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def remove_owner(conn: sqlite3.Connection, owner: str) -> None:
    if conn.execute("SELECT 1 FROM lines WHERE owner = ? LIMIT 1", (owner,)).fetchone() is None:
        return  # nothing to take out (a first build): no sync, so new lines go in as one batch
    sync(conn)  # a row must be in the full-text index before it can be taken out of it
    conn.execute(
        "INSERT INTO lines_fts (lines_fts, rowid, text) SELECT 'delete', id, text FROM lines WHERE owner = ?",
        (owner,),
    )
    conn.execute("DELETE FROM lines WHERE owner = ?", (owner,))


def sync(conn: sqlite3.Connection, limit: int | None = None) -> bool:
    """Index the rows added since the last sync (at most `limit`, in one statement); True if some are left."""
    (synced,) = conn.execute("SELECT id FROM lines_synced").fetchone()
    (last,) = conn.execute("SELECT coalesce(max(id), 0) FROM lines").fetchone()
    upto = last if limit is None else min(last, synced + limit)
    if upto > synced:
        conn.execute(
            "INSERT INTO lines_fts (rowid, text) SELECT id, text FROM lines WHERE id > ? AND id <= ?", (synced, upto)
        )
        conn.execute("UPDATE lines_synced SET id = ?", (upto,))
    return bool(upto < last)


def _terms(query: str) -> list[str]:
    return [term for term in query.split() if len(term) >= MIN_TERM]


def match_expression(query: str) -> str | None:
    """The FTS5 query for a picker query: every term of three characters or more, as a quoted phrase;
    None when no term is long enough for the trigram index."""
    terms = _terms(query)
    if not terms:
        return None
    return " AND ".join('"' + term.replace('"', '""') + '"' for term in terms)


def search(
    conn: sqlite3.Connection, query: str, *, limit: int = 50, owners: Collection[str] | None = None
) -> list[Hit]:
    """Owners with a line that holds every term of `query`, each with the newest such line, newest first
    (at most `limit`)."""
    expression = match_expression(query)
    if expression is None:
        return []
    folded = [term.lower() for term in _terms(query)]
    sql = (
        "SELECT lines.owner, lines.text FROM lines_fts JOIN lines ON lines.id = lines_fts.rowid"
        " WHERE lines_fts MATCH ? ORDER BY lines_fts.rowid DESC LIMIT ?"
    )
    wanted = set(owners) if owners is not None else None
    hits: list[Hit] = []
    seen: set[str] = set()
    for owner, text in conn.execute(sql, (expression, SEARCH_ROWS)):
        if owner in seen or (wanted is not None and owner not in wanted):
            continue
        line = _newest_line(text, folded)
        if line is None:  # the terms are in the row, but not all on one line
            continue
        seen.add(owner)
        hits.append(Hit(owner, line))
        if len(hits) >= limit:
            break
    return hits


def _newest_line(text: str, folded: list[str]) -> str | None:
    if "\n" not in text:
        return text  # the row is one line, and FTS5 found every term in it
    for line in reversed(text.split("\n")):
        lowered = line.lower()
        if all(term in lowered for term in folded):
            return line
    return None
