"""Preflight re-reads the header from disk: id and cwd together, or a reason for the user."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.resume.candidates import Candidate
from dsh.resume.preflight import PreflightError, Resolved, preflight


def _candidate(sid: str, cwd: str | None) -> Candidate:
    return Candidate(
        id=sid,
        cwd=cwd,
        workspace_label=cwd or "",
        title="t",
        first_input="",
        created_at="",
        updated_at="",
        pane_count=1,
        live_pid=None,
        unresumable_reason=None,
        preview=(),
    )


def _store(tmp_path: Path, header: Any, sid: str = "abc123") -> tuple[Any, Any]:
    log = tmp_path / f"{sid}.jsonl"
    log.write_text(json.dumps(header) + "\n")

    def find_log(session_id: str) -> Path | None:
        path = tmp_path / f"{session_id}.jsonl"
        return path if path.exists() else None

    def read_header(path: Path) -> dict[str, Any]:
        return json.loads(path.read_text().splitlines()[0])

    return find_log, read_header


def test_returns_id_and_cwd_from_disk(tmp_path: Path) -> None:
    find_log, read_header = _store(tmp_path, {"type": "session", "id": "abc123", "cwd": "/srv/b"})
    assert preflight("abc123", find_log=find_log, read_header=read_header) == Resolved("abc123", "/srv/b")


def test_moved_cwd_is_the_reread_one(tmp_path: Path) -> None:
    find_log, read_header = _store(tmp_path, {"type": "session", "id": "abc123", "cwd": "/srv/moved"})
    listed = _candidate("abc123", "/srv/original")
    assert preflight(listed, find_log=find_log, read_header=read_header).cwd == "/srv/moved"


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ({"type": "session", "id": "abc123"}, "session has no recorded workspace"),
        ({"type": "session", "id": "abc123", "cwd": ""}, "session has no recorded workspace"),
        ({"type": "session", "id": "abc123", "cwd": 7}, "session has no recorded workspace"),
        ({"id": "abc123", "cwd": "rel/dir"}, "recorded workspace 'rel/dir' is not an absolute path"),
        ({"id": "other", "cwd": "/x"}, "session abc123 cannot be read: its header names 'other'"),
        (["not", "a", "dict"], "session abc123 cannot be read: its header is not a record"),
    ],
)
def test_bad_headers_are_refused_with_reason(tmp_path: Path, header: Any, reason: str) -> None:
    find_log, read_header = _store(tmp_path, header)
    with pytest.raises(PreflightError) as err:
        preflight("abc123", find_log=find_log, read_header=read_header)
    assert str(err.value) == reason


def test_log_gone(tmp_path: Path) -> None:
    find_log, read_header = _store(tmp_path, {"id": "abc123", "cwd": "/x"})
    (tmp_path / "abc123.jsonl").unlink()
    with pytest.raises(PreflightError, match="is gone"):
        preflight("abc123", find_log=find_log, read_header=read_header)


def test_unreadable_header_is_a_message(tmp_path: Path) -> None:
    find_log, _ = _store(tmp_path, {"id": "abc123", "cwd": "/x"})

    class LogError(Exception):
        pass

    def read_header(path: Path) -> dict[str, Any]:
        raise LogError("torn header line \x1b[2J")

    with pytest.raises(PreflightError) as err:
        preflight("abc123", find_log=find_log, read_header=read_header)
    assert str(err.value) == "session abc123 cannot be read: torn header line ^[[2J"


@pytest.mark.parametrize("bad", ["", "../etc", "-x", "a/b", "a" * 65, "ok\n", "é"])
def test_invalid_ids_never_reach_the_disk(bad: str) -> None:
    def find_log(session_id: str) -> Path | None:
        raise AssertionError("looked up an invalid id")

    with pytest.raises(PreflightError, match="invalid session id"):
        preflight(bad, find_log=find_log, read_header=lambda p: {})
