"""Handoff with a fake host: directory first, then teardown and exec; an unreachable one stops it early."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NoReturn

import pytest

from dsh.resume import handoff as handoff_mod
from dsh.resume.handoff import HANDOFF_ENV, HandoffError, exec_argv, exec_resume_default, handoff
from dsh.resume.preflight import Resolved, preflight


class Execd(Exception):
    """Stands in for exec never returning."""


class FakeHost:
    def __init__(self, fail_flush: bool = False) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail_flush = fail_flush

    def flush_and_close(self) -> None:
        self.calls.append(("flush_and_close", os.getcwd()))
        if self.fail_flush:
            raise OSError("disk full")

    def restore_terminal(self) -> None:
        self.calls.append(("restore_terminal",))

    def exec_resume(self, session_id: str, from_cwd: str) -> NoReturn:
        self.calls.append(("exec_resume", session_id, from_cwd, os.getcwd()))
        raise Execd


def test_host_receives_id_and_reread_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    start = tmp_path / "a"
    moved = tmp_path / "b-moved"
    start.mkdir()
    moved.mkdir()
    monkeypatch.chdir(start)
    log = tmp_path / "s1.jsonl"
    # Listed under an old directory; the header on disk now names the new one.
    log.write_text(json.dumps({"type": "session", "id": "s1", "cwd": str(moved)}) + "\n")
    resolved = preflight(
        "s1",
        find_log=lambda sid: log if sid == "s1" else None,
        read_header=lambda p: json.loads(p.read_text().splitlines()[0]),
    )
    host = FakeHost()
    with pytest.raises(Execd):
        handoff(resolved, host)
    assert host.calls == [
        ("flush_and_close", str(moved)),  # the directory changed before anything was torn down
        ("restore_terminal",),
        ("exec_resume", "s1", str(start), str(moved)),
    ]


@pytest.mark.parametrize("kind", ["gone", "file", "denied"])
def test_unreachable_directory_rejects_before_teardown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "target"
    chdir = os.chdir
    if kind == "file":
        target.write_text("")
    elif kind == "denied":
        target.mkdir()

        # Tests may run as root, where a mode of 0 does not stop chdir: refuse the way the kernel would.
        def chdir(path: str) -> None:
            if path == str(target):
                raise PermissionError(13, "Permission denied", path)
            os.chdir(path)

    host = FakeHost()
    with pytest.raises(HandoffError) as err:
        handoff(Resolved("s1", str(target)), host, chdir=chdir)
    reason = {"gone": "the directory is gone", "file": "it is not a directory", "denied": "permission denied"}
    assert str(err.value) == f"cannot enter {target}: {reason[kind]}"
    assert host.calls == []
    assert os.getcwd() == str(tmp_path)  # the caller goes on where it was
    # ...and can still hand off somewhere reachable.
    with pytest.raises(Execd):
        handoff(Resolved("s2", str(tmp_path)), host, chdir=chdir)
    assert host.calls[-1][:2] == ("exec_resume", "s2")


def test_message_names_the_reason(tmp_path: Path) -> None:
    host = FakeHost()
    with pytest.raises(HandoffError, match="the directory is gone"):
        handoff(Resolved("s1", str(tmp_path / "nope")), host)
    with pytest.raises(HandoffError, match=r"cannot enter /a\^\[\[2J: "):
        handoff(Resolved("s1", "/a\x1b[2J"), host, chdir=lambda p: (_ for _ in ()).throw(FileNotFoundError()))


def test_failed_close_goes_back_and_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.chdir(tmp_path)
    host = FakeHost(fail_flush=True)
    with pytest.raises(HandoffError, match="disk full"):
        handoff(Resolved("s1", str(other)), host)
    assert os.getcwd() == str(tmp_path)
    assert [c[0] for c in host.calls] == ["flush_and_close"]


def test_exec_argv_is_this_interpreter() -> None:
    import sys

    assert exec_argv("abc") == [sys.executable, "-m", "dsh", "--resume=abc"]


def test_exec_resume_default_announces_where_we_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, list[str], str, str]] = []

    def fake_execv(path: str, argv: list[str]) -> None:
        seen.append((path, argv, os.environ[HANDOFF_ENV], os.environ["PWD"]))
        raise Execd

    monkeypatch.setattr(handoff_mod.os, "execv", fake_execv)
    monkeypatch.setenv("PWD", "/stale")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Execd):
        exec_resume_default("abc", "/from/here")
    path, argv, came_from, pwd = seen[0]
    assert argv == exec_argv("abc") and path == argv[0]
    assert came_from == "/from/here"
    assert pwd == str(tmp_path)


def test_exec_failure_is_a_handoff_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(path: str, argv: list[str]) -> None:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(handoff_mod.os, "execv", fail)
    with pytest.raises(HandoffError, match="cannot start"):
        exec_resume_default("abc", "/x")
