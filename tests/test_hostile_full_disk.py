"""A full disk (ENOSPC) under the log, the prompt history, the snapshot and the index: a message when
it happens, dsh keeps working, the prompt behaves normally, and no event is lost once space returns.

The disk is a small tmpfs where `mount` works (root), else a stand-in for os.write that raises ENOSPC
as the kernel does (tests/hostile.py: SmallDisk)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.config import load_config
from dsh.store.index import SessionIndex
from dsh.store.log import LogError, SessionLog, read_log
from dsh.store.store import Store
from dsh.ui import chrome
from tests.hostile import SmallDisk, assert_clean, make_sessions, run_dsh, small_disk
from tests.test_app_harness import plain_shell, run, running_app  # noqa: F401  (plain_shell: autouse)


@pytest.fixture(params=["tmpfs", "write-wrapper"])
def disk(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SmallDisk]:
    """Both kinds of full disk here: a real tmpfs (the wrapper where mounting fails), and the wrapper."""
    with small_disk(tmp_path, monkeypatch, mount=request.param == "tmpfs") as made:
        yield made


@pytest.fixture
def home_on_disk(disk: SmallDisk, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = disk.path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("DSH_HOME", str(home))
    return home


def index_full_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first index refresh fails as SQLite does on a full disk (SQLITE_FULL, where the refresh writes)."""
    real = SessionIndex._refresh
    calls: list[sqlite3.Connection] = []

    def full_once(self: SessionIndex, conn: sqlite3.Connection, warnings: list[str]) -> None:
        calls.append(conn)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database or disk is full")
        real(self, conn, warnings)

    monkeypatch.setattr(SessionIndex, "_refresh", full_once)


def test_a_log_write_cut_short_leaves_no_torn_line_and_loses_no_event(disk: SmallDisk) -> None:
    log = SessionLog.create(disk.path / "sessions", "/w")
    log.append("input", text="before")
    disk.fill(leave=4096 if disk.real else 100)
    with pytest.raises(LogError, match="No space left on device; 1 event kept until it can be written"):
        log.append("input", text="x" * 20000)  # part of it fits: that part is cut off again
    with pytest.raises(LogError, match="2 events kept"):
        log.append("input", text="while full")
    assert log.path.read_bytes().endswith(b"\n")
    disk.free()
    log.append("input", text="after")
    log.close()
    contents = read_log(log.path)
    assert contents.warnings == []
    assert [e.get("text") for e in contents.events if e["type"] == "input"] == [
        "before",
        "x" * 20000,
        "while full",
        "after",
    ]


