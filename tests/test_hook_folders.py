"""The hook folders dsh writes per agent pane: removed for a pane, for a session, and stale ones swept at
a host's start (not a live session's, not one just written, never through a link)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from dsh.session import hook_folders


def _pane_folder(home: Path, session_id: str, pane_id: str, *, age: float = 0.0) -> Path:
    folder = home / "state" / session_id / "hooks" / pane_id
    folder.mkdir(parents=True)
    (folder / "claude-settings.json").write_text("{}")
    then = time.time() - age
    for path in (folder / "claude-settings.json", folder, folder.parent):
        os.utime(path, (then, then))
    return folder


def test_a_pane_s_and_a_session_s_folders_are_removed(dsh_home: Path) -> None:
    sid = "20261202T000000Z-aaaaaa"
    first, second = _pane_folder(dsh_home, sid, "p1"), _pane_folder(dsh_home, sid, "p2")
    hook_folders.remove_pane(sid, "p1")
    assert not first.exists() and second.exists()
    hook_folders.remove_pane(sid, "p9")  # none there: nothing to do
    hook_folders.remove_session(sid)
    assert not second.parent.exists() and (dsh_home / "state" / sid).is_dir()  # the snapshot's folder stays


def test_a_host_s_start_sweeps_what_a_crashed_host_left_but_the_running_panes(dsh_home: Path) -> None:
    sid = "20261202T000000Z-aaaaaa"
    old, running = _pane_folder(dsh_home, sid, "p1", age=600), _pane_folder(dsh_home, sid, "p2", age=600)
    hook_folders.sweep_own(sid, ["p2"])
    assert not old.exists() and running.exists()


def test_other_sessions_stale_folders_go_but_a_live_or_fresh_one_stays(dsh_home: Path, tmp_path: Path) -> None:
    own, dead, live, fresh = (f"20261202T000000Z-{c * 6}" for c in "abcd")
    mine = _pane_folder(dsh_home, own, "p1", age=600)
    crashed = _pane_folder(dsh_home, dead, "p1", age=600)
    held = _pane_folder(dsh_home, live, "p1", age=600)
    new = _pane_folder(dsh_home, fresh, "p1", age=5)  # its host may be writing it now
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "keep").write_text("mine")
    linked = dsh_home / "state" / "20261202T000000Z-eeeeee"
    linked.mkdir(parents=True)
    (linked / "hooks").symlink_to(outside)
    removed = hook_folders.sweep_others(own, lambda session_id: session_id == live)
    assert removed == [dead]
    assert not crashed.exists() and held.exists() and new.exists() and mine.exists()
    assert (outside / "keep").exists()


def test_a_session_is_live_while_a_host_holds_its_log(dsh_home: Path, tmp_path: Path) -> None:
    from dsh.config import load_config
    from dsh.store.store import Store

    store = Store(load_config())
    log = store.create_session(str(tmp_path))
    try:
        assert hook_folders.session_is_live(log.id)
    finally:
        log.close()
    assert not hook_folders.session_is_live(log.id)
    assert not hook_folders.session_is_live("20261202T000000Z-ffffff")
