"""Pane states of saved sessions for listings (`dsh sessions --json`), read without touching the files."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from typing import Any

from dsh.agents.lookups import Check, StoreStamps, checks_hold
from dsh.home import dsh_home_path
from dsh.safefile import read_bytes
from dsh.store import listed_rows, pane_cache
from dsh.store.listed_rows import ListedRow
from dsh.store.pane_cache import Key
from dsh.text import sanitize


def sessions_with_state(index: Any | None = None) -> set[str]:
    """Ids that have a state folder: one directory scan, so a listing of 10,000 sessions stays cheap; with
    an index, the names kept there while the folder's mtime holds (store/folder_names.py)."""
    folder = str(dsh_home_path("state"))
    if index is not None:
        from dsh.store import folder_names

        return folder_names.names(index, folder)
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def snapshot_key(folder: str, session_id: str) -> Key | None:
    """The key of a session's snapshot; None when there is none, or it is a link, a FIFO (never read:
    snapshot_panes would refuse it too)."""
    # The snapshot's modules (its records are dataclasses: dataclasses with inspect, 13 ms) load only for
    # a listing with a session that may have one: another machine's picker asks for the listing often.
    from dsh.persist.snapshot import SNAPSHOT_FILE

    try:
        info = os.stat(f"{folder}/{session_id}/{SNAPSHOT_FILE}", follow_symlinks=False)
    except (OSError, ValueError):
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino) if stat.S_ISREG(info.st_mode) else None


class CachedPaneStates:
    """The panes of each listed session with a snapshot, for a listing of many (store/json_listing's
    KeptRows).

    A session that is not live is written from its finished row, kept in its index row
    (store/listed_rows.py), while its log and what its agent panes' states were read from
    (agents/lookups.py: the transcript's stat, or the stamp of the store searched) are unchanged, and its
    state folder is still there (`saved`, one listing of state/). Otherwise the panes are worked out from
    the snapshot's records, themselves kept in the index while the file is unchanged
    (store/pane_cache.py: parsing with the loader's full checks took 302 µs a session), and the new row
    is kept.

    The log's key stands for the snapshot's, as a folder's mtime stands for its logs (store/scan.py): a
    snapshot is written only by the host holding its session (persist/scheduler.py), which took the
    session by appending to its log (a new log's header; `open_existing`'s `resume`, which touches the
    folder too) before its first write, and lets it go only after its last (`flush_and_close`: the
    flush, then the `close` event). A row is kept only for a session that was not live when the listing
    looked, from the snapshot read after that: the last one written, until a host takes the session
    again and so changes its log, which replaces the index row and what it kept. (A session whose index
    row said closed is not asked about its lock: a host that took it since the refresh touched the
    folder, so the next refresh replaces what this listing kept of it.) The only other dsh writer,
    load_snapshot moving a damaged snapshot aside before the host takes the log, never changes what a
    kept row shows: a listing parses with the loader's checks and keeps nothing of a snapshot it could
    not read. Not seen: a snapshot rewritten or removed by hand, or by another program, with the log
    left alone; its kept row is written until the log changes. The stat of each snapshot this replaces
    was 0.4-0.5 s of CPU of a listing of 100,000 sessions with snapshots (bench/README.md).
    """

    def __init__(self, index: Any, saved: set[str]) -> None:
        self._index = index
        self._saved = saved
        self._folder = str(dsh_home_path("state"))
        self._stamps = StoreStamps()
        self._fresh: list[tuple[str, Key, str]] = []
        self._gone: list[str] = []
        self._kept: list[ListedRow] = []
        self._dropped: list[str] = []
        # The checks (JSON, or None for no agent pane) of the last states() of each session, when a kept
        # row may show them.
        self._made: dict[str, str | None] = {}

    def holds(self, checks: str) -> bool:
        return checks_hold(checks, self._stamps)

    def states(self, session_id: str, *, live: bool) -> list[dict[str, object]]:
        self._made.pop(session_id, None)
        key = snapshot_key(self._folder, session_id)
        if key is None:
            return []
        records = self._records(session_id, key)
        if records is None:
            return []  # unreadable or corrupt: not kept, so it is looked at again next time
        if live:
            return listed_states(records, live=True)
        checks: list[Check] = []
        rows = listed_states(records, live=False, stamps=self._stamps, checks=checks)
        self._made[session_id] = json.dumps(checks) if checks else None
        return rows

    def _records(self, session_id: str, key: Key) -> list[dict[str, Any]] | None:
        try:
            kept = self._index.read(lambda conn: pane_cache.get(conn, session_id))
        except sqlite3.Error:
            kept = None
        if kept is not None and kept[0] == key:
            cached: list[dict[str, Any]] = json.loads(kept[1])  # as the same code wrote it for this key
            return cached
        records = snapshot_panes(session_id)
        if records is not None:
            self._fresh.append((session_id, key, json.dumps(records)))
        return records

    def keep(self, path: str, log: tuple[int, int], session_id: str, text: str, home: str, title: str) -> None:
        if session_id in self._made:
            self._kept.append((path, log, self._made.pop(session_id), text, home, title))

    def drop(self, path: str, session_id: str) -> None:
        self._dropped.append(path)
        if session_id not in self._saved:
            self._gone.append(session_id)

    def save(self) -> None:
        """Keep what this listing made; forget what no longer held and the records of sessions whose
        state folder is gone. A listing never fails for this: an index that cannot be written is simply
        asked again next time."""

        if not (self._fresh or self._gone or self._kept or self._dropped):
            return

        def write(conn: sqlite3.Connection) -> None:
            pane_cache.save(conn, self._fresh, self._gone)
            listed_rows.save(conn, self._kept, self._dropped)

        try:
            self._index.write(write)
        except sqlite3.Error:
            pass


