"""The Store facade: one root under DSH_HOME, its index, new sessions, and finding logs by id."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh.config import load_config
from dsh.store.ids import InvalidSessionId
from dsh.store.store import Store, open_store
from dsh.store.workspace import workspace_partition

HEADER = '{"type": "session", "version": 1, "id": "%s", "cwd": "%s", "created_at": "2026-01-01T00:00:00Z"}\n'


def test_store_lives_under_dsh_home(dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = open_store(load_config(env={}))
    assert store.root == dsh_home / "sessions"
    log = store.create_session("/w/proj")
    log.append("input", text="hello")
    log.close()
    assert log.path.parent == dsh_home / "sessions" / workspace_partition("/w/proj")
    (summary,) = store.summaries()
    assert summary.first_input == "hello"
    assert store.get(log.id) == summary
    assert store.summaries(cwd="/w/proj") == [summary] and store.summaries(cwd="/w") == []
    assert (dsh_home / "session-query.db").is_file()
    assert not (tmp_path / "sessions").exists() and not (tmp_path / ".sessions").exists()
    store.close()


def test_configured_root_is_used(tmp_path: Path) -> None:
    store = Store(load_config([f"store.root={tmp_path / 'elsewhere'}"], env={}))
    log = store.create_session("/w")
    log.close()
    assert log.path.is_relative_to(tmp_path / "elsewhere")
    assert [s.id for s in store.summaries()] == [log.id]
    store.close()


def test_find_log_shared_root_then_legacy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(load_config(env={}))
    log = store.create_session("/w")
    log.close()
    launch = tmp_path / "project"
    legacy = launch / ".sessions"
    (legacy / "part").mkdir(parents=True)
    (legacy / "flat1.jsonl").write_text(HEADER % ("flat1", launch))
    (legacy / "part" / "deep1.jsonl").write_text(HEADER % ("deep1", launch))
    (legacy / "dir1.jsonl").mkdir()
    # Found without the index knowing it yet, then through the index.
    assert store.find_log(log.id) == log.path
    store.refresh()
    assert store.find_log(log.id, launch) == log.path
    assert store.find_log("flat1", launch) == legacy / "flat1.jsonl"
    assert store.find_log("deep1", launch) == legacy / "part" / "deep1.jsonl"
    assert store.find_log("flat1") is None
    assert store.find_log("dir1", launch) is None
    assert store.find_log("nothing", launch) is None
    for bad in ["../x", "a/b", "", ".."]:
        with pytest.raises(InvalidSessionId):
            store.find_log(bad, launch)
    store.close()


def test_listing_never_scans_the_legacy_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".sessions").mkdir()
    (tmp_path / ".sessions" / "old1.jsonl").write_text(HEADER % ("old1", tmp_path))
    store = Store(load_config(env={}))
    assert store.summaries() == [] and store.summaries(cwd=str(tmp_path)) == []
    store.close()


def test_refresh_warnings_are_kept(dsh_home: Path) -> None:
    store = Store(load_config(env={}))
    part = store.root / workspace_partition("/w")
    part.mkdir(parents=True)
    (part / "x1.jsonl").write_text(HEADER % ("x1", "/w") + "garbage\n")
    assert store.summaries()[0].id == "x1"
    (warning,) = store.warnings
    assert warning.startswith(f"{part / 'x1.jsonl'}:2: malformed line skipped (Expecting value")
    store.close()
