"""A session log removed, replaced or truncated under the host appending to it: noticed at the next
append, put right, and said; nothing the host's descriptor still holds is lost."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from dsh.store.log import SessionLog, live_pid, pid_path, read_log


def _types(path: Path) -> list[str]:
    contents = read_log(path)
    assert contents.header is not None, contents.warnings
    return [event["type"] for event in contents.events]


def _started(tmp_path: Path) -> SessionLog:
    log = SessionLog.create(tmp_path / "home" / "sessions", "/work/proj", base=tmp_path)
    log.append("input", text="first")
    log.append("input", text="second")
    assert log.notices == []
    return log


def test_a_removed_log_is_written_again_whole_and_held(tmp_path: Path) -> None:
    log = _started(tmp_path)
    try:
        os.unlink(log.path)
        log.append("input", text="third")
        assert _types(log.path) == ["input", "input", "input"]
        assert [e["text"] for e in read_log(log.path).events] == ["first", "second", "third"]
        assert log.notices == ["this session's log was removed: written again from this host's copy"]
        assert live_pid(log.path) == os.getpid()  # still held: not listed crashed
        log.append("input", text="fourth")
        assert len(log.notices) == 1  # said once
    finally:
        log.close()
    assert _types(log.path)[-1] == "close" and not pid_path(log.path).exists()


def test_a_removed_home_is_made_again_with_the_log_in_it(tmp_path: Path) -> None:
    log = _started(tmp_path)
    try:
        shutil.rmtree(tmp_path / "home")
        assert log.check_file() is not None  # the host's periodic look, before any append
        assert [e["text"] for e in read_log(log.path).events] == ["first", "second"]
        assert (log.path.parent.stat().st_mode & 0o777) == 0o700
        assert pid_path(log.path).read_text().strip() == str(os.getpid())
    finally:
        log.close()


def test_a_replaced_log_is_kept_aside_and_ours_written_again(tmp_path: Path) -> None:
    log = _started(tmp_path)
    try:
        other = log.path.with_name("other")
        other.write_text("not a log\n")
        os.rename(other, log.path)
        log.append("input", text="third")
        (kept,) = [p for p in log.path.parent.iterdir() if ".replaced-" in p.name]
        assert kept.read_text() == "not a log\n"
        assert [e["text"] for e in read_log(log.path).events] == ["first", "second", "third"]
        assert log.notices == [
            "this session's log was replaced: written again from this host's copy "
            f"(what was in its place is kept beside it as {kept.name})"
        ]
        assert live_pid(log.path) == os.getpid()
    finally:
        log.close()


def test_a_log_emptied_gets_its_header_again(tmp_path: Path) -> None:
    log = _started(tmp_path)
    try:
        size = log.path.stat().st_size
        with open(log.path, "r+b") as handle:
            handle.truncate(0)
        log.append("input", text="third")
        contents = read_log(log.path)
        assert contents.header is not None and contents.header["id"] == log.id, contents.warnings
        assert contents.header["cwd"] == "/work/proj"
        assert [e["text"] for e in contents.events] == ["third"]
        assert log.notices == [f"this session's log was emptied ({size} bytes to 0): its header is written again"]
    finally:
        log.close()


def test_a_log_cut_inside_its_header_or_its_events(tmp_path: Path) -> None:
    log = _started(tmp_path)
    try:
        header_len = log.path.read_bytes().index(b"\n") + 1
        with open(log.path, "r+b") as handle:
            handle.truncate(header_len + 5)  # the first event torn
        log.append("input", text="third")
        contents = read_log(log.path)
        assert contents.header is not None
        assert [e.get("text") for e in contents.events] == ["third"], contents.warnings  # on a line of its own
        assert "was cut short" in log.notices[0] and "its events go on" in log.notices[0]
        with open(log.path, "r+b") as handle:
            handle.truncate(10)  # a piece of the header: nothing to keep
        log.append("input", text="fourth")
        contents = read_log(log.path)
        assert contents.header is not None and [e["text"] for e in contents.events] == ["fourth"]
        assert json.loads(log.path.read_bytes().split(b"\n")[0])["id"] == log.id
    finally:
        log.close()


def test_a_log_that_cannot_be_written_again_keeps_its_events_for_later(tmp_path: Path) -> None:
    log = _started(tmp_path)
    folder = log.path.parent
    try:
        shutil.rmtree(folder)
        folder.write_text("a file where the folder was\n")  # the folder cannot be made again
        log.append("input", text="third")
        log.append("input", text="fourth")
        assert len(log.notices) == 1 and "cannot be written again" in log.notices[0], log.notices
        folder.unlink()
        log.append("input", text="fifth")
        assert "was removed: written again" in log.notices[-1]
        assert [e["text"] for e in read_log(log.path).events] == ["first", "second", "third", "fourth", "fifth"]
    finally:
        log.close()


def test_an_index_whose_file_is_removed_is_opened_again_and_rebuilt(tmp_path: Path) -> None:
    from dsh.store.index import SessionIndex

    log = _started(tmp_path)
    log.close()
    db = tmp_path / "home" / "session-query.db"
    index = SessionIndex(db, tmp_path / "home" / "sessions")
    try:
        index.refresh()
        assert [s.id for s in index.summaries()] == [log.id]
        assert not index.file_gone()
        for suffix in ("", "-wal", "-shm"):
            (tmp_path / "home" / f"session-query.db{suffix}").unlink(missing_ok=True)
        assert index.file_gone()  # closed: its next use opens a new file
        index.refresh()
        assert [s.id for s in index.summaries()] == [log.id]  # rebuilt from the logs
        assert db.exists() and not index.file_gone()
    finally:
        index.close()


def test_a_folder_swapped_for_a_link_is_never_written_through(tmp_path: Path) -> None:
    log = _started(tmp_path)
    folder = log.path.parent
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / log.path.name).write_text("someone else's file\n")
    try:
        shutil.rmtree(folder)
        folder.symlink_to(elsewhere)  # the log's folder now leads outside the home
        log.append("input", text="third")
        assert len(log.notices) == 1 and "cannot be written again" in log.notices[0], log.notices
        assert sorted(p.name for p in elsewhere.iterdir()) == [log.path.name]  # nothing moved or made there
        assert (elsewhere / log.path.name).read_text() == "someone else's file\n"
        folder.unlink()
        log.append("input", text="fourth")
        assert [e["text"] for e in read_log(log.path).events] == ["first", "second", "third", "fourth"]
    finally:
        log.close()
