"""`dsh sessions --json` as the index stores it: one JSON object per session, in the order and with the
keys of Summary.to_json() plus `panes`, kept as text written when the log was parsed.

Building 100,000 Summaries and dicts in Python and encoding them took most of the 4–5 s such a listing
took, and SQLite's json_object() over every column most of a second still. So each row keeps its object
as two texts (`stored_json`) around the two values that change without its log changing: the workspace
label (it depends on $HOME) and the title (an agent's conversation may retitle it); SQLite joins the
three. What SQLite cannot know is patched in Python on the few rows that need it: the live pid of a
session not closed (asked of its log's lock), the panes of a session with a saved snapshot, and
non-ASCII text (the contract is ASCII with JSON escapes). A session with saved panes is written whole
from its kept row (store/listed_rows.py) while that holds: joining the label and title into its two
pieces in the query, as for the stored rows, was a third of the query's CPU at 100,000 sessions.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from dsh.store.log import live_pid
from dsh.store.summary import CLOSED, CRASHED, JSON_KEYS, Digest, agent_json, session_state
from dsh.store.workspace import NO_WORKSPACE, home_dir

# The keys the query joins in, between the stored head (the keys before them) and tail (after); the
# order of every key is Summary.to_json()'s (JSON_KEYS), and a test holds stored_json to it.
_JOINED = ("workspace_label", "title")
_SPLIT = JSON_KEYS.index(_JOINED[0])
assert JSON_KEYS[_SPLIT : _SPLIT + 2] == _JOINED, "stored_json and the query split the keys around these two"
# ?1 is the home folder labels shorten to `~`.
_LABEL = (
    f"CASE WHEN cwd IS NULL OR cwd = '' THEN '{NO_WORKSPACE}'"
    " WHEN ?1 <> '' AND (cwd = ?1 OR substr(cwd, 1, length(?1) + 1) = ?1 || '/')"
    " THEN '~' || substr(cwd, length(?1) + 1) ELSE cwd END"
)
_OBJECT = (
    f"""json_head || ',"workspace_label":' || json_quote({_LABEL}) || ',"title":' || json_quote(title)"""
    " || json_tail"
)

# A kept row (store/listed_rows.py) is written as it was kept while the home its label was made for (?1)
# and the title it showed are today's; otherwise the row is worked out again, and kept anew.
_FRESH = "kept_text IS NOT NULL AND kept_home = ?1 AND kept_title = title"

Panes = Callable[[str, bool], list[dict[str, object]] | None]
Fallback = Callable[[str], dict[str, Any] | None]
# What a listing adds to a live session's object (dsh sessions: its agents' states, as its host says).
Live = Callable[[str, dict[str, Any]], None]


def stored_json(d: Digest) -> tuple[str, str]:
    """The head and tail of a row's object as the listing writes it (compact, as SQLite writes JSON; text
    that is not ASCII is left as it is and escaped by the listing): a closed session with no panes."""
    head = {"id": d.id, "path": d.path, "cwd": d.cwd, "workspace": d.workspace}
    agents = [agent_json(key) for key in d.agents]
    tail = {
        "explicit_title": d.explicit_title,
        "first_input": d.first_input,
        "created_at": d.created_at,
        "updated_at": d.updated_at,
        "event_count": d.event_count,
        "input_count": d.input_count,
        "pane_count": d.pane_count,
        "live_pid": None,
        "archived": d.archived,
        "unresumable_reason": d.unresumable_reason,
        "preview": list(d.preview),
        "state": CLOSED if d.closed else CRASHED,
        "branch": d.branch,
        "agents": agents,
        "panes": [],
    }
    listed = "".join(d.preview) + "".join(d.agents)
    if listed.isascii() and "\x7f" not in listed:
        return _COMPACT.encode(head)[:-1], "," + _COMPACT.encode(tail)[1:]
    # The preview and the agents have always been written as Python writes JSON by default (every
    # character past `~` escaped); the rest as SQLite writes it (only controls, quotes and backslashes).
    pieces = [
        f"{json.dumps(key)}:{(_ASCII if key in _PYTHON_WRITTEN else _COMPACT).encode(value)}"
        for key, value in tail.items()
    ]
    return _COMPACT.encode(head)[:-1], "," + ",".join(pieces) + "}"


_PYTHON_WRITTEN = ("preview", "agents")
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_ASCII = json.JSONEncoder(separators=(",", ":"))


class KeptRows(Protocol):
    """The finished rows of sessions with saved panes (store/listed_rows.py), for a listing to reuse."""

    def holds(self, checks: str) -> bool:
        """Whether what a kept row's agent panes' states were read from is unchanged (`checks`, kept with
        the row)."""

    def keep(self, path: str, log: tuple[int, int], session_id: str, text: str, home: str, title: str) -> None:
        """The row just written for this log (its label made for `home`, showing `title`), with the panes
        `panes` gave last for this session."""

    def drop(self, path: str, session_id: str) -> None:
        """The kept row of this log no longer holds."""


def json_listing(
    conn: sqlite3.Connection,
    where: str,
    params: Sequence[object],
    *,
    include_archived: bool,
    panes: Panes,
    raw_row: Fallback,
    home: str | None = None,
    saved: Collection[str] | None = None,
    kept: KeptRows | None = None,
    live: Live | None = None,
) -> Iterator[str]:
    """The listing's objects as JSON text (ASCII), newest first.

    `panes(session_id, live)` gives a session's panes, or None when it has no saved snapshot (`[]` then);
    it is asked only of ids in `saved` when that is given. `raw_row(path)` gives the Summary.to_json() of
    a row whose text SQLite holds as bytes. With `kept`, a session that is not live is written from its
    kept row while that holds (the log is unchanged, as the row is the log's; the session is still in
    `saved`; and `kept.holds` its agents' checks, if it has any), and each row written with panes is
    offered to it. `live(session_id, object)` adds to a live session's object what only its host knows.
    """
    if kept is not None:
        # NULL for a kept row that is not today's: worked out again below.
        text = f"CASE WHEN kept_text IS NULL THEN {_OBJECT} WHEN {_FRESH} THEN kept_text END"
        flags = "closed + 2 * (kept_text IS NOT NULL)"
    else:
        text, flags = _OBJECT, "closed"
    # Only what the usual rows need: a closed session written as stored or as kept, and the rowid (with
    # the flags in its low bits: each column fetched was 30-40 ms of CPU at 100,000 rows) to read the rest
    # of a row by for the few that need more.
    sql = f"SELECT CASE raw WHEN 0 THEN {text} END, id, rowid * 4 + {flags}, kept_checks FROM sessions WHERE {where}"
    if not include_archived:
        sql += " AND archived = 0"
    sql += " ORDER BY updated_at DESC, mtime_ns DESC, id DESC"
    label_home = home_dir() if home is None else home
    holds = kept.holds if kept is not None else None
    for text, session_id, marks, checks in conn.execute(sql, [label_home, *params]):
        flags = marks & 3
        if flags == _CLOSED:  # the usual row, as it is stored: closed, no saved panes, ASCII
            if saved is not None and session_id not in saved and text is not None and text.isascii():
                yield text
                continue
        elif flags == _CLOSED_KEPT and holds is not None and text is not None:
            # Kept as json.dumps wrote it: ASCII, DEL escaped. A kept row with no agent pane holds without
            # a call (100,000 calls were 50-70 ms).
            if (saved is None or session_id in saved) and (checks is None or holds(checks)) and text.isascii():
                yield text
                continue
        row = conn.execute(
            "SELECT closed, attached, path, size, mtime_ns, title, raw FROM sessions WHERE rowid = ?", (marks >> 2,)
        ).fetchone()
        if row is None:
            continue  # gone since the listing's query began (another process's refresh dropped its log)
        closed, attached, path, size, mtime_ns, title, raw = row
        had = bool(flags & 2)
        if raw:  # some text was not UTF-8: SQLite holds it as bytes, and cannot quote it
            if had and kept is not None:
                kept.drop(path, session_id)
            data = raw_row(path if isinstance(path, str) else path.decode("utf-8", "surrogatepass"))
            if data is not None:
                data["panes"] = panes(data["id"], data["live_pid"] is not None) or []
                if live is not None and data["live_pid"] is not None:
                    live(data["id"], data)
                yield json.dumps(data)
            continue
        pid = None if closed else live_pid(Path(path))
        if had and kept is not None:
            listed = saved is None or session_id in saved
            if text is not None and pid is None and listed and (checks is None or kept.holds(checks)):
                yield text if text.isascii() and "\x7f" not in text else json.dumps(json.loads(text))
                continue
            kept.drop(path, session_id)
            # The row as stored is wanted now (the query gave the kept text, or none).
            again = f"SELECT {_OBJECT} FROM sessions WHERE rowid = ?2"
            stored = conn.execute(again, [label_home, marks >> 2]).fetchone()
            if stored is None:
                continue  # gone meanwhile, as above
            text = stored[0]
        found = panes(session_id, pid is not None)
        if pid is None and found is None and text.isascii():
            yield text
            continue
        data = json.loads(text)
        if pid is not None:
            data["live_pid"] = pid
            data["state"] = session_state(pid, bool(closed), bool(attached))
        data["panes"] = found or []
        if live is not None and pid is not None:
            live(session_id, data)
        finished = json.dumps(data)
        if kept is not None and pid is None and found is not None:
            kept.keep(path, (size, mtime_ns), session_id, finished, label_home, title)
        yield finished


# The flags in the low bits of the query's third column: closed (1), a kept row (2).
_CLOSED, _CLOSED_KEPT = 1, 3
