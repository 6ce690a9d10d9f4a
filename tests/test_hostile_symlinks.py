"""Symbolic links planted in DSH_HOME are never followed out of it: nothing outside is chmod-ed, dropped,
appended to or replaced, and every other session is still listed."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from dsh.config import ConfigError, load_config, set_personal
from dsh.ownlog import log_line
from dsh.persist.records import Snapshot
from dsh.persist.snapshot import write_snapshot
from dsh.store.log import SessionLog, pid_path
from dsh.store.store import Store
from dsh.store.workspace import workspace_partition
from tests.hostile import Outside, assert_clean, make_sessions, run_dsh
from tests.test_app_harness import plain_shell, run, running_app  # noqa: F401  (plain_shell: autouse)


def test_a_linked_session_index_is_never_opened(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, outside: Outside, tmp_path: Path
) -> None:
    ids = make_sessions(tmp_path, "one", "two")
    target = outside.add_sqlite("other.db")
    (dsh_home / "session-query.db").symlink_to(target)
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 0
    assert_clean(got)
    assert f"{dsh_home / 'session-query.db'}: cannot open the session index (is a symbolic link" in got.stderr
    assert f"rm {dsh_home / 'session-query.db'}" in got.stderr
    assert all(sid in got.stdout for sid in ids)
    outside.check()  # neither chmod-ed nor its tables dropped
    assert sqlite3.connect(target).execute("SELECT v FROM precious").fetchall() == [("keep me",)]


def test_linked_side_files_of_the_index_are_refused(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, outside: Outside, tmp_path: Path
) -> None:
    ids = make_sessions(tmp_path, "one")
    target = outside.add("wal", b"not a wal")
    (dsh_home / "session-query.db-wal").symlink_to(target)
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 0 and ids[0] in got.stdout
    assert f"{dsh_home / 'session-query.db-wal'}: is a symbolic link" in got.stderr and "in memory" in got.stderr
    outside.check()


def test_a_linked_history_file_gets_no_typed_line(outside: Outside, dsh_home: Path, tmp_path: Path) -> None:
    target = outside.add("victim.txt", b"precious\n")
    history = dsh_home / "history"
    history.mkdir(mode=0o700)
    (history / workspace_partition(str(tmp_path))).symlink_to(target)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("echo typed-secret")
            await h.wait(lambda: "symbolic link" in h.message, "a message naming the link")
            assert str(history) in h.message
            await h.wait_output(h.pane, "typed-secret")

    run(body)
    outside.check()


def test_linked_logs_and_partitions_are_skipped_and_the_rest_listed(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, outside: Outside, tmp_path: Path
) -> None:
    ids = make_sessions(tmp_path, "kept")
    sessions = dsh_home / "sessions"
    foreign_log = outside.add("20260101T000000Z-aaaaaa.jsonl", b'{"type": "session", "cwd": "/x"}\n')
    (sessions / workspace_partition(str(tmp_path)) / "20260101T000000Z-aaaaaa.jsonl").symlink_to(foreign_log)
    (sessions / "linked-partition").symlink_to(outside.folder, target_is_directory=True)
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 0 and ids[0] in got.stdout and "aaaaaa" not in got.stdout
    assert_clean(got)
    assert "20260101T000000Z-aaaaaa.jsonl: a symbolic link where a session log should be; skipped" in got.stderr
    assert f"{sessions / 'linked-partition'}: is a symbolic link" in got.stderr
    outside.check()


def test_a_linked_pid_file_is_replaced_never_written_through(outside: Outside, dsh_home: Path) -> None:
    target = outside.add("victim.pid", b"precious\n")
    log = Store(load_config(env={})).create_session("/w")
    log.close()
    pid_path(log.path).symlink_to(target)
    again = SessionLog.open_existing(log.path)
    assert pid_path(log.path).read_text() == f"{os.getpid()}\n" and not pid_path(log.path).is_symlink()
    again.close()
    outside.check()


def test_a_linked_state_folder_is_refused_and_nothing_written_outside(outside: Outside, dsh_home: Path) -> None:
    (dsh_home / "state").symlink_to(outside.folder, target_is_directory=True)
    snapshot = Snapshot(session_id="s1")
    with pytest.raises(OSError, match="is a symbolic link"):
        write_snapshot(snapshot, {})
    outside.check()


def test_a_linked_history_folder_in_state_is_refused(outside: Outside, dsh_home: Path) -> None:
    (dsh_home / "state" / "s1").mkdir(parents=True, mode=0o700)
    os.chmod(dsh_home / "state", 0o700)
    (dsh_home / "state" / "s1" / "history").symlink_to(outside.folder, target_is_directory=True)
    snapshot = Snapshot(session_id="s1")
    with pytest.raises(OSError, match="history: is a symbolic link"):
        write_snapshot(snapshot, {})
    outside.check()


def test_dsh_log_through_a_link_is_not_written(outside: Outside, dsh_home: Path) -> None:
    target = outside.add("victim.log", b"precious\n")
    (dsh_home / "log").mkdir(mode=0o700)
    (dsh_home / "log" / "dsh.log").symlink_to(target)
    log_line("something happened")  # never raises; never writes through the link
    outside.check()


def test_a_linked_home_folder_refuses_to_start(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, outside: Outside
) -> None:
    (dsh_home / "sessions").symlink_to(outside.folder, target_is_directory=True)
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 2
    assert_clean(got)
    assert got.stderr.startswith(f"dsh: refusing to use {dsh_home / 'sessions'}: it is a symbolic link")
    assert got.stderr.count("\n") == 1
    outside.check()


def test_a_linked_config_is_read_but_never_written_through(
    outside: Outside, dsh_home: Path, dsh_cmd: list[str], dsh_env: dict[str, str]
) -> None:
    target = outside.add("dotfiles-config.toml", b'[ui]\nprefix = "c-a"\n', mode=0o600)
    (dsh_home / "config.toml").symlink_to(target)
    got = run_dsh(dsh_cmd, dsh_env, "config", "get", "ui.prefix")
    assert (got.returncode, got.stdout) == (0, '"c-a"\n')  # dotfile managers link configs: read
    with pytest.raises(ConfigError, match=r"is a symbolic link to .*dotfiles-config\.toml; dsh does not write through"):
        set_personal("ui.prefix", "c-q")
    outside.check()
