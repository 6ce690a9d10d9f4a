"""`dsh sessions --json` keeps each snapshot's pane records in the index while the file is unchanged."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from dsh.cli.sessions import listing_json
from dsh.config import load_config
from dsh.persist import listing
from dsh.persist.snapshot import state_dir, write_snapshot
from dsh.store.log import SessionLog
from dsh.store.store import Store
from tests.test_snapshot import agent_pane, pane, save_as_its_host, snapshot


def _session(dsh_home: Path, cwd: Path) -> str:
    log = SessionLog.create(dsh_home / "sessions", str(cwd))
    log.append("input", text="make")
    log.close()
    return log.id


def _list() -> list[dict]:  # type: ignore[type-arg]
    store = Store(load_config())
    try:
        store.summaries(cwd=None)  # the refresh, as the command runs it
        return [json.loads(row) for row in listing_json(store, None, include_archived=False)]
    finally:
        store.close()


def _kept() -> dict[str, object]:
    store = Store(load_config())
    try:
        return store.index.read(lambda conn: dict(conn.execute("SELECT session_id, panes FROM snapshot_panes")))
    finally:
        store.close()


def test_a_second_listing_reads_the_kept_records_and_lists_the_same(
    dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = _session(dsh_home, tmp_path)
    write_snapshot(snapshot([pane(), agent_pane()], session_id=sid), {})
    first = _list()
    assert [p["id"] for p in first[0]["panes"]] == ["p1", "p2"]
    assert sid in _kept()

    def no_parsing(session_id: str) -> None:
        raise AssertionError(f"the snapshot of {session_id} was parsed again")

    monkeypatch.setattr(listing, "snapshot_panes", no_parsing)
    assert _list() == first


def test_a_rewritten_snapshot_is_read_again(dsh_home: Path, tmp_path: Path) -> None:
    sid = _session(dsh_home, tmp_path)
    write_snapshot(snapshot([pane(title="title-a")], session_id=sid), {})
    path = state_dir(sid) / "snapshot.json"
    assert _list()[0]["panes"][0]["title"] == "title-a"
    before = path.stat()
    save_as_its_host(snapshot([pane(title="title-b")], session_id=sid))
    # The same size and, as a coarse clock can give, the same mtime: only the inode tells them apart.
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert _list()[0]["panes"][0]["title"] == "title-b"


def test_a_corrupt_snapshot_lists_no_panes_and_is_not_kept(dsh_home: Path, tmp_path: Path) -> None:
    sid = _session(dsh_home, tmp_path)
    write_snapshot(snapshot([pane()], session_id=sid), {})
    path = state_dir(sid) / "snapshot.json"
    good = path.read_bytes()
    path.write_bytes(b"{not json")
    assert _list()[0]["panes"] == []
    assert sid not in _kept()
    path.write_bytes(good)
    assert [p["id"] for p in _list()[0]["panes"]] == ["p1"]


def test_the_records_of_a_session_whose_state_is_gone_are_dropped(dsh_home: Path, tmp_path: Path) -> None:
    sid = _session(dsh_home, tmp_path)
    write_snapshot(snapshot([pane()], session_id=sid), {})
    _list()
    assert sid in _kept()
    shutil.rmtree(state_dir(sid))
    assert _list()[0]["panes"] == []
    assert sid not in _kept()


def test_a_link_in_place_of_the_snapshot_is_never_read_or_kept(dsh_home: Path, tmp_path: Path) -> None:
    sid = _session(dsh_home, tmp_path)
    write_snapshot(snapshot([pane()], session_id=sid), {})
    path = state_dir(sid) / "snapshot.json"
    elsewhere = tmp_path / "elsewhere.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    assert _list()[0]["panes"] == []
    assert sid not in _kept()


def test_a_listing_of_one_workspace_reads_only_the_records_of_its_changed_sessions(
    dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.store import pane_cache

    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    mine, same, other = _session(dsh_home, here), _session(dsh_home, here), _session(dsh_home, there)
    for sid in (mine, same, other):
        write_snapshot(snapshot([pane()], session_id=sid), {})
    _list()  # every workspace: all kept
    assert {mine, same, other} <= set(_kept())
    for sid in (mine, other):
        save_as_its_host(snapshot([pane(title="again")], session_id=sid))
    read: list[str] = []
    stock = pane_cache.get

    def get(conn, session_id):  # type: ignore[no-untyped-def]
        read.append(session_id)
        return stock(conn, session_id)

    monkeypatch.setattr(pane_cache, "get", get)
    store = Store(load_config())
    try:
        store.refresh()  # as the command does before it lists
        rows = {
            json.loads(row)["id"]: json.loads(row) for row in listing_json(store, str(here), include_archived=False)
        }
    finally:
        store.close()
    assert set(rows) == {mine, same}
    assert [p["title"] for p in rows[mine]["panes"]] == ["again"]
    assert [p["title"] for p in rows[same]["panes"]] == ["shell"]
    assert read == [mine]  # `same` from its kept row; `other` is not listed
