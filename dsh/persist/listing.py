"""Pane states of saved sessions for listings (`dsh sessions --json`), read without touching the files."""

from __future__ import annotations

import os
from collections.abc import Iterable

from dsh.home import dsh_home_path
from dsh.persist.records import SnapshotError
from dsh.persist.snapshot import MAX_SNAPSHOT_BYTES, SNAPSHOT_FILE, _parse
from dsh.persist.states import PaneState, restored_state
from dsh.safefile import read_bytes
from dsh.text import sanitize


def sessions_with_state() -> set[str]:
    """Ids that have a state folder: one directory scan, so a listing of 10,000 sessions stays cheap."""
    try:
        return set(os.listdir(dsh_home_path("state")))
    except OSError:
        return set()


def pane_states(session_id: str, *, live: bool, known: Iterable[str] | None = None) -> list[dict[str, object]]:
    """`[{id, title, state, agent}]` for each pane of the session's snapshot; `[]` when there is none.

    `agent` is `{kind, session_id}` (an id only in its agent's format) or null.
    `known` (from `sessions_with_state`) skips sessions that have no state folder without a file lookup.
    A listing never moves or repairs anything: an unreadable or corrupt snapshot lists no panes (the
    loader reports and backs it up when the session is resumed). In a live session a running pane is
    LIVE, and one restored but not started yet keeps its restore state; otherwise each pane gets the
    state a restore would give it.
    """
    if known is not None and session_id not in known:
        return []
    try:
        # Never a FIFO, a device or a link: a listing must not hang on one planted in the home.
        raw = read_bytes(dsh_home_path("state", session_id, SNAPSHOT_FILE), MAX_SNAPSHOT_BYTES + 1)
    except (OSError, SnapshotError):
        return []
    if len(raw) > MAX_SNAPSHOT_BYTES:
        return []
    try:
        snapshot = _parse(raw)
    except SnapshotError:
        return []
    if snapshot.session_id != session_id:
        return []
    from dsh.agents.registry import adapter_by_kind, resume_argv_for
    from dsh.agents.resumable import recheck

    rows: list[dict[str, object]] = []
    for record in snapshot.panes:
        if live and record.lifecycle != "waiting":
            state = PaneState.LIVE if record.lifecycle == "running" else PaneState.EXITED
        else:
            record.agent = recheck(record.agent)  # as a restore would see it now
            state = restored_state(record, resume_argv_for)
        agent = record.agent
        adapter = adapter_by_kind(agent.kind) if agent is not None else None
        sid = agent.session_id if agent is not None and adapter and adapter.valid_session_id(agent.session_id) else None
        rows.append(
            {
                "id": record.id,
                "title": sanitize(record.title, max_len=120),
                "state": state.name,
                "agent": {"kind": sanitize(agent.kind, max_len=40), "session_id": sid} if agent else None,
            }
        )
    return rows
