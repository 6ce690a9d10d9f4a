"""Agent conversations in the derived index: one row per conversation of an agent's store (Claude Code,
Codex, opencode), refreshed by (path, size, mtime) and read on from where the last read stopped."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import NamedTuple

STATEMENTS = [
    """CREATE TABLE agent_conversations (
        path TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        parsed_to INTEGER NOT NULL,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        key TEXT NOT NULL,
        cwd TEXT,
        title TEXT NOT NULL,
        first_prompt TEXT,
        custom_title TEXT,
        summary TEXT,
        message_count INTEGER NOT NULL,
        prompt_count INTEGER NOT NULL,
        branch TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        home TEXT,
        ino INTEGER NOT NULL DEFAULT 0,
        mark INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX agent_by_key ON agent_conversations (key)",
    "CREATE INDEX agent_by_cwd ON agent_conversations (cwd)",
    "CREATE INDEX agent_by_time ON agent_conversations (updated_at DESC)",
    "CREATE TABLE agent_sources (source TEXT PRIMARY KEY, stamp TEXT NOT NULL)",
]

# The texts the picker's first search of the conversations reads, in listing order: its LIKE walks this
# instead of every wide row by time (3 ms against 12 ms at 20,000 conversations). Made where it is missing
# (store/index.py `_ensure_search_index`), so no index is built again for it.
SEARCH_INDEX = (
    "CREATE INDEX IF NOT EXISTS agent_search ON agent_conversations (updated_at DESC, id DESC, title, first_prompt)"
)

COLUMNS = (
    "path",
    "source",
    "size",
    "mtime_ns",
    "parsed_to",
    "kind",
    "id",
    "key",
    "cwd",
    "title",
    "first_prompt",
    "custom_title",
    "summary",
    "message_count",
    "prompt_count",
    "branch",
    "created_at",
    "updated_at",
    "home",
)
_UPSERT = f"INSERT OR REPLACE INTO agent_conversations ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM agent_conversations"


class ConversationRow(NamedTuple):
    """One stored conversation, column for column."""

    path: str
    source: str
    size: int
    mtime_ns: int
    parsed_to: int
    kind: str
    id: str
    key: str  # `kind:id`
    cwd: str | None
    title: str
    first_prompt: str | None
    custom_title: str | None
    summary: str | None
    message_count: int
    prompt_count: int
    branch: str | None
    created_at: str
    updated_at: str
    home: str | None


def known(conn: sqlite3.Connection, source: str) -> dict[str, tuple[int, int, int]]:
    """path -> (size, mtime_ns, inode) of every transcript of `source` as last read."""
    rows = conn.execute("SELECT path, size, mtime_ns, ino FROM agent_conversations WHERE source = ?", (source,))
    return {path: (size, mtime, ino) for path, size, mtime, ino in rows}


def marks(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, tuple[int, int]]:
    """path -> (inode, mark): the file a row was read from, and the CRC-32 of the last bytes read
    (`MARK_BYTES` before `parsed_to`), which an append leaves as they were and a rewrite does not."""
    out: dict[str, tuple[int, int]] = {}
    for start in range(0, len(paths), 500):
        chunk = list(paths[start : start + 500])
        sql = f"SELECT path, ino, mark FROM agent_conversations WHERE path IN ({', '.join('?' * len(chunk))})"
        out.update((path, (ino, mark)) for path, ino, mark in conn.execute(sql, chunk))
    return out


def set_marks(conn: sqlite3.Connection, found: Iterable[tuple[str, int, int]]) -> None:
    """(path, inode, mark) of rows just written."""
    conn.executemany(
        "UPDATE agent_conversations SET ino = ?, mark = ? WHERE path = ?", ((i, m, p) for p, i, m in found)
    )


MARK_BYTES = 4096


def row_at(conn: sqlite3.Connection, path: str) -> ConversationRow | None:
    found = conn.execute(_SELECT + " WHERE path = ?", (path,)).fetchone()
    return ConversationRow(*found) if found else None


