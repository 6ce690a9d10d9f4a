"""`dsh --continue`: the session whose host ended last, else the newest; and the line saying which."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from dsh.resume.continuing import choose

NOW = 1_764_600_000.0  # 2025-12-01T14:40:00Z


def row(tmp_path: Path, sid: str, state: str, updated: str, log_mtime: float | None = None) -> SimpleNamespace:
    path = tmp_path / f"{sid}.jsonl"
    path.write_text("{}\n")
    if log_mtime is not None:
        os.utime(path, (log_mtime, log_mtime))
    return SimpleNamespace(id=sid, state=state, updated_at=updated, path=str(path), title=f"title {sid}")


def test_a_crashed_session_beats_a_running_one_with_a_newer_last_event(tmp_path: Path) -> None:
    # A crash writes no event: its last event is old, but its snapshot was written a minute ago.
    running = row(tmp_path, "live", "detached", "2025-12-01T14:39:00Z")
    crashed = row(tmp_path, "boom", "crashed", "2025-12-01T13:00:00Z", log_mtime=NOW - 3600)
    chosen = choose([running, crashed], lambda sid: NOW - 60 if sid == "boom" else None, NOW)
    assert chosen is not None and chosen.session_id == "boom"
    assert chosen.why == "continuing boom (title boom): it crashed 1m ago"


def test_the_latest_end_wins_between_a_close_and_a_crash(tmp_path: Path) -> None:
    closed = row(tmp_path, "quit", "closed", "2025-12-01T14:30:00Z")
    crashed = row(tmp_path, "boom", "crashed", "2025-12-01T12:00:00Z", log_mtime=NOW - 3 * 3600)
    chosen = choose([closed, crashed], lambda sid: None, NOW)
    assert chosen is not None and chosen.session_id == "quit" and "was closed 10m ago" in chosen.why


def test_with_every_host_running_the_newest_by_last_event(tmp_path: Path) -> None:
    rows = [row(tmp_path, "b", "attached", "2025-12-01T14:00:00Z"), row(tmp_path, "a", "detached", "2025-12-01T13:00Z")]
    chosen = choose(rows, lambda sid: None, NOW)
    assert chosen is not None and chosen.session_id == "b" and "the newest by last event" in chosen.why
    assert choose([], lambda sid: None, NOW) is None
