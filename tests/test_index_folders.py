"""The refresh lists only folders whose mtime moved and stats only the logs of open sessions, and still
misses no log that changed: an append to a closed session's log, a log a running dsh appends to, a new
log, a deleted one, a folder gone, and a change in the same timestamp tick as the last listing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import dsh.store.scan as scan_mod
from dsh.store.index import SessionIndex
from dsh.store.log import SessionLog, append_event
from dsh.store.scan import RACY_NS
from tests.test_index import event, header, make, raw_log

HOUR_NS = 3600 * 1_000_000_000


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders the refresh lists (the root's own listing left out)."""
    seen: list[str] = []
    real = os.scandir

    def spy(path):  # type: ignore[no-untyped-def]
        seen.append(os.path.basename(os.fspath(path)))
        return real(path)

    monkeypatch.setattr(scan_mod.os, "scandir", spy)
    return seen


def settle(root: Path) -> None:
    """Age every folder of the root by an hour, as time passing would (a fresh folder is listed again)."""
    for part in root.iterdir():
        then = part.stat().st_mtime_ns - HOUR_NS
        os.utime(part, ns=(then, then))


def settled_index(index: SessionIndex, root: Path, listed: list[str]) -> None:
    index.refresh()
    settle(root)
    index.refresh()  # records the settled mtimes
    listed.clear()


def test_a_settled_folder_is_not_listed_again(index: SessionIndex, root: Path, listed: list[str]) -> None:
    make(root, "/w/a", "one")
    make(root, "/w/b", "two")
    settled_index(index, root, listed)
    assert index.refresh() == []
    assert listed == ["sessions"]  # the root only: neither folder is listed, no log is statted
    assert not index.changed
    assert sorted(s.first_input for s in index.summaries()) == ["one", "two"]


def test_a_fresh_folder_is_listed_until_it_settles(index: SessionIndex, root: Path, listed: list[str]) -> None:
    log = make(root, "/w", "one")
    index.refresh()
    listed.clear()
    index.refresh()
    assert log.path.parent.name in listed  # changed less than RACY_NS before it was listed: not trusted


def test_an_append_to_a_closed_sessions_log_is_seen(index: SessionIndex, root: Path, listed: list[str]) -> None:
    log = make(root, "/w", "one", title="before")
    other = make(root, "/w/other", "two")
    settled_index(index, root, listed)
    append_event(log.path, "title", title="after")  # a rename from another host's picker
    index.refresh()
    assert index.get(log.id).title == "after"  # type: ignore[union-attr]
    assert listed == ["sessions", log.path.parent.name]  # only the touched folder
    assert index.get(other.id).title == "two"  # type: ignore[union-attr]


def test_an_archive_from_a_picker_is_seen(index: SessionIndex, root: Path, listed: list[str]) -> None:
    log = make(root, "/w", "one")
    settled_index(index, root, listed)
    append_event(log.path, "archive", archived=True)
    index.refresh()
    assert index.summaries() == [] and index.archived()[0].id == log.id


def test_a_log_a_running_dsh_appends_to_is_seen(index: SessionIndex, root: Path, listed: list[str]) -> None:
    live = make(root, "/w", "first", close=False)
    closed = make(root, "/w/other", "x")
    settled_index(index, root, listed)
    live.append("input", text="second")  # the holder's own append moves no folder
    index.refresh()
    assert listed == ["sessions"]  # the open log is statted, no folder listed
    row = index.get(live.id)
    assert row is not None and row.input_count == 2 and row.preview == ("first", "second")
    live.close()
    index.refresh()
    assert index.get(live.id).live_pid is None  # type: ignore[union-attr]
    assert index.get(closed.id).input_count == 1  # type: ignore[union-attr]


def test_a_crashed_sessions_log_stays_looked_at(index: SessionIndex, root: Path, listed: list[str]) -> None:
    path = raw_log(root, "/w", "crashed", header("crashed") + event("input", text="a"))
    settled_index(index, root, listed)
    with open(path, "ab") as fh:  # no close event: whoever holds it next appends without a touch
        fh.write(event("input", text="b"))
    index.refresh()
    assert index.get("crashed").input_count == 2  # type: ignore[union-attr]


def test_a_resumed_session_is_seen_and_then_followed(index: SessionIndex, root: Path, listed: list[str]) -> None:
    log = make(root, "/w", "one")
    settled_index(index, root, listed)
    resumed = SessionLog.open_existing(log.path)
    resumed.append("input", text="two")
    index.refresh()
    assert index.get(log.id).live_pid == os.getpid()  # type: ignore[union-attr]
    settle(root)
    index.refresh()
    listed.clear()
    resumed.append("input", text="three")
    resumed.close()
    index.refresh()
    row = index.get(log.id)
    assert row is not None and row.input_count == 3 and row.live_pid is None
    assert listed == ["sessions", log.path.parent.name]  # the pid file went: its folder moved