def rows_at(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, ConversationRow]:
    out: dict[str, ConversationRow] = {}
    for start in range(0, len(paths), 500):
        chunk = list(paths[start : start + 500])
        for row in conn.execute(_SELECT + f" WHERE path IN ({', '.join('?' * len(chunk))})", chunk):
            out[row[0]] = ConversationRow(*row)
    return out


def upsert(conn: sqlite3.Connection, rows: Iterable[ConversationRow]) -> None:
    conn.executemany(_UPSERT, rows)


def delete(conn: sqlite3.Connection, paths: Sequence[str]) -> None:
    conn.executemany("DELETE FROM agent_conversations WHERE path = ?", ((p,) for p in paths))


def stamp(conn: sqlite3.Connection, source: str) -> str | None:
    found = conn.execute("SELECT stamp FROM agent_sources WHERE source = ?", (source,)).fetchone()
    return found[0] if found else None


def set_stamp(conn: sqlite3.Connection, source: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO agent_sources (source, stamp) VALUES (?, ?)", (source, value))


def conversations(
    conn: sqlite3.Connection,
    *,
    cwds: Sequence[str] | None = None,
    limit: int | None = None,
    sources: Sequence[str] | None = None,
    like: Sequence[str] = (),
    wide: bool = False,
) -> list[ConversationRow]:
    """Conversations newest first: those recorded in one of `cwds`, or all; of `sources`, or of every one;
    whose title or first prompt match every LIKE pattern of `like` (escape character `\\`). `wide`: the
    whole text the picker searches in a conversation's row instead, as a super-sequence of it (`WIDE_TEXT`)."""
    where: list[str] = []
    params: list[object] = []
    text = WIDE_TEXT if wide else "(title || ' ' || coalesce(first_prompt, ''))"
    for pattern in like:
        where.append(f"{text} LIKE ? ESCAPE '\\'")
        params.append(pattern)
    if cwds is not None:
        where.append(f"cwd IN ({', '.join('?' * len(cwds))})")
        params += list(cwds)
    if sources is not None:
        where.append(f"source IN ({', '.join('?' * len(sources))})")
        params += list(sources)
    order = " ORDER BY updated_at DESC, id DESC"
    if limit is not None:
        order += f" LIMIT {int(limit)}"
    if like and cwds is None and sources is None:
        # The row ids alone first, from `SEARCH_INDEX` where it is there; then only those rows read whole.
        ids = [
            str(int(row[0]))
            for row in conn.execute(f"SELECT rowid FROM agent_conversations WHERE {' AND '.join(where)}{order}", params)
        ]
        if not ids:
            return []
        sql = _SELECT + f" WHERE rowid IN ({', '.join(ids)}) ORDER BY updated_at DESC, id DESC"
        return [ConversationRow(*row) for row in conn.execute(sql)]
    sql = _SELECT + (" WHERE " + " AND ".join(where) if where else "") + order
    return [ConversationRow(*row) for row in conn.execute(sql, params)]


# A super-sequence of a conversation row's searched text in the picker (title · first prompt · id · label):
# the title may fall back to the first prompt or `(no prompt yet)`, the label is the cwd with `~` for the
# home folder, or `(no workspace)`.
WIDE_TEXT = (
    "(title || ' · ' || coalesce(first_prompt, '') || ' · (no prompt yet) · ' || coalesce(first_prompt, '')"
    " || ' · ' || id || ' · ~' || coalesce(cwd, '') || ' (no workspace)')"
)


def by_keys(conn: sqlite3.Connection, keys: Sequence[str]) -> dict[str, ConversationRow]:
    out: dict[str, ConversationRow] = {}
    for start in range(0, len(keys), 500):
        chunk = list(keys[start : start + 500])
        sql = _SELECT + f" WHERE key IN ({', '.join('?' * len(chunk))}) ORDER BY updated_at"
        for row in conn.execute(sql, chunk):
            out[row[7]] = ConversationRow(*row)
    return out
