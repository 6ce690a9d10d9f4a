"""`dsh --continue`: which session of a workspace to go on with, and a line saying why that one."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from dsh.store.summary import CLOSED, CRASHED


class Choice(NamedTuple):
    session_id: str
    why: str  # one line for the terminal


def ended_at(summary: Any, snapshot_mtime: Callable[[str], float | None]) -> float | None:
    """When the session's host ended (epoch seconds), or None while it runs. A clean end is its `close`
    event; a crash writes no event, so its end is the last sign of life: the log's last write or the
    snapshot's (written within seconds of any change), whichever is later."""
    if summary.state == CLOSED:
        return _epoch(summary.updated_at)
    if summary.state != CRASHED:
        return None
    times = [_epoch(summary.updated_at), snapshot_mtime(summary.id)]
    try:
        times.append(os.stat(summary.path).st_mtime)
    except OSError:
        pass
    known = [t for t in times if t is not None]
    return max(known) if known else None


def choose(summaries: Sequence[Any], snapshot_mtime: Callable[[str], float | None], now: float) -> Choice | None:
    """The session whose host ended most recently; with none ended (all running), the newest by its last
    event. None for a workspace without sessions."""
    if not summaries:
        return None
    ended = [(t, s) for s in summaries if (t := ended_at(s, snapshot_mtime)) is not None]
    if ended:
        when, chosen = max(ended, key=lambda pair: pair[0])
        how = "crashed" if chosen.state == CRASHED else "was closed"
        return Choice(chosen.id, f"continuing {chosen.id} ({_title(chosen)}): it {how} {_ago(now - when)} ago")
    newest = summaries[0]  # listings come newest first by last event
    return Choice(newest.id, f"continuing {newest.id} ({_title(newest)}): {newest.state}, the newest by last event")


def _title(summary: Any) -> str:
    from dsh.resume.candidates import clean

    return clean(summary.title or "untitled", 60)


def _epoch(stamp: object) -> float | None:
    if not isinstance(stamp, str):
        return None
    try:
        then = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return (then if then.tzinfo else then.replace(tzinfo=UTC)).timestamp()


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def snapshot_mtime(session_id: str) -> float | None:
    """When the session's snapshot was last written, or None."""
    from dsh.persist.snapshot import SNAPSHOT_FILE, state_dir

    try:
        return (state_dir(session_id) / SNAPSHOT_FILE).stat().st_mtime
    except (OSError, ValueError):
        return None
