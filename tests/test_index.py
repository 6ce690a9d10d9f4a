"""The derived SQLite index: summaries, scope, incremental refresh, rebuilds, and bad logs."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import sqlite3
from pathlib import Path

import pytest

import dsh.store.index as index_mod
from dsh.store.ids import InvalidSessionId
from dsh.store.index import SCHEMA_VERSION, SessionIndex
from dsh.store.log import SessionLog, append_event
from dsh.store.summary import JSON_KEYS, NO_WORKSPACE_REASON
from dsh.store.workspace import workspace_partition


def make(root: Path, cwd: str, *inputs: str, title: str | None = None, close: bool = True) -> SessionLog:
    log = SessionLog.create(root, cwd)
    for text in inputs:
        log.append("input", text=text)
    if title is not None:
        log.set_title(title)
    if close:
        log.close()
    return log


def raw_log(root: Path, cwd: str, sid: str, data: bytes) -> Path:
    path = root / workspace_partition(cwd) / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def header(sid: str, cwd: str | None = "/w", at: str = "2026-01-01T00:00:00.000Z") -> bytes:
    record = {"type": "session", "version": 1, "id": sid, "created_at": at, "dsh": "0.1.0"}
    if cwd is not None:
        record["cwd"] = cwd
    return json.dumps(record).encode() + b"\n"


def event(kind: str, at: str = "2026-01-01T00:00:01.000Z", **fields: object) -> bytes:
    return json.dumps({"type": kind, "at": at, **fields}).encode() + b"\n"


def test_summary_fields_from_events(index: SessionIndex, root: Path) -> None:
    log = SessionLog.create(root, "/w/proj")
    for i in range(7):
        log.append("input", text=f"cmd {i}")
    log.append("pane_opened", pane_id="p1", argv=["sh"])
    log.append("pane_opened", pane_id="p2", argv=["claude"])
    log.append("pane_exited", pane_id="p1", status=0)
    log.append("mystery", data=1)
    log.close()
    assert index.refresh() == []
    (s,) = index.summaries()
    assert s.id == log.id and s.path == str(log.path) and s.cwd == "/w/proj"
    assert s.workspace == workspace_partition("/w/proj") and s.workspace_label == "/w/proj"
    assert s.title == "cmd 0" and s.explicit_title is None and s.first_input == "cmd 0"
    assert (s.event_count, s.input_count, s.pane_count) == (12, 7, 1)
    assert s.preview == ("cmd 2", "cmd 3", "cmd 4", "cmd 5", "cmd 6")
    assert s.live_pid is None and s.archived is False and s.unresumable_reason is None
    assert s.created_at <= s.updated_at
    assert list(s.to_json()) == list(JSON_KEYS)
    assert s.to_json()["preview"] == list(s.preview)
    json.dumps(s.to_json())


def test_titles_explicit_then_first_input_then_untitled(index: SessionIndex, root: Path) -> None:
    a = make(root, "/w", "first", "second", title="named")
    b = make(root, "/w", "only input")
    c = make(root, "/w")
    index.refresh()
    titles = {s.id: (s.title, s.explicit_title) for s in index.summaries()}
    assert titles == {a.id: ("named", "named"), b.id: ("only input", None), c.id: ("untitled", None)}


def test_newest_first_and_workspace_scope(index: SessionIndex, root: Path) -> None:
    raw_log(root, "/a_b", "old", header("old", "/a_b") + event("input", "2026-01-01T00:00:01.000Z", text="x"))
    raw_log(root, "/a-b", "mid", header("mid", "/a-b") + event("input", "2026-01-02T00:00:01.000Z", text="y"))
    raw_log(root, "/a_b", "new", header("new", "/a_b") + event("input", "2026-01-03T00:00:01.000Z", text="z"))
    index.refresh()
    assert [s.id for s in index.summaries()] == ["new", "mid", "old"]
    assert [s.id for s in index.summaries(cwd="/a_b")] == ["new", "old"]
    assert [s.id for s in index.summaries(cwd="/a-b")] == ["mid"]
    assert index.summaries(cwd="/elsewhere") == []


def test_live_closed_and_crashed(index: SessionIndex, root: Path) -> None:
    live = make(root, "/w", "a", close=False)
    closed = make(root, "/w", "b")
    crashed = raw_log(root, "/w", "crashed", header("crashed") + event("input", text="c"))
    index.refresh()
    pids = {s.id: s.live_pid for s in index.summaries()}
    assert pids == {live.id: os.getpid(), closed.id: None, "crashed": None}
    assert crashed.exists()
    live.close()
    index.refresh()
    assert index.get(live.id).live_pid is None  # type: ignore[union-attr]


def test_archived_hidden_unless_asked(index: SessionIndex, root: Path) -> None:
    a = make(root, "/w", "a")
    b = make(root, "/w", "b")
    append_event(a.path, "archive", archived=True)
    index.refresh()
    assert [s.id for s in index.summaries()] == [b.id]
    assert {s.id: s.archived for s in index.summaries(include_archived=True)} == {a.id: True, b.id: False}
    append_event(a.path, "archive", archived=False)
    index.refresh()
    assert len(index.summaries()) == 2


def test_refresh_is_incremental_by_size_and_mtime(
    index: SessionIndex, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = [make(root, f"/w{i}", "x") for i in range(5)]
    parsed: list[Path] = []
    real = index_mod.scan_log

    def counting(path: Path, fh, each):  # type: ignore[no-untyped-def]
        parsed.append(Path(path))
        return real(path, fh, each)

    monkeypatch.setattr(index_mod, "scan_log", counting)
    index.refresh()
    assert len(parsed) == 5
    parsed.clear()
    index.refresh()
    assert parsed == []
    append_event(logs[2].path, "input", text="more")
    index.refresh()
    assert parsed == [logs[2].path]
    assert index.get(logs[2].id).input_count == 2  # type: ignore[union-attr]
    logs[3].path.unlink()
    index.refresh()
    assert index.get(logs[3].id) is None and len(index.summaries()) == 4


def test_deleting_the_index_loses_nothing(tmp_path: Path, index: SessionIndex, root: Path) -> None:
    for i in range(3):
        make(root, f"/w/{i}", f"in {i}", title=f"t{i}")
    index.refresh()
    before = [s.to_json() for s in index.summaries()]
    index.close()
    for name in os.listdir(tmp_path):
        if name.startswith("session-query.db"):
            os.unlink(tmp_path / name)
    again = SessionIndex(tmp_path / "session-query.db", root)
    assert again.refresh() == []
    assert [s.to_json() for s in again.summaries()] == before
    again.close()


def test_corrupt_index_is_rebuilt(tmp_path: Path, root: Path) -> None:
    make(root, "/w", "a")
    db = tmp_path / "session-query.db"
    db.write_bytes(b"this is not an sqlite database at all" * 100)
    idx = SessionIndex(db, root)
    warnings = idx.refresh()
    assert len(warnings) == 1 and warnings[0].startswith(f"{db}: session index unreadable")
    assert "rebuilding it from the logs" in warnings[0]
    assert len(idx.summaries()) == 1
    idx.close()
    from dsh.home import dsh_home

    # The file's removal is in the log too, with its cause (issue 27: never a silent rebuild).
    logged = (dsh_home() / "log" / "dsh.log").read_text()
    assert f"{db}: session index unreadable (file is not a database)" in logged and "(DatabaseError)" in logged


def test_wrong_schema_index_is_rebuilt(tmp_path: Path, root: Path) -> None:
    make(root, "/w", "a")
    db = tmp_path / "session-query.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE sessions (path TEXT, something_else INTEGER)")
    conn.execute("INSERT INTO sessions VALUES ('x', 1)")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 7}")
    conn.commit()
    conn.close()
    idx = SessionIndex(db, root)
    warnings = idx.refresh()
    wrong = SCHEMA_VERSION + 7
    assert warnings == [f"{db}: session index schema {wrong} is not {SCHEMA_VERSION}; rebuilding it"]
    assert [s.first_input for s in idx.summaries()] == ["a"]
    idx.close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_index_path_unusable_falls_back_to_memory(tmp_path: Path, root: Path) -> None:
    make(root, "/w", "a")
    db = tmp_path / "session-query.db"
    db.mkdir()
    idx = SessionIndex(db, root)
    warnings = idx.refresh()
    assert len(warnings) == 1 and warnings[0].startswith(f"{db}: cannot open the session index")
    assert len(idx.summaries()) == 1
    idx.close()


def test_bad_logs_are_reported_and_others_still_listed(
    index: SessionIndex, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = make(root, "/w", "good one")
    files = {
        "torn": header("torn") + event("input", text="kept") + b'{"type": "in',
        "mid": header("mid") + b"{{{{\n" + event("input", text="after"),
        "latin": header("latin") + b'{"type": "input", "text": "caf\xe9"}\n',
        "huge": header("huge") + event("input", text="y" * (5 << 20)),
        "empty": b"",
        "nocwd": header("nocwd", cwd=None) + event("input", text="q"),
        "rel": header("rel", cwd="some/dir") + event("input", text="r"),
        "unread": header("unread"),
    }
    paths = {sid: raw_log(root, "/w", sid, data) for sid, data in files.items()}
    folder = root / workspace_partition("/w") / "adir.jsonl"
    folder.mkdir()
    badname = raw_log(root, "/w", "..evil", header("evil"))
    real_open = os.open

    def deny(path, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path) == str(paths["unread"]):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(index_mod.os, "open", deny)
    warnings = index.refresh()
    text = "\n".join(warnings)
    assert f"{paths['torn']}:3: torn last line" in text
    assert f"{paths['mid']}:2: malformed line skipped" in text
    assert f"{paths['latin']}:2: invalid UTF-8" in text
    assert f"{paths['empty']}: empty log" in text
    assert f"{paths['unread']}: cannot read: Permission denied" in text
    assert f"{folder}: a directory where a session log should be" in text
    assert f"{badname}: file name is not a valid session id" in text
    by_id = {s.id: s for s in index.summaries()}
    assert set(by_id) == {good.id, "torn", "mid", "latin", "huge", "empty", "nocwd", "rel"}
    assert by_id["torn"].first_input == "kept" and by_id["mid"].first_input == "after"
    assert by_id["latin"].first_input == "caf\ufffd"
    assert len(by_id["huge"].title) == 500 and by_id["huge"].title.endswith("…")
    assert by_id["nocwd"].unresumable_reason == NO_WORKSPACE_REASON
    assert by_id["nocwd"].workspace_label == "(no workspace)"
    assert "not an absolute path" in str(by_id["rel"].unresumable_reason)
    assert by_id["empty"].unresumable_reason == "log has no readable session header"
    for sid, data in files.items():
        assert paths[sid].read_bytes() == data
    # The unreadable log is retried (and reported) on every refresh until it can be read.
    assert any("Permission denied" in w for w in index.refresh())
    monkeypatch.setattr(index_mod.os, "open", real_open)
    index.refresh()
    assert "unread" in {s.id for s in index.summaries()}


def test_header_id_differs_from_file_name(index: SessionIndex, root: Path) -> None:
    path = raw_log(root, "/w", "named", header("other"))
    warnings = index.refresh()
    assert warnings == [f"{path}:1: header id 'other' differs from the file name; listed as named"]
    assert [s.id for s in index.summaries()] == ["named"]


def test_get_validates_ids(index: SessionIndex, root: Path) -> None:
    log = make(root, "/w", "a")
    index.refresh()
    assert index.get(log.id).id == log.id  # type: ignore[union-attr]
    assert index.get("nope") is None
    with pytest.raises(InvalidSessionId):
        index.get("../etc/passwd")


def test_missing_root_is_an_empty_listing(index: SessionIndex) -> None:
    assert index.refresh() == [] and index.summaries() == []


def test_rows_of_another_root_are_not_listed(tmp_path: Path, root: Path) -> None:
    other = tmp_path / "other-root"
    make(root, "/w", "a")
    make(other, "/w", "b")
    db = tmp_path / "session-query.db"
    first, second = SessionIndex(db, root), SessionIndex(db, other)
    first.refresh()
    second.refresh()
    assert [s.first_input for s in first.summaries()] == ["a"]
    assert [s.first_input for s in second.summaries()] == ["b"]
    first.refresh()
    assert [s.first_input for s in second.summaries()] == ["b"]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_cold_build_progress_only_on_a_terminal(tmp_path: Path, root: Path) -> None:
    for i in range(3):
        make(root, f"/w/{i}", "a")
    tty, plain = _Tty(), io.StringIO()
    SessionIndex(tmp_path / "a.db", root, progress=tty, progress_after=0).refresh()
    SessionIndex(tmp_path / "b.db", root, progress=plain, progress_after=0).refresh()
    assert "dsh: indexing sessions 1/3" in tty.getvalue() and tty.getvalue().endswith("\r\x1b[K")
    assert plain.getvalue() == ""


def _writer(root: str, db: str, tag: str, count: int, barrier: multiprocessing.synchronize.Barrier) -> None:
    idx = SessionIndex(Path(db), Path(root))
    logs = []
    for i in range(count):
        log = SessionLog.create(Path(root), f"/proj/{tag}/{i % 4}")
        log.append("input", text=f"{tag}-{i}")
        logs.append(log)
        if i % 5 == 0:
            idx.refresh()
    for log in logs:
        log.append("input", text="second")
        log.close()
    barrier.wait(timeout=60)
    for _ in range(3):
        problems = idx.refresh()
        assert problems == [], problems
    idx.close()


def test_two_processes_writing_and_refreshing_at_once(tmp_path: Path, root: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    db = tmp_path / "session-query.db"
    procs = [ctx.Process(target=_writer, args=(str(root), str(db), tag, 40, barrier)) for tag in ("left", "right")]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
        assert proc.exitcode == 0
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    # No refresh here: what the two processes left in the index must already be complete.
    idx = SessionIndex(db, root)
    rows = idx.summaries()
    assert len(rows) == 80
    assert {s.first_input for s in rows} == {f"{t}-{i}" for t in ("left", "right") for i in range(40)}
    assert all(s.input_count == 2 and s.event_count == 3 and s.live_pid is None for s in rows)
    assert idx.refresh() == []
    idx.close()


def test_index_file_is_private(tmp_path: Path, root: Path) -> None:
    make(root, "/w", "a")
    db = tmp_path / "private.db"
    idx = SessionIndex(db, root)
    idx.refresh()
    assert oct(db.stat().st_mode & 0o777) == oct(0o600)
    idx.close()


def test_index_damaged_past_its_first_page_is_rebuilt(tmp_path: Path, root: Path) -> None:
    for i in range(60):
        make(root, f"/w/{i}", "x" * 400)
    db = tmp_path / "session-query.db"
    idx = SessionIndex(db, root)
    idx.refresh()
    idx.close()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    data[page : len(data)] = b"\xa5" * (len(data) - page)  # keep the header page, ruin every other page
    db.write_bytes(bytes(data))
    idx = SessionIndex(db, root)
    warnings = idx.refresh()
    assert any("session index unreadable" in w for w in warnings), warnings
    assert len(idx.summaries()) == 60
    idx.close()


def test_a_listing_may_read_the_index_through_a_map_and_lists_the_same(tmp_path: Path, root: Path) -> None:
    for i in range(3):
        make(root, f"/w/{i}", f"in {i}")
    idx = SessionIndex(tmp_path / "session-query.db", root)
    idx.refresh()
    before = idx.summaries()
    idx.map_reads()
    assert idx.read(lambda conn: conn.execute("PRAGMA mmap_size").fetchone()[0]) == index_mod.MAP_BYTES
    assert idx.summaries() == before
    idx.close()


def test_a_mistaken_statement_keeps_the_index_and_a_damaged_file_is_rebuilt(tmp_path: Path, root: Path) -> None:
    make(root, "/w", "a")
    db = tmp_path / "session-query.db"
    idx = SessionIndex(db, root)
    idx.refresh()
    kept = db.stat().st_ino
    for mistake in ("SELECT ?", "INSERT INTO folders (root, name) VALUES (NULL, NULL)"):
        with pytest.raises((sqlite3.ProgrammingError, sqlite3.IntegrityError)):
            idx.read(lambda conn, sql=mistake: conn.execute(sql, (1, 2) if "?" in sql else ()))
        assert db.stat().st_ino == kept
        assert idx.read(lambda conn: conn.execute("SELECT count(*) FROM sessions").fetchone()[0]) == 1
    damaged = iter([sqlite3.DatabaseError("database disk image is malformed")])

    def once(conn: sqlite3.Connection) -> int:
        for exc in damaged:
            raise exc
        return int(conn.execute("SELECT count(*) FROM sessions").fetchone()[0])

    assert idx.read(once) == 0  # thrown away and begun again; the next refresh fills it from the logs
    from dsh.home import dsh_home

    logged = (dsh_home() / "log" / "dsh.log").read_text()
    assert "session index unreadable (database disk image is malformed); rebuilding it from the logs" in logged
    idx.refresh()
    assert len(idx.summaries()) == 1
    idx.close()


def test_rows_are_stored_in_the_listings_order_oldest_first(index: SessionIndex, root: Path) -> None:
    """Rowids follow the listing's ORDER BY (updated_at, mtime_ns, id), ties included, so a listing of every
    row walks the table nearly in order; a changed log's row becomes the newest rowid, as it is newest."""
    logs = []
    for n in range(12):
        sid = f"20260101T0000{59 - n:02d}Z-{n:06x}"  # ids run against the times
        at = f"2026-01-01T00:00:{(n // 3):02d}.000Z"  # three rows share each updated_at
        path = raw_log(root, f"/w{n % 4}", sid, header(sid, f"/w{n % 4}") + event("input", at=at, text="x"))
        os.utime(path, ns=(1_700_000_000_000_000_000 + (n % 2) * 1000,) * 2)  # and some their mtime too
        logs.append(path)
    index.refresh()

    def by(order: str) -> list[str]:
        return index.read(lambda conn: [sid for (sid,) in conn.execute(f"SELECT id FROM sessions ORDER BY {order}")])

    assert by("rowid") == by("updated_at, mtime_ns, id")
    with logs[0].open("ab") as out:
        out.write(event("input", at="2026-01-01T00:01:00.000Z", text="y"))
    index.refresh()
    assert by("rowid") == by("updated_at, mtime_ns, id") and by("rowid")[-1] == logs[0].stem


