"""Handoff checks: a resumed session's directory is checked before this session is left, in plain words."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dsh.resume.handoff import HandoffError, check_directory, enter_directory
from dsh.resume.preflight import preflight


def test_a_directory_that_moved_is_checked_at_the_reread_path(tmp_path: Path) -> None:
    moved = tmp_path / "b-moved"
    moved.mkdir()
    log = tmp_path / "s1.jsonl"
    # Listed under an old directory; the header on disk now names the new one.
    log.write_text(json.dumps({"type": "session", "id": "s1", "cwd": str(moved)}) + "\n")
    resolved = preflight(
        "s1",
        find_log=lambda sid: log if sid == "s1" else None,
        read_header=lambda p: json.loads(p.read_text().splitlines()[0]),
    )
    assert resolved.cwd == str(moved)
    check_directory(resolved.cwd)  # no error: it can be entered


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda p: None, "the directory is gone"),
        (lambda p: p.write_text("x"), "it is not a directory"),
    ],
)
def test_an_unreachable_directory_is_one_clear_line(tmp_path: Path, make, why: str) -> None:
    target = tmp_path / "target"
    make(target)
    with pytest.raises(HandoffError) as info:
        check_directory(str(target))
    assert str(info.value) == f"cannot enter {target}: {why}"


def test_a_directory_without_search_permission_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o000)
    try:
        if os.access(locked, os.X_OK):
            # root may enter anything; the refusal is then the kernel's, which check_directory mirrors
            check_directory(str(locked))
        else:
            with pytest.raises(HandoffError, match="permission denied"):
                check_directory(str(locked))
    finally:
        locked.chmod(0o700)


def test_a_hostile_path_is_shown_escaped(tmp_path: Path) -> None:
    hostile = str(tmp_path / "gone\x1b]52;c;ZXZpbA==\x07")
    with pytest.raises(HandoffError) as info:
        check_directory(hostile)
    assert "\x1b" not in str(info.value) and "\x07" not in str(info.value)


def test_enter_directory_moves_or_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "there").mkdir()
    enter_directory(str(tmp_path / "there"))
    assert os.getcwd() == str(tmp_path / "there")
    with pytest.raises(HandoffError, match="the directory is gone"):
        enter_directory(str(tmp_path / "nowhere"))
    assert os.getcwd() == str(tmp_path / "there")
