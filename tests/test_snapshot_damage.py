"""A snapshot replaced, cut short or edited by another hand: under its host (noticed, the other file kept
aside, written again) and before a resume (the copy saved before it restored, said in one line)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from dsh.persist.scheduler import SnapshotScheduler
from dsh.persist.snapshot import PREVIOUS_FILE, Snapshot, file_mark, load_snapshot, state_dir, write_snapshot
from dsh.persist.snapshot_file import SnapshotFile
from tests.test_snapshot import SID, pane, snapshot


def _path() -> Path:
    return state_dir(SID) / "snapshot.json"


def _titled(title: str, panes: int = 1) -> Snapshot:
    records = [pane(f"p{n}", title=f"{title}-{n}") for n in range(1, panes + 1)]
    return snapshot(records)


def test_a_write_keeps_the_one_it_replaces_only_when_nobody_touched_it() -> None:
    first = write_snapshot(_titled("first"), {"p1": b"one"})
    assert not (state_dir(SID) / PREVIOUS_FILE).exists()  # nothing to keep before the first write
    second = write_snapshot(_titled("second"), {"p1": b"two"}, keep_if=first)
    previous = state_dir(SID) / PREVIOUS_FILE
    assert json.loads(previous.read_text())["panes"][0]["title"] == "first-1"
    assert second == file_mark(_path())
    assert not os.path.samefile(_path(), previous)  # never one file: a truncation of one cuts both
    # Touched since (an editor wrote it): it is not this writer's, and is not kept as the good copy.
    _path().write_text(_path().read_text().replace("second-1", "edited-1"))
    write_snapshot(_titled("third"), {"p1": b"three"}, keep_if=second)
    assert json.loads(previous.read_text())["panes"][0]["title"] == "first-1"
    assert not [p for p in state_dir(SID).iterdir() if p.name.startswith(".tmp-")]


def test_a_snapshot_cut_short_before_a_resume_falls_back_to_the_copy_before_it() -> None:
    mark = write_snapshot(_titled("older", panes=2), {"p1": b"older output", "p2": b"two"})
    write_snapshot(_titled("newer", panes=2), {"p1": b"newer output", "p2": b"two"}, keep_if=mark)
    whole = _path().read_bytes()
    _path().write_bytes(whole[: len(whole) // 2])  # a truncate, a disk that lost the end

    loaded = load_snapshot(SID)

    assert loaded.snapshot is not None and [p.title for p in loaded.snapshot.panes] == ["older-1", "older-2"]
    assert loaded.tails["p1"] == b"newer output"  # the tails are the newest there are
    assert loaded.backup is not None and loaded.backup.read_bytes() == whole[: len(whole) // 2]
    assert loaded.error is not None and "\n" not in loaded.error
    assert "was damaged" in loaded.error and "restored the one saved before it" in loaded.error
    # Put back in place: a host that dies before its first write still finds it there. As a copy:
    # one file under both names would be cut short by a truncation of either.
    assert not os.path.samefile(_path(), state_dir(SID) / PREVIOUS_FILE)
    again = load_snapshot(SID)
    assert again.error is None and again.snapshot == loaded.snapshot
    assert again.mark == loaded.mark == file_mark(_path())


def test_a_snapshot_replaced_by_another_file_falls_back_too() -> None:
    mark = write_snapshot(_titled("older"), {"p1": b"x"})
    write_snapshot(_titled("newer"), {"p1": b"x"}, keep_if=mark)
    other = _path().with_name("other")
    other.write_bytes(b"notes an editor saved here\n")
    os.rename(other, _path())

    loaded = load_snapshot(SID)

    assert loaded.snapshot is not None and loaded.snapshot.panes[0].title == "older-1"
    assert loaded.backup is not None and loaded.backup.read_bytes() == b"notes an editor saved here\n"


def test_with_no_good_copy_before_it_a_damaged_snapshot_starts_empty_as_before() -> None:
    write_snapshot(_titled("only"), {})
    _path().write_bytes(b"{")
    (state_dir(SID) / PREVIOUS_FILE).write_bytes(b"also damaged")
    loaded = load_snapshot(SID)
    assert loaded.snapshot is None and loaded.error is not None and "empty layout" in loaded.error
    assert (state_dir(SID) / PREVIOUS_FILE).read_bytes() == b"also damaged"  # left as it was


def test_the_host_tells_a_snapshot_cut_short_from_one_replaced_or_edited() -> None:
    kept = SnapshotFile(SID)
    assert kept.look() is None  # nothing written yet
    kept.write(_titled("mine"), {})
    assert kept.look() is None  # its own write
    os.truncate(_path(), 10)
    line = kept.look()
    assert line is not None and "cut short" in line and "written again" in line
    assert not [p for p in state_dir(SID).iterdir() if ".replaced-" in p.name]  # a piece of its own: not kept

    kept.write(_titled("mine"), {})
    other = _path().with_name("other")
    other.write_bytes(b"someone else's file")
    os.rename(other, _path())
    line = kept.look()
    assert line is not None and "replaced by another file" in line
    (aside,) = [p for p in state_dir(SID).iterdir() if ".replaced-" in p.name]
    assert aside.name in line and aside.read_bytes() == b"someone else's file"
    assert not _path().exists()  # the caller writes it again
    assert kept.look() is None  # said once

    kept.write(_titled("mine"), {})
    with open(_path(), "ab") as handle:  # edited in place: same file, more in it
        handle.write(b"an edit")
    line = kept.look()
    assert line is not None and "changed by another program" in line
    assert len([p for p in state_dir(SID).iterdir() if ".replaced-" in p.name]) == 2


def test_a_write_that_finds_another_hands_file_keeps_it_and_says_so() -> None:
    kept = SnapshotFile(SID)
    kept.write(_titled("mine"), {})
    other = _path().with_name("other")
    other.write_bytes(b"someone else's file")
    os.rename(other, _path())
    kept.write(_titled("mine-again"), {})  # before any look: the write itself finds it
    (line,) = kept.take_notices()
    assert "replaced by another file" in line and kept.take_notices() == []
    (aside,) = [p for p in state_dir(SID).iterdir() if ".replaced-" in p.name]
    assert aside.read_bytes() == b"someone else's file"
    assert json.loads(_path().read_text())["panes"][0]["title"] == "mine-again-1"
    assert not (state_dir(SID) / PREVIOUS_FILE).exists()  # another hand's file is never the good copy


def test_a_look_never_runs_while_a_write_is_under_way() -> None:
    started, finish = threading.Event(), threading.Event()

    def slow_write(*_: object) -> None:
        started.set()
        finish.wait(10)

    scheduler = SnapshotScheduler(lambda: (_titled("x"), {}), write=slow_write)
    try:
        scheduler.structural_change()
        assert started.wait(10)
        assert scheduler.when_idle(lambda: "looked") is None  # the write holds the file
        finish.set()
        scheduler.close()
        assert scheduler.when_idle(lambda: "looked") == "looked"
    finally:
        finish.set()
