"""`dsh sessions --json` as SQLite writes it equals Summary.to_json() (plus panes), key for key, in order,
for every kind of row: live, crashed, archived, no workspace, under home, non-ASCII and control text."""

from __future__ import annotations

import io
import json
from pathlib import Path

from dsh.store.index import SessionIndex
from dsh.store.json_listing import json_listing
from dsh.store.log import SessionLog, append_event
from dsh.store.summary import JSON_KEYS
from dsh.store.workspace import workspace_partition


def test_sql_json_equals_the_python_summaries(tmp_path: Path, monkeypatch) -> None:
    home = str(tmp_path / "home")
    monkeypatch.setenv("HOME", home)
    root = tmp_path / "sessions"
    index = SessionIndex(tmp_path / "q.db", root, progress=io.StringIO())
    live = SessionLog.create(root, f"{home}/src/app")  # held open: live
    live.append("input", text="make test")
    crashed = SessionLog.create(root, "/srv/x")
    crashed.append("input", text='caf\u00e9 \u0085 \x1b[31m red \\ "quoted"')
    crashed.append("pane_opened", pane_id="p1", argv=["claude"])
    crashed.append("agent", pane_id="p1", kind="claude", session_id="0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11")
    crashed.append("git", branch="main")
    archived = SessionLog.create(root, home)
    archived.append("title", title="\u65e5\u672c\u8a9e")
    archived.close()
    append_event(archived.path, "archive", archived=True)
    nowhere = root / workspace_partition("/n") / "nocwd1.jsonl"
    nowhere.parent.mkdir(parents=True)
    nowhere.write_text(
        json.dumps({"type": "session", "version": 1, "id": "nocwd1", "created_at": "2026-01-01T00:00:00.000Z"}) + "\n"
    )
    crashed.close()
    # Closed cleanly above; make it look crashed by writing its log again without the close event.
    lines = crashed.path.read_text().splitlines()
    crashed.path.write_text("\n".join(line for line in lines if '"close"' not in line) + "\n")
    index.refresh()
    expected = {s.id: {**s.to_json(), "panes": []} for s in index.summaries(cwd=None, include_archived=True)}
    where, params = index.scope_where(None)
    got = index.read(
        lambda conn: list(
            json_listing(
                conn, where, params, include_archived=True, panes=lambda sid, live: None, raw_row=lambda path: None
            )
        )
    )
    assert len(got) == len(expected) == 4
    for text in got:
        assert text.isascii()
        data = json.loads(text)
        assert list(data) == [*JSON_KEYS, "panes"]
        assert data == expected[data["id"]], data["id"]
    states = {json.loads(t)["id"]: json.loads(t)["state"] for t in got}
    assert states[live.id] == "attached" and states[crashed.id] == "crashed" and states[archived.id] == "closed"
    assert json.loads(next(t for t in got if crashed.id in t))["agents"] == [
        {"kind": "claude", "session_id": "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"}
    ]
    live.close()
    index.close()


def _sqlite_json(row: dict[str, object]) -> tuple[str, list[object]]:
    """SQL that has SQLite write a listing row as the listing always has: json_object() of its values,
    strings quoted by SQLite, and the two lists (preview, agents) as Python's json.dumps writes them."""
    parts, params = [], []
    for key, value in row.items():
        if isinstance(value, bool):
            parts.append(f"?, json('{str(value).lower()}')")
            params.append(key)
        elif isinstance(value, list):
            parts.append("?, json(?)")
            params += [key, json.dumps(value)]
        else:
            parts.append("?, ?")
            params += [key, value]
    return f"json_object({', '.join(parts)})", params


