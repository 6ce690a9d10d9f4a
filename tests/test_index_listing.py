"""Listing from the index: preview storage, the schema-1 upgrade, counts, workspace rows, labels, Summary."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest

from dsh.store import workspace as workspace_mod
from dsh.store.index import SCHEMA_VERSION, SessionIndex
from dsh.store.lines_column import decode_lines, encode_lines
from dsh.store.log import SessionLog, append_event
from dsh.store.summary import JSON_KEYS, Summary
from dsh.store.workspace import NO_WORKSPACE, workspace_label, workspace_partition


def make(root: Path, cwd: str, *inputs: str) -> SessionLog:
    log = SessionLog.create(root, cwd)
    for text in inputs:
        log.append("input", text=text)
    log.close()
    return log


@pytest.mark.parametrize(
    "lines",
    [(), ("",), ("", ""), ("plain",), ("a", "b"), ("back\\slash", "new\nline", "\\n literal", "\\", "\n")],
)
def test_preview_lines_round_trip(lines: tuple[str, ...]) -> None:
    assert decode_lines(encode_lines(lines)) == lines


def test_preview_with_newlines_and_backslashes_survives_the_index(index: SessionIndex, root: Path) -> None:
    tricky = ["first", "two\nlines", "C:\\dir\\new", "\\n", ""]
    make(root, "/w", *tricky)
    index.refresh()
    (s,) = index.summaries()
    assert s.preview == tuple(tricky)
    assert s.to_json()["preview"] == tricky


def v1_index(db: Path, root: Path, sid: str) -> None:
    """An index as schema 1 left it: preview as a JSON array, no cwd index."""
    conn = sqlite3.connect(db)
    conn.execute(
        "CREATE TABLE sessions (path TEXT PRIMARY KEY, root TEXT NOT NULL, size INTEGER NOT NULL,"
        " mtime_ns INTEGER NOT NULL, id TEXT NOT NULL, cwd TEXT, workspace TEXT NOT NULL, title TEXT NOT NULL,"
        " explicit_title TEXT, first_input TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,"
        " event_count INTEGER NOT NULL, input_count INTEGER NOT NULL, pane_count INTEGER NOT NULL,"
        " closed INTEGER NOT NULL, archived INTEGER NOT NULL, unresumable_reason TEXT, preview TEXT NOT NULL)"
    )
    conn.execute(
        "INSERT INTO sessions VALUES (?, ?, 1, 1, ?, '/w', 'w', 'stale', NULL, 'stale', '2026-01-01T00:00:00Z',"
        " '2026-01-01T00:00:00Z', 1, 1, 0, 1, 0, NULL, ?)",
        (str(root / "w" / f"{sid}.jsonl"), str(root), sid, json.dumps(["stale"])),
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def test_a_schema_1_index_is_rebuilt_from_the_logs(tmp_path: Path, root: Path) -> None:
    assert SCHEMA_VERSION >= 2
    log = make(root, "/w", "fresh", "line\ntwo")
    db = tmp_path / "session-query.db"
    v1_index(db, root, "20260101T000000Z-aaaaaa")
    idx = SessionIndex(db, root)
    warnings = idx.refresh()
    assert warnings == [f"{db}: session index schema 1 is not {SCHEMA_VERSION}; rebuilding it"]
    (s,) = idx.summaries()
    assert (s.id, s.first_input, s.preview) == (log.id, "fresh", ("fresh", "line\ntwo"))
    idx.close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_count_matches_the_listing_and_skips_archived(index: SessionIndex, root: Path) -> None:
    logs = [make(root, f"/w{i % 3}", "x") for i in range(7)]
    append_event(logs[0].path, "archive", archived=True)
    index.refresh()
    assert index.count() == len(index.summaries()) == 6
    assert index.count(include_archived=True) == len(index.summaries(include_archived=True)) == 7


def test_count_of_an_empty_root_is_zero(index: SessionIndex) -> None:
    assert index.count() == 0


def test_workspace_rows_by_partition_or_recorded_cwd(index: SessionIndex, root: Path) -> None:
    here = make(root, "/w/proj", "here")
    other = make(root, "/w/other", "other")
    # A log kept in another folder (copied by hand) whose header names this cwd still belongs here.
    moved = make(root, "/w/proj", "moved")
    target = root / workspace_partition("/w/other") / moved.path.name
    moved.path.rename(target)
    index.refresh()
    got = index.workspace_summaries(workspace_partition("/w/proj"), ["/w/proj"])
    assert {s.id for s in got} == {here.id, moved.id}
    assert [s.id for s in got] == [s.id for s in index.summaries() if s.id in {here.id, moved.id}]
    assert [s.id for s in index.workspace_summaries(workspace_partition("/w/proj"), [])] == [here.id]
    assert other.id not in {s.id for s in got}
    assert index.summaries(cwd="/w/proj") == got


def test_workspace_rows_hide_archived_unless_asked(index: SessionIndex, root: Path) -> None:
    a = make(root, "/w", "a")
    b = make(root, "/w", "b")
    append_event(a.path, "archive", archived=True)
    index.refresh()
    part = workspace_partition("/w")
    assert [s.id for s in index.workspace_summaries(part, ["/w"])] == [b.id]
    assert {s.id for s in index.workspace_summaries(part, ["/w"], include_archived=True)} == {a.id, b.id}


def test_refresh_says_whether_anything_changed(index: SessionIndex, root: Path) -> None:
    log = make(root, "/w", "a")
    index.refresh()
    assert index.changed
    index.refresh()
    assert not index.changed
    append_event(log.path, "title", title="renamed")
    index.refresh()
    assert index.changed
    log.path.unlink()
    index.refresh()
    assert index.changed and index.summaries() == []


def test_query_problems_are_kept_as_warnings(tmp_path: Path, root: Path) -> None:
    db = tmp_path / "session-query.db"
    idx = SessionIndex(db, root)
    idx.refresh()
    idx._connect().execute("DROP TABLE sessions")  # the index is broken under a running listing
    assert idx.count() == 0
    assert idx.summaries() == []
    found = idx.warnings()
    assert len(found) == 2 and all("session index cannot be read" in w for w in found)
    assert idx.warnings() == []
    idx.close()


def test_label_shortens_home_and_follows_home_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u/")
    assert workspace_label("/home/u/src/x") == "~/src/x"
    assert workspace_label("/home/u") == "~"
    assert workspace_label("/home/user2") == "/home/user2"
    assert workspace_label(None) == workspace_label("") == NO_WORKSPACE
    monkeypatch.setenv("HOME", "/srv")
    assert workspace_label("/home/u/src/x") == "/home/u/src/x"
    assert workspace_label("/srv/a") == "~/a"
    assert workspace_label("/home/u/src/x", "/home/u") == "~/src/x"


def test_labels_are_computed_once_per_cwd_and_home(monkeypatch: pytest.MonkeyPatch) -> None:
    workspace_mod._label.cache_clear()
    for _ in range(3):
        workspace_label("/home/u/a", "/home/u")
        workspace_label("/home/u/a", "/other")
    info = workspace_mod._label.cache_info()
    assert (info.misses, info.hits) == (2, 4)


def test_listing_labels_use_home(index: SessionIndex, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    make(root, "/home/u/proj", "x")
    make(root, "/opt/proj", "y")
    index.refresh()
    assert sorted(s.workspace_label for s in index.summaries()) == ["/opt/proj", "~/proj"]


def test_summary_is_immutable_and_keeps_its_json_shape(index: SessionIndex, root: Path) -> None:
    make(root, "/w", "a")
    index.refresh()
    (s,) = index.summaries()
    assert isinstance(s, Summary)
    with pytest.raises(AttributeError):
        s.title = "x"  # type: ignore[misc]
    assert not dataclasses.is_dataclass(s)
    data = s.to_json()
    assert list(data) == list(JSON_KEYS)
    assert data["preview"] == ["a"] and data["archived"] is False and data["live_pid"] is None
    assert json.loads(json.dumps(data)) == data


def plans(index: SessionIndex, run: object) -> list[str]:
    """The query plans of the SQL statements `run()` sends through the index's connection."""
    conn = index._connect()
    sent: list[tuple[str, object]] = []
    conn.set_trace_callback(lambda sql: sent.append((sql, None)))
    try:
        run()  # type: ignore[operator]
    finally:
        conn.set_trace_callback(None)
    details = []
    for sql, _ in sent:
        if sql.lstrip().upper().startswith("SELECT"):
            details += [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    return details


def test_the_full_listing_comes_in_order_from_an_index(index: SessionIndex, root: Path) -> None:
    for i in range(3):
        make(root, f"/w{i}", "x")
    index.refresh()
    found = plans(index, lambda: index.summaries())
    assert any("sessions_by_time" in step or "sessions_search" in step for step in found)
    assert not any("TEMP B-TREE" in step or step.startswith("SCAN") for step in found)


def test_the_workspace_rows_are_found_through_indexes_not_a_walk_of_every_row(index: SessionIndex, root: Path) -> None:
    make(root, "/w", "x")
    index.refresh()
    found = plans(index, lambda: index.summaries(cwd="/w"))
    assert any("sessions_by_workspace" in step for step in found)
    assert any("sessions_by_cwd" in step for step in found)
    # A search on the root alone is a walk of every session of the store.
    assert not any(step.startswith("SCAN") or step.endswith("(root=?)") for step in found)


def test_the_pickers_wide_search_reads_only_its_covering_index(index: SessionIndex, root: Path) -> None:
    """The search of every row's searched text while every row loads never reads the wide rows to filter
    (the titles' own search: tests/test_title_search.py)."""
    for i in range(3):
        make(root, f"/w{i}", f"make target{i}")
    index.refresh()
    found = plans(index, lambda: index.matching(["target"], 100, wide=True))
    assert any("COVERING INDEX session_titles_wide" in step for step in found)
    assert [s.first_input for s in index.matching(["tgt2"], 100)] == ["make target2"]


def test_an_index_made_before_the_search_index_gets_it_when_opened(tmp_path: Path, root: Path) -> None:
    import io

    db = tmp_path / "made-before.db"
    first = SessionIndex(db, root, progress=io.StringIO())
    first.count()
    first.close()
    conn = sqlite3.connect(db)
    conn.execute("DROP INDEX sessions_search")
    conn.close()
    again = SessionIndex(db, root, progress=io.StringIO())
    again.count()  # same schema version: nothing is rebuilt, the search index is made
    again.close()
    conn = sqlite3.connect(db)
    names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    conn.close()
    assert "sessions_search" in names
