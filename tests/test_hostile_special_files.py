"""A FIFO, a socket or a folder where dsh expects a regular file never hangs it: each is refused with a
message naming it, and every other session is still listed. (A FIFO opened for reading blocks until a
writer comes; dsh opens with O_NONBLOCK and checks what it opened.)"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.config import load_config
from dsh.persist.records import Snapshot, TabRecord
from dsh.persist.snapshot import load_snapshot, state_dir, tail_path, write_snapshot
from dsh.store.log import SessionLog, pid_path, read_header
from dsh.store.store import Store
from dsh.store.workspace import workspace_partition
from tests.hostile import assert_clean, exited_pane, make_sessions, run_dsh, within
from tests.test_app_harness import plain_shell, run, running_app  # noqa: F401  (plain_shell: autouse)


@pytest.fixture(autouse=True)
def never_hang() -> Iterator[None]:
    """A regression here would block in open(): fail the test instead of hanging the suite."""
    with within(30):
        yield


def test_a_fifo_as_a_snapshot_does_not_hang_the_json_listing(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    ids = make_sessions(tmp_path, "one", "two")
    folder = state_dir(ids[0])
    folder.mkdir(parents=True, mode=0o700)
    os.mkfifo(folder / "snapshot.json")
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all", "--json", timeout=15)
    assert got.returncode == 0
    assert_clean(got)
    rows = {row["id"]: row for row in json.loads(got.stdout)}
    assert set(rows) == set(ids) and rows[ids[0]]["panes"] == []


def test_a_fifo_as_a_pid_file_of_a_live_session_does_not_hang_the_listing(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    [closed] = make_sessions(tmp_path, "closed one")
    live = Store(load_config(env={})).create_session(str(tmp_path))  # held live (locked) by this process
    try:
        pid_path(live.path).unlink()
        os.mkfifo(pid_path(live.path))
        got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all", timeout=15)
        assert got.returncode == 0
        assert_clean(got)
        assert closed in got.stdout and live.id in got.stdout
        line = next(row for row in got.stdout.splitlines() if live.id in row)
        assert " attached " in line  # held, its pid unknown: still shown as live
    finally:
        os.unlink(pid_path(live.path))
        live.close()


def test_a_fifo_or_socket_as_the_index_uses_one_in_memory(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    ids = make_sessions(tmp_path, "one")
    db = dsh_home / "session-query.db"
    os.mkfifo(db)
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all", timeout=15)
    assert got.returncode == 0 and ids[0] in got.stdout
    assert f"{db}: cannot open the session index (is a FIFO, not a regular file)" in got.stderr
    os.unlink(db)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(db))
    try:
        got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all", timeout=15)
        assert got.returncode == 0 and ids[0] in got.stdout
        assert "is a socket, not a regular file" in got.stderr
    finally:
        server.close()


def test_a_fifo_as_the_config_is_skipped_with_its_path(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    ids = make_sessions(tmp_path, "one")
    os.mkfifo(dsh_home / "config.toml")
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all", timeout=15)
    assert got.returncode == 0 and ids[0] in got.stdout
    config = dsh_home / "config.toml"
    assert f"{config}: cannot use: is a FIFO, not a regular file; using the other layers" in got.stderr
    got = run_dsh(dsh_cmd, dsh_env, "config", "get", "ui.prefix", timeout=15)
    assert got.returncode == 0 and got.stdout == '"c-b"\n'


def test_special_files_named_like_logs_are_skipped_and_the_rest_listed(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    ids = make_sessions(tmp_path, "kept")
    part = dsh_home / "sessions" / workspace_partition(str(tmp_path))
    fifo = part / "20260101T000000Z-ffffff.jsonl"
    os.mkfifo(fifo)
    (part / "20260101T000000Z-dddddd.jsonl").mkdir()
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all", timeout=15)
    assert got.returncode == 0 and ids[0] in got.stdout
    assert f"{fifo}: not a regular file; skipped" in got.stderr
    assert "20260101T000000Z-dddddd.jsonl: a directory where a session log should be; skipped" in got.stderr
    got = run_dsh(dsh_cmd, dsh_env, "--resume=20260101T000000Z-ffffff", timeout=15)
    assert got.returncode == 2  # no terminal: refused before anything is opened
    assert_clean(got)


def test_reading_a_fifo_log_header_is_refused_at_once(tmp_path: Path) -> None:
    from dsh.store.log import LogError

    fifo = tmp_path / "20260101T000000Z-ffffff.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(LogError, match="is a FIFO, not a regular file"):
        read_header(fifo)
    with pytest.raises(LogError, match="is a FIFO, not a regular file"):
        SessionLog.open_existing(fifo)


def test_a_fifo_as_a_saved_tail_is_a_note_and_the_rest_loads() -> None:
    layout = {"split": "h", "children": [{"pane": "p1"}, {"pane": "p2"}]}
    tab = TabRecord(id="t1", title="main", layout=layout, active_pane="p1")
    snapshot = Snapshot(session_id="s1", tabs=[tab], panes=[exited_pane("p1"), exited_pane("p2")])
    write_snapshot(snapshot, {"p1": b"one", "p2": b"two"})
    tail = tail_path("s1", "p1")
    tail.unlink()
    os.mkfifo(tail)
    loaded = load_snapshot("s1")
    assert loaded.snapshot is not None and loaded.tails == {"p1": b"", "p2": b"two"}
    assert loaded.notes == ["pane p1: saved output unreadable (is a FIFO, not a regular file)"]


def test_a_fifo_as_the_history_file_is_a_message_and_the_prompt_works(dsh_home: Path, tmp_path: Path) -> None:
    history = dsh_home / "history"
    history.mkdir(mode=0o700)
    fifo = history / workspace_partition(str(tmp_path))
    os.mkfifo(fifo)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("echo through")
            await h.wait(lambda: "is a FIFO" in h.message, "a message naming the FIFO")
            assert str(fifo) in h.message
            await h.wait_output(h.pane, "through")
            h.type_line("echo again")
            await h.wait_output(h.pane, "again")
            assert h.app.prompt_buffer.text == ""

    run(body)


def test_a_fifo_in_an_agents_session_store_is_passed_over(tmp_path: Path) -> None:
    """An agent's store is read by probes and the picker: a FIFO named like a session file must not block."""
    from dsh.agents.base import json_lines

    fifo = tmp_path / "rollout-2026-01-01T00-00-00-abc.jsonl"
    os.mkfifo(fifo)
    assert list(json_lines(fifo)) == []
    real = tmp_path / "real.jsonl"
    real.write_text('{"id": "x"}\n')
    linked = tmp_path / "linked.jsonl"
    linked.symlink_to(real)  # another program's store: links are followed
    assert list(json_lines(linked)) == [{"id": "x"}]
