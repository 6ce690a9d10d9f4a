"""Agent conversations as picker rows (and `dsh sessions --agents` rows), from the index's table of them.

A conversation that a dsh session holds in an open pane is that session's row, not a row of its own.
A conversation with no message (an id given at launch and never prompted, a `/clear` with nothing
after it) cannot be resumed, so it is not listed.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Collection, Sequence
from typing import Any

from dsh.resume.candidates import Candidate, _label, clean, give_way
from dsh.store import agent_table
from dsh.store.agent_table import ConversationRow
from dsh.store.index import SessionIndex
from dsh.store.lines_column import decode_lines

NO_DIRECTORY = "conversation has no recorded directory"
RECENT_ROWS = 300
_MAKE_SLICE = 200  # rows made between two looks at whether a search or a key waits (`give_way`)


def open_agent_keys(conn: sqlite3.Connection) -> set[str]:
    """`kind:id` of every conversation held in an open pane of a dsh session that is not archived."""
    return set(open_agent_sessions(conn))


def open_agent_sessions(conn: sqlite3.Connection) -> dict[str, str]:
    """`kind:id` -> the id of the dsh session (not archived) whose open pane holds that conversation,
    the newest where two do."""
    found: dict[str, str] = {}
    # agent_key is set exactly when agents is, and is indexed: a few rows, not a walk of every session.
    sql = "SELECT id, agents FROM sessions WHERE agent_key > '' AND archived = 0 ORDER BY updated_at"
    for session_id, agents in conn.execute(sql):
        for key in decode_lines(agents):
            found[key] = session_id
    return found


def listable(row: ConversationRow) -> bool:
    return row.message_count > 0 or row.kind == "opencode"  # opencode's listing carries no counts


def candidate(row: ConversationRow) -> Candidate:
    """One conversation as a picker row; every text escaped for the screen."""
    cwd = row.cwd if row.cwd and row.cwd.startswith("/") else None
    first = clean(row.first_prompt) if row.first_prompt else ""
    preview = (first,) if first and first != clean(row.title) else ()
    return Candidate(
        clean(row.id, 64),
        cwd,
        clean(_label(cwd)),
        clean(row.title) or first or "(no prompt yet)",
        first,
        row.created_at,
        row.updated_at,
        0,
        None,
        None if cwd else NO_DIRECTORY,
        preview,
        None,
        "",
        clean(row.kind, 20),
        clean(row.branch, 80) or None if row.branch else None,
        row.message_count,
        (),
        False,
        row.home,
    )


def agent_candidates(
    conn: sqlite3.Connection,
    *,
    cwds: Sequence[str] | None = None,
    limit: int | None = None,
    kinds: Collection[str] | None = None,
    include_open: bool = False,
    like: Sequence[str] = (),
) -> list[Candidate]:
    """Conversations newest first (of `cwds`, or every directory), less those open in a dsh pane (the
    picker lists those as the session holding them) unless `include_open`."""
    global _made, _made_home
    hidden = set() if include_open else open_agent_keys(conn)
    rows = agent_table.conversations(conn, cwds=cwds, limit=limit, like=like)
    out: list[Candidate] = []
    home = os.path.expanduser("~")  # a row's label is made for it
    made = _made if _made_home == home else {}
    every = cwds is None and limit is None and not like
    now: dict[str, tuple[ConversationRow, Candidate]] = {}
    # In slices that give way (a listing's on a worker): 20,000 rows held the GIL from the loop ranking
    # a query typed meanwhile, as the dsh sessions' rows did before they were made in slices.
    for start in range(0, len(rows), _MAKE_SLICE):
        if start:
            give_way()
        for row in rows[start : start + _MAKE_SLICE]:
            if row.key in hidden or not listable(row) or (kinds is not None and row.kind not in kinds):
                continue
            before = made.get(row.path)
            # A row read again unchanged is the row made last time (a refresh that changed one
            # conversation read all 20,000 again: 0.3 s of a worker's CPU to make them rows).
            c = before[1] if before is not None and before[0] == row else candidate(row)
            out.append(c)
            if every:
                now[row.path] = (row, c)
    if every:
        _made, _made_home = now, home  # the last listing of every conversation's, and no more
    return out


# Each conversation's row as the last listing of every one read it, and the Candidate made of it.
_made: dict[str, tuple[ConversationRow, Candidate]] = {}
_made_home = ""


def agent_count(conn: sqlite3.Connection) -> int:
    """How many rows `agent_candidates` lists with no filter, without listing them."""
    listed = "(message_count > 0 OR kind = 'opencode')"
    total = int(conn.execute(f"SELECT count(*) FROM agent_conversations WHERE {listed}").fetchone()[0])
    hidden = sorted(open_agent_keys(conn))
    return total - sum(listable(row) for row in agent_table.by_keys(conn, hidden).values())


def read_agent_candidates(index: SessionIndex, **kw: Any) -> tuple[list[Candidate], list[str]]:
    """`agent_candidates` through an index, never raising: ([], [why]) when the index cannot be read."""
    try:
        return index.read(lambda conn: agent_candidates(conn, **kw)), []
    except sqlite3.Error as exc:
        return [], [f"agent conversations: {exc}"]


def conversation_titles(conn: sqlite3.Connection, keys: Sequence[str]) -> dict[str, str]:
    """`kind:id` -> the conversation's title (for a live session's status line)."""
    return {key: row.title for key, row in agent_table.by_keys(conn, keys).items() if listable(row)}


def find_conversation(conn: sqlite3.Connection, kind: str, session_id: str) -> ConversationRow | None:
    found = agent_table.by_keys(conn, [f"{kind}:{session_id}"])
    return found.get(f"{kind}:{session_id}")