def test_a_full_disk_is_a_message_and_the_prompt_keeps_working(
    home_on_disk: Path, disk: SmallDisk, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    # Longer than a page: a file's last page may still hold a short line on a full disk.
    pad = " #" + "x" * 5000
    two, three = "echo two" + pad, "echo three" + pad

    async def body() -> None:
        async with running_app(work) as h:
            h.type_line("echo one")
            await h.wait_output(h.pane, "one")
            # The view's start-up reads (history, the index refresh) and the first snapshot (written on
            # the session's first tick) finish first: a write still going when the disk fills gives its
            # pages back when it fails, and the disk is not full.
            snapshot = home_on_disk / "state" / h.session.log.id / "snapshot.json"
            await h.wait(snapshot.exists, "the first snapshot")
            await asyncio.wrap_future(h.session.worker.submit(lambda: None))
            # A snapshot write the output of "echo one" queued may still be going: flush waits for it,
            # then writes, and the next background write is a debounce interval away.
            h.session.scheduler.flush()
            disk.fill()
            h.type_line(two)
            await h.wait(lambda: "No space left on device" in h.message, "a message about the full disk")
            await h.wait_output(h.pane, "two")
            assert h.app.prompt_buffer.text == ""  # Enter still clears the prompt
            h.type_line(three)
            await h.wait_output(h.pane, "three")
            # Nothing glued: the earlier line was not sent again with this one.
            assert not any("twoecho" in line or "two three" in line for line in h.pane.terminal.text_lines())
            disk.free()
            h.type_line("echo four")
            await h.wait_output(h.pane, "four")
            log = h.session.log
        assert log.closed

    run(body)
    [path] = (home_on_disk / "sessions").glob("*/*.jsonl")
    contents = read_log(path)
    assert contents.warnings == []
    inputs = [e["text"] for e in contents.events if e["type"] == "input"]
    assert inputs == ["echo one", two, three, "echo four"]


def test_a_snapshot_that_cannot_be_written_shows_in_the_status_line_until_one_is(
    home_on_disk: Path, disk: SmallDisk, tmp_path: Path
) -> None:
    (home_on_disk / "config.toml").write_text("[snapshot]\ndebounce_seconds = 0.5\n")

    def status(h) -> str:  # type: ignore[no-untyped-def]
        return "".join(text for _style, text, *_ in chrome.status_fragments(h.app))

    async def body() -> None:
        async with running_app(tmp_path) as h:
            snapshot = home_on_disk / "state" / h.session.log.id / "snapshot.json"
            await h.wait(snapshot.exists, "the first snapshot")
            disk.fill()
            # A leading space keeps the lines out of the history and the log (ignorespace): their
            # writes would fail too, and a failed history write gives back the pages it took, which
            # let the snapshot's write through on a busy machine.
            h.type_line(" echo changed")
            h.session.scheduler.structural_change()
            await h.wait(
                lambda: "layout not saved: No space left on device" in status(h),
                "the status line to say the snapshot failed",
            )
            await h.wait_output(h.pane, "changed")
            h.type_line(" echo still-shown")
            await h.wait_output(h.pane, "still-shown")
            assert "layout not saved" in status(h)
            before = snapshot.read_bytes()
            disk.free()
            await h.wait(lambda: "layout not saved" not in status(h), "a retried write to succeed")
            assert snapshot.read_bytes() != before

    run(body)


def test_the_index_on_a_full_disk_lists_every_session_from_memory(
    home_on_disk: Path,
    disk: SmallDisk,
    dsh_cmd: list[str],
    dsh_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = make_sessions(tmp_path, "a", "b")
    store = Store(load_config(env={}))
    store.refresh()
    store.close()
    later = make_sessions(tmp_path, *(f"later {n} " + "x" * 400 for n in range(40)))
    db = home_on_disk / "session-query.db"
    if disk.real:
        disk.fill()
        got = run_dsh(dsh_cmd, {**dsh_env, "DSH_HOME": str(home_on_disk)}, "sessions", "--all")
        assert got.returncode == 0
        assert_clean(got)
        # SQLite fails opening (its -shm file) or writing, as the disk decides; either way: in memory.
        assert got.stderr.startswith(f"dsh: warning: {db}: ") and "in memory" in got.stderr
        assert all(sid in got.stdout for sid in first + later)
        return
    # No tmpfs here: SQLite's own writes cannot be stood in for, so its error is.
    index_full_once(monkeypatch)
    index = SessionIndex(db, home_on_disk / "sessions")
    warnings = index.refresh()
    assert index.write_error is not None and any("in memory" in w for w in warnings)
    assert {s.id for s in index.summaries()} == set(first + later)
    index.close()


def test_the_history_file_on_a_full_disk_is_a_message_not_an_exception(home_on_disk: Path, disk: SmallDisk) -> None:
    from dsh.store.history_file import PromptHistory
    from dsh.ui.prompt_memory import PromptMemory

    said: list[str] = []
    history = PromptMemory("/w", {}, said.append).history  # the prompt's own history, as Enter saves it
    history.append_string("kept")
    disk.fill()
    history.append_string("refused " + "x" * 5000)  # inside the Enter handler: must not raise
    assert said and "prompt history not saved" in said[0] and "No space left on device" in said[0]
    disk.free()
    history.append_string("after")
    assert PromptHistory.for_workspace("/w").load() == ["kept", "after"]
    assert os.stat(PromptHistory.for_workspace("/w").path).st_mode & 0o777 == 0o600


def test_an_index_the_disk_refuses_is_a_message_in_the_app_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_full_once(monkeypatch)  # SQLite's own writes cannot be stood in for; its error is

    async def body() -> None:
        async with running_app(tmp_path) as h:
            await h.wait(
                lambda: "session index not refreshed: database or disk is full" in h.message,
                "a message about the index",
            )
            assert "session-query.db" in h.message and "in memory" in h.message
            h.type_line("echo still-works")
            await h.wait_output(h.pane, "still-works")

    run(body)
