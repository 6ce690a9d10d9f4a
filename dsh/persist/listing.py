"""Pane states of saved sessions for listings (`dsh sessions --json`), read without touching the files."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Sequence
from typing import Any

from dsh.home import dsh_home_path
from dsh.persist.records import AgentInfo, SnapshotError
from dsh.persist.snapshot import MAX_SNAPSHOT_BYTES, SNAPSHOT_FILE, _parse
from dsh.persist.states import PaneState, state_of
from dsh.safefile import read_bytes
from dsh.text import sanitize


def sessions_with_state() -> set[str]:
    """Ids that have a state folder: one directory scan, so a listing of 10,000 sessions stays cheap."""
    try:
        return set(os.listdir(dsh_home_path("state")))
    except OSError:
        return set()


class CachedPaneStates:
    """The panes of each listed session with a snapshot, for a listing of many. The records come from
    the index (store/pane_cache.py) while the file's size, mtime and inode are those they were read
    from, so a snapshot is parsed once after it changes, not at every listing: parsing, with the
    loader's full checks, took 302 µs a session, 3 s of a 10,000-session `dsh sessions --json`. The
    states are worked out from the records at every listing (an agent's store is read again, as a
    restore would)."""

    def __init__(self, index: Any, saved: set[str], where: str, params: Sequence[object]) -> None:
        """`where` and `params` select the listed sessions from the index (`SessionIndex.scope_where`)."""
        from dsh.store import pane_cache

        self._index = index
        self._saved = saved
        try:
            self._kept = index.read(lambda conn: pane_cache.load(conn, where, params))
        except sqlite3.Error:
            self._kept = {}
        self._fresh: list[tuple[str, tuple[int, int, int], str]] = []
        self._folder = str(dsh_home_path("state"))

    def states(self, session_id: str, *, live: bool) -> list[dict[str, object]]:
        try:
            info = os.stat(os.path.join(self._folder, session_id, SNAPSHOT_FILE), follow_symlinks=False)
        except (OSError, ValueError):
            return []
        if not stat.S_ISREG(info.st_mode):
            return []  # a link, a FIFO: never read (snapshot_panes would refuse it too)
        key = (info.st_size, info.st_mtime_ns, info.st_ino)
        kept = self._kept.get(session_id)
        records: list[dict[str, Any]] | None
        if kept is not None and kept[0] == key:
            records = json.loads(kept[1])
        else:
            records = snapshot_panes(session_id)
            if records is None:
                return []  # unreadable or corrupt: not kept, so it is looked at again next time
            self._fresh.append((session_id, key, json.dumps(records)))
        return listed_states(records, live=live)

    def save(self) -> None:
        """Keep what this listing parsed; forget listed sessions whose state folder is gone. A listing never
        fails for this: an index that cannot be written is simply asked again next time."""
        from dsh.store import pane_cache

        gone = [sid for sid in self._kept if sid not in self._saved]
        if not self._fresh and not gone:
            return
        try:
            self._index.write(lambda conn: pane_cache.save(conn, self._fresh, gone))
        except sqlite3.Error:
            pass


def snapshot_panes(session_id: str) -> list[dict[str, Any]] | None:
    """What a listing needs of each pane in the session's snapshot (`{id, title, lifecycle, agent}`, the
    agent as `AgentInfo.to_dict`), checked as the loader checks it; None when there is no snapshot that
    can be read as this session's."""
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


def listed_states(records: list[dict[str, Any]], *, live: bool) -> list[dict[str, object]]:
    """The listing's rows for `snapshot_panes` records: each pane's state now (an agent's store is read
    again, as a restore would read it)."""
    from dsh.agents.registry import adapter_by_kind, resume_argv_for
    from dsh.agents.resumable import recheck

    rows: list[dict[str, object]] = []
    for record in records:
        lifecycle = record["lifecycle"]
        agent = AgentInfo.from_dict(record["agent"]) if record["agent"] is not None else None
        if live and lifecycle != "waiting":
            state = PaneState.LIVE if lifecycle == "running" else PaneState.EXITED
        else:
            agent = recheck(agent)  # as a restore would see it now
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