def snapshot_panes(session_id: str) -> list[dict[str, Any]] | None:
    """What a listing needs of each pane in the session's snapshot (`{id, title, lifecycle, agent}`, the
    agent as `AgentInfo.to_dict`), checked as the loader checks it; None when there is no snapshot that
    can be read as this session's."""
    from dsh.persist.records import SnapshotError
    from dsh.persist.snapshot import MAX_SNAPSHOT_BYTES, SNAPSHOT_FILE, _parse

    try:
        # Never a FIFO, a device or a link: a listing must not hang on one planted in the home.
        raw = read_bytes(dsh_home_path("state", session_id, SNAPSHOT_FILE), MAX_SNAPSHOT_BYTES + 1)
    except (OSError, SnapshotError):
        return None
    if len(raw) > MAX_SNAPSHOT_BYTES:
        return None
    try:
        snapshot = _parse(raw)
    except SnapshotError:
        return None
    if snapshot.session_id != session_id:
        return None
    return [
        {
            "id": record.id,
            "title": record.title,
            "lifecycle": record.lifecycle,
            "agent": record.agent.to_dict() if record.agent is not None else None,
        }
        for record in snapshot.panes
    ]


def listed_states(
    records: list[dict[str, Any]],
    *,
    live: bool,
    stamps: StoreStamps | None = None,
    checks: list[Check] | None = None,
) -> list[dict[str, object]]:
    """The listing's rows for `snapshot_panes` records: each pane's state now (an agent's store is read
    again, as a restore would read it). With `stamps`, what each agent's state was read from is added to
    `checks` (agents/lookups.py)."""
    from dsh.agents.lookups import RecheckReads
    from dsh.agents.registry import adapter_by_kind, resume_argv_for
    from dsh.agents.resumable import recheck
    from dsh.persist.records import AgentInfo
    from dsh.persist.states import PaneState, state_of

    rows: list[dict[str, object]] = []
    for record in records:
        lifecycle = record["lifecycle"]
        agent = AgentInfo.from_dict(record["agent"]) if record["agent"] is not None else None
        if live and lifecycle != "waiting":
            state = PaneState.LIVE if lifecycle == "running" else PaneState.EXITED
        else:
            looked = RecheckReads(stamps, agent.env) if stamps is not None and agent is not None else None
            agent = recheck(agent, looked)  # as a restore would see it now
            if looked is not None and checks is not None:
                checks.extend(looked.checks)
            state = state_of(lifecycle, agent, resume_argv_for)
        adapter = adapter_by_kind(agent.kind) if agent is not None else None
        sid = agent.session_id if agent is not None and adapter and adapter.valid_session_id(agent.session_id) else None
        rows.append(
            {
                "id": record["id"],
                "title": sanitize(record["title"], max_len=120),
                "state": state.name,
                "agent": {"kind": sanitize(agent.kind, max_len=40), "session_id": sid} if agent else None,
            }
        )
    return rows