def test_an_error_sqlite_rolled_back_itself_reaches_the_caller_as_it_was(index: SessionIndex) -> None:
    # SQLite undoes the transaction itself after some errors; our ROLLBACK then said "cannot rollback -
    # no transaction is active" in its place.
    def fails(conn: sqlite3.Connection) -> None:
        conn.execute("ROLLBACK")  # what SQLite does on a full disk or an I/O error
        raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        index.write(fails)
    assert index.write(lambda conn: conn.execute("SELECT count(*) FROM sessions").fetchone()[0]) == 0


def test_a_refresh_that_fails_rebuilds_the_index_and_logs_why(
    index: SessionIndex, root: Path, dsh_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(root, "/w/app", "make test", title="the one")
    real = SessionIndex._refresh
    calls = {"n": 0}

    def once(self: SessionIndex, conn: sqlite3.Connection, warnings: list[str]) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise sqlite3.OperationalError("no such table: sessions")  # another dsh rebuilding to its schema
        real(self, conn, warnings)

    monkeypatch.setattr(SessionIndex, "_refresh", once)
    warnings = index.refresh()
    assert any("no such table: sessions; rebuilt from the logs" in w for w in warnings), warnings
    assert [s.title for s in index.summaries()] == ["the one"]  # never a silently empty picker
    assert index.db_path.exists()  # on disk again, not in memory
    logged = (dsh_home / "log" / "dsh.log").read_text()
    assert "session index not refreshed: no such table: sessions (OperationalError)" in logged
    assert "rebuilt from the logs" in logged


def test_a_rename_or_an_archive_keeps_the_sessions_age(index: SessionIndex, root: Path) -> None:
    older = raw_log(
        root,
        "/w",
        "old",
        header("old")
        + b'{"type": "input", "at": "2026-01-01T00:00:05.000Z", "text": "make"}\n'
        + b'{"type": "close", "at": "2026-01-01T00:00:06.000Z"}\n',
    )
    raw_log(root, "/w", "mid", header("mid", at="2026-01-02T00:00:00.000Z"))
    index.refresh()
    append_event(older, "title", title="renamed from a picker")
    append_event(older, "archive", archived=False)
    index.refresh()
    (row,) = [s for s in index.summaries() if s.id == "old"]
    assert row.title == "renamed from a picker" and row.updated_at == "2026-01-01T00:00:06.000Z"
    assert [s.id for s in index.summaries()] == ["mid", "old"]  # it does not jump to the top either


def test_an_io_error_keeps_the_index_file_lists_from_memory_and_logs_why(
    index: SessionIndex, root: Path, dsh_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(root, "/w/app", "make test", title="the one")
    index.refresh()
    real = SessionIndex._refresh
    calls = {"n": 0}

    def once(self: SessionIndex, conn: sqlite3.Connection, warnings: list[str]) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise sqlite3.OperationalError("disk I/O error")
        real(self, conn, warnings)

    monkeypatch.setattr(SessionIndex, "_refresh", once)
    warnings = index.refresh()
    assert any("disk I/O error; using a temporary one in memory" in w for w in warnings), warnings
    assert [s.title for s in index.summaries()] == ["the one"] and index.db_path.exists()
    assert "session index not refreshed: disk I/O error" in (dsh_home / "log" / "dsh.log").read_text()