def test_closed_rows_are_written_byte_for_byte_as_sqlite_wrote_them(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "sessions"
    index = SessionIndex(tmp_path / "q.db", root, progress=io.StringIO())
    controls = SessionLog.create(root, "/srv/x")
    controls.append("input", text='tab\there "quoted" back\\slash \x1b[31m del\x7f nl\n cr\r bell\x07 ff\x0c bs\x08 /')
    controls.append("pane_opened", pane_id="p1", argv=["claude"])
    controls.append("agent", pane_id="p1", kind="claude", session_id="0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11")
    controls.append("git", branch="feature/x")
    controls.set_title("title \x01 with a control")
    controls.close()
    typed = SessionLog.create(root, "/srv/y")  # only its preview is not ASCII
    typed.append("input", text="make")
    typed.append("input", text="echo caf\u00e9 \u2615")
    typed.set_title("coffee")
    typed.close()
    titled = SessionLog.create(root, str(tmp_path / "home" / "z"))  # a title that is not ASCII, under home
    titled.set_title("\u65e5\u672c\u8a9e")
    titled.close()
    index.refresh()
    where, where_params = index.scope_where(None)
    got = index.read(
        lambda conn: list(
            json_listing(
                conn, where, where_params, include_archived=True, panes=lambda s, live: None, raw_row=lambda p: None
            )
        )
    )
    assert len(got) == 3
    for summary, text in zip(index.summaries(), got, strict=True):
        sql, params = _sqlite_json({**summary.to_json(), "panes": []})
        (expected,) = index.read(lambda conn, sql=sql, params=params: conn.execute(f"SELECT {sql}", params).fetchone())
        if not expected.isascii():  # ASCII with JSON escapes, as json.dumps writes them
            expected = json.dumps(json.loads(expected))
        assert text == expected, summary.id
    assert '"preview":["make","echo caf\\u00e9 \\u2615"]' in got[1] and '"title":"coffee"' in got[1]
    index.close()


def test_panes_are_asked_only_of_sessions_with_a_saved_state(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "sessions"
    index = SessionIndex(tmp_path / "q.db", root, progress=io.StringIO())
    logs = []
    for name in ("plain", "saved"):
        log = SessionLog.create(root, f"/srv/{name}")
        log.append("input", text=name)
        log.close()
        logs.append(log)
    index.refresh()
    asked: list[str] = []

    def panes(session_id: str, live: bool) -> list[dict[str, object]] | None:
        asked.append(session_id)
        return [{"id": "p1", "title": "sh", "state": "RESTORED", "agent": None}]

    where, params = index.scope_where(None)
    got = index.read(
        lambda conn: list(
            json_listing(
                conn,
                where,
                params,
                include_archived=False,
                panes=panes,
                raw_row=lambda p: None,
                saved={logs[1].id},
            )
        )
    )
    assert asked == [logs[1].id]
    rows = {row["id"]: row for row in map(json.loads, got)}
    assert rows[logs[1].id]["panes"] == [{"id": "p1", "title": "sh", "state": "RESTORED", "agent": None}]
    assert rows[logs[0].id]["panes"] == []
    assert next(text for text in got if logs[0].id in text).endswith(',"panes":[]}')  # as stored
    index.close()


def test_a_row_gone_while_the_listing_runs_is_left_out(tmp_path: Path, monkeypatch) -> None:
    """Sessions dropped from the index while a listing's query still yields them (a refresh elsewhere:
    their logs removed) are left out, never a TypeError from a row that is not there."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "sessions"
    index = SessionIndex(tmp_path / "q.db", root, progress=io.StringIO())
    for name in ("a", "b", "c"):
        log = SessionLog.create(root, f"/srv/{name}")
        log.append("input", text=f"caf\u00e9 {name}")  # not ASCII: read again by its rowid
        log.close()
    index.refresh()
    where, where_params = index.scope_where(None)

    def listing(conn) -> list[str]:  # type: ignore[no-untyped-def]
        rows = json_listing(
            conn, where, where_params, include_archived=True, panes=lambda s, live: None, raw_row=lambda p: None
        )
        first = next(rows)
        conn.execute("DELETE FROM sessions WHERE json_extract(?, '$.id') != id", (first,))
        return [first, *rows]

    got = index.read(listing)
    assert len(got) == 1, got
    index.close()