def test_a_new_log_in_a_settled_folder_is_seen(index: SessionIndex, root: Path, listed: list[str]) -> None:
    make(root, "/w", "one")
    settled_index(index, root, listed)
    raw_log(root, "/w", "copied", header("copied") + event("input", text="from a backup"))
    index.refresh()
    assert index.get("copied").first_input == "from a backup"  # type: ignore[union-attr]
    new = make(root, "/w", "two")
    index.refresh()
    assert index.get(new.id) is not None


def test_a_deleted_log_and_a_deleted_folder_are_gone(index: SessionIndex, root: Path, listed: list[str]) -> None:
    a = make(root, "/w/a", "one")
    b = make(root, "/w/a", "two")
    c = make(root, "/w/c", "three")
    settled_index(index, root, listed)
    a.path.unlink()
    index.refresh()
    assert {s.id for s in index.summaries()} == {b.id, c.id}
    for path in c.path.parent.iterdir():
        path.unlink()
    c.path.parent.rmdir()
    index.refresh()
    assert {s.id for s in index.summaries()} == {b.id}
    settle(root)
    index.refresh()
    listed.clear()
    index.refresh()
    assert listed == ["sessions"]  # the gone folder is forgotten, not looked for again


def test_a_change_in_the_same_tick_as_the_listing_is_not_missed(
    index: SessionIndex, root: Path, listed: list[str]
) -> None:
    log = make(root, "/w", "one")
    folder = log.path.parent
    settled_index(index, root, listed)
    # The folder changes (a new log) and is listed at once; then a closed log is appended to by a writer
    # that does not touch the folder, within the same timestamp tick: the folder's mtime does not move.
    raw_log(root, "/w", "new", header("new"))
    tick = folder.stat().st_mtime_ns
    index.refresh()
    with open(log.path, "ab") as fh:
        fh.write(event("title", title="renamed in the same tick"))
    os.utime(folder, ns=(tick, tick))
    index.refresh()
    assert index.get(log.id).title == "renamed in the same tick"  # type: ignore[union-attr]


def test_the_folder_is_trusted_only_past_the_racy_window(
    index: SessionIndex, root: Path, listed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = make(root, "/w", "one")
    folder = log.path.parent
    index.refresh()
    now = folder.stat().st_mtime_ns
    monkeypatch.setattr(scan_mod.time, "time_ns", lambda: now + RACY_NS)
    index.refresh()  # the folder is just old enough now: its mtime is recorded
    listed.clear()
    index.refresh()
    assert listed == ["sessions"]


def test_a_folder_with_a_bad_entry_is_listed_and_warned_about_every_time(
    index: SessionIndex, root: Path, listed: list[str]
) -> None:
    make(root, "/w", "one")
    bad = raw_log(root, "/w", "..evil", header("evil"))
    index.refresh()
    settle(root)
    for _ in range(2):
        assert index.refresh() == [f"{bad}: file name is not a valid session id; skipped"]


def test_an_unreadable_log_is_retried_after_its_folder_settled(
    index: SessionIndex, root: Path, listed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import dsh.store.index as index_mod

    path = raw_log(root, "/w", "unread", header("unread"))
    real_open = os.open

    def deny(target, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(target) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(target, flags, *args, **kwargs)

    monkeypatch.setattr(index_mod.os, "open", deny)
    index.refresh()
    settle(root)
    assert any("Permission denied" in w for w in index.refresh())
    assert any("Permission denied" in w for w in index.refresh())
    monkeypatch.setattr(index_mod.os, "open", real_open)
    index.refresh()
    assert index.get("unread") is not None


def test_a_touched_folder_settles_again(index: SessionIndex, root: Path, listed: list[str]) -> None:
    log = make(root, "/w", "one")
    settled_index(index, root, listed)
    append_event(log.path, "title", title="renamed")
    index.refresh()
    settle(root)
    index.refresh()
    listed.clear()
    index.refresh()
    assert listed == ["sessions"]


def test_a_refresh_reads_no_row_but_through_an_index(index: SessionIndex, root: Path, listed: list[str]) -> None:
    from tests.test_index_listing import plans

    make(root, "/w/a", "one", close=False)
    make(root, "/w/b", "two")
    settled_index(index, root, listed)
    found = plans(index, index.refresh)
    assert any("sessions_open" in step for step in found)
    assert not any(step.startswith("SCAN sessions") for step in found), found
