"""Pane states of a saved session for listings (`dsh sessions --json`), read without touching the files."""

from __future__ import annotations

from dsh.persist.records import SnapshotError
from dsh.persist.snapshot import MAX_SNAPSHOT_BYTES, SNAPSHOT_FILE, _parse, state_dir
from dsh.persist.states import PaneState, restored_state
from dsh.text import sanitize


def pane_states(session_id: str, *, live: bool) -> list[dict[str, str]]:
    """`[{id, title, state}]` for each pane of the session's snapshot; `[]` when there is none.

    A listing never moves or repairs anything: an unreadable or corrupt snapshot lists no panes (the
    loader reports and backs it up when the session is resumed). In a live session a running pane is
    LIVE; otherwise each pane gets the state a restore would give it.
    """
    try:
        path = state_dir(session_id) / SNAPSHOT_FILE
        with path.open("rb") as handle:
            raw = handle.read(MAX_SNAPSHOT_BYTES + 1)
    except (OSError, SnapshotError):
        return []
    if len(raw) > MAX_SNAPSHOT_BYTES:
        return []
    try:
        snapshot = _parse(raw)
    except SnapshotError:
        return []
    from dsh.agents.registry import resume_argv_for

    rows: list[dict[str, str]] = []
    for record in snapshot.panes:
        if live:
            state = PaneState.LIVE if record.lifecycle == "running" else PaneState.EXITED
        else:
            state = restored_state(record, resume_argv_for)
        rows.append({"id": record.id, "title": sanitize(record.title, max_len=120), "state": state.name})
    return rows
