"""`dsh sessions --json` writes a session that is not live from its kept row while that still holds, and
writes exactly what working every pane out again from the files would write."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import time
import uuid
from pathlib import Path

import pytest

from dsh.cli.sessions import listing_json
from dsh.config import load_config
from dsh.persist import listing
from dsh.persist.records import AgentInfo
from dsh.persist.snapshot import state_dir, write_snapshot
from dsh.store.log import SessionLog, append_event
from dsh.store.store import Store
from tests.test_snapshot import pane, save_as_its_host, snapshot


def _session(dsh_home: Path, cwd: Path, title: str | None = None) -> str:
    log = SessionLog.create(dsh_home / "sessions", str(cwd))
    log.append("input", text="make")
    if title is not None:
        log.append("title", title=title)
    log.close()
    return log.id


def _listing() -> list[str]:
    store = Store(load_config())
    try:
        store.summaries(cwd=None)  # the refresh, as the command runs it
        return listing_json(store, None, include_archived=False)
    finally:
        store.close()


def _uncached(dsh_home: Path) -> list[str]:
    """The same listing with no index at all: every row and every pane worked out from the files."""
    for found in dsh_home.glob("session-query.db*"):
        found.unlink()
    return _listing()


def _agent_pane(pane_id: str, kind: str, sid: str, cwd: Path, transcript: Path | None = None):  # type: ignore[no-untyped-def]
    resume = ["claude", "--resume", sid] if kind == "claude" else ["codex", "resume", sid]
    info = AgentInfo(
        kind=kind, session_id=sid, resume_argv=resume, cwd=str(cwd), transcript=str(transcript) if transcript else None
    )
    return pane(pane_id, title=kind, argv=[kind], agent=info)


def _claude_transcript(home: Path, cwd: Path, sid: str) -> Path:
    path = home / ".claude" / "projects" / str(cwd).replace("/", "-") / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"type": "user", "cwd": str(cwd), "sessionId": sid, "message": {"content": "hi"}}) + "\n"
    )
    return path


def _codex_rollout(home: Path, cwd: Path, sid: str) -> Path:
    """As codex-cli 0.171.0 names and begins it (tests/test_agents_evidence.py's rollout)."""
    local = time.localtime()
    name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', local)}-{sid}.jsonl"
    path = home / ".codex" / "sessions" / time.strftime("%Y/%m/%d", local) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"type": "session_meta", "payload": {"id": sid, "session_id": sid, "cwd": str(cwd)}}
    path.write_text(json.dumps(meta) + "\n")
    return path


def _settle(home: Path) -> None:
    """Date every folder of the agent stores 10 s back: a store stamp trusts only folders that changed
    more than RACY_NS before it was taken."""
    past = time.time() - 10
    for folder, _, _ in os.walk(home):
        os.utime(folder, (past, past))


def _states(rows: list[str]) -> dict[str, list[tuple[str, str]]]:
    return {data["id"]: [(p["id"], p["state"]) for p in data["panes"]] for data in map(json.loads, rows)}


@pytest.fixture
def agents_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_kept_rows_list_what_the_files_say_after_snapshots_state_folders_and_transcripts_change(
    dsh_home: Path, tmp_path: Path, agents_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "wörk"  # a label that is not ASCII, and a title with DEL: json.dumps escapes both
    work.mkdir()
    names = "plain known appears vanishes rewritten removed codex".split()
    ids = {name: _session(dsh_home, work, title="café \x7f" if name == "plain" else None) for name in names}
    agent = {name: str(uuid.uuid4()) for name in ids}
    known = _claude_transcript(agents_home, work, agent["known"])
    vanishing = _claude_transcript(agents_home, work, agent["vanishes"])
    panes = {
        "plain": [pane(), pane("p2", lifecycle="exited", exit_status=0)],
        "known": [pane(), _agent_pane("p2", "claude", agent["known"], work, known)],
        "appears": [_agent_pane("p1", "claude", agent["appears"], work)],  # an id dsh gave, never prompted
        "vanishes": [_agent_pane("p1", "claude", agent["vanishes"], work, vanishing)],
        "rewritten": [pane(title="before")],
        "removed": [pane()],
        "codex": [_agent_pane("p1", "codex", agent["codex"], work)],
    }
    for name, sid in ids.items():
        write_snapshot(snapshot(panes[name], session_id=sid), {})
    (agents_home / ".codex" / "sessions").mkdir(parents=True)
    _settle(agents_home)

    worked: list[str] = []
    stock = listing.listed_states

    def counted(records, **kwargs):  # type: ignore[no-untyped-def]
        worked.append(records[0]["id"] + ":" + str(records[0]["agent"] and records[0]["agent"]["session_id"]))
        return stock(records, **kwargs)

    monkeypatch.setattr(listing, "listed_states", counted)
    first = _listing()
    assert len(worked) == len(ids)  # every row made and kept
    worked.clear()
    assert _listing() == first and worked == []  # every row from its kept row
    assert _uncached(dsh_home) == first
    by_id = _states(first)
    assert by_id[ids["known"]] == [("p1", "RESTORED"), ("p2", "RESUMABLE")]
    assert by_id[ids["appears"]] == [("p1", "RESTORED")]
    assert by_id[ids["vanishes"]] == [("p1", "RESUMABLE")]
    assert by_id[ids["codex"]] == [("p1", "RESTORED")]
    assert by_id[ids["plain"]] == [("p1", "RESTORED"), ("p2", "EXITED")]

    _listing()  # keep the rows again (the uncached listing began a new index)
    _claude_transcript(agents_home, work, agent["appears"])
    vanishing.unlink()
    save_as_its_host(snapshot([pane(title="after")], session_id=ids["rewritten"]))
    shutil.rmtree(state_dir(ids["removed"]))
    _codex_rollout(agents_home, work, agent["codex"])
    worked.clear()
    changed = _listing()
    # Only what changed was worked out again: the pane whose transcript the snapshot names was statted,
    # not searched for, when another transcript appeared in its folder.
    assert sorted(worked) == sorted(
        [f"p1:{agent['appears']}", f"p1:{agent['vanishes']}", "p1:None", f"p1:{agent['codex']}"]
    )
    assert _uncached(dsh_home) == changed
    by_id = _states(changed)
    assert by_id[ids["appears"]] == [("p1", "RESUMABLE")]
    assert by_id[ids["vanishes"]] == [("p1", "RESTORED")]
    assert by_id[ids["codex"]] == [("p1", "RESUMABLE")]
    assert by_id[ids["removed"]] == []
    assert [p["title"] for p in json.loads(next(r for r in changed if ids["rewritten"] in r))["panes"]] == ["after"]

    _listing()
    _settle(agents_home)  # the stores' folders changed just now: their stamps hold once they are older
    _listing()
    worked.clear()
    assert _listing() == changed and worked == []


def test_a_kept_row_is_not_used_for_a_session_whose_log_changed(dsh_home: Path, tmp_path: Path) -> None:
    sid = _session(dsh_home, tmp_path)
    write_snapshot(snapshot([pane()], session_id=sid), {})
    _listing()
    assert _listing()[0].endswith('"panes": [{"id": "p1", "title": "shell", "state": "RESTORED", "agent": null}]}')
    append_event(next((dsh_home / "sessions").rglob(f"{sid}.jsonl")), "title", title="renamed")
    rows = _listing()
    assert json.loads(rows[0])["explicit_title"] == "renamed"
    assert rows == _uncached(dsh_home)


def _kept_texts() -> dict[str, object]:
    store = Store(load_config())
    try:
        return store.index.read(lambda conn: dict(conn.execute("SELECT id, kept_text FROM sessions")))
    finally:
        store.close()


def test_a_live_session_lists_its_panes_live_and_is_never_kept(dsh_home: Path, tmp_path: Path) -> None:
    log = SessionLog.create(dsh_home / "sessions", str(tmp_path))  # held by this process: live
    try:
        log.append("input", text="make")
        write_snapshot(snapshot([pane(), pane("p2", lifecycle="exited", exit_status=0)], session_id=log.id), {})
        for _ in range(2):
            assert _states(_listing()) == {log.id: [("p1", "LIVE"), ("p2", "EXITED")]}
            assert _kept_texts() == {log.id: None}
    finally:
        log.close()
    assert _states(_listing()) == {log.id: [("p1", "RESTORED"), ("p2", "EXITED")]}
    assert _kept_texts()[log.id] is not None


def test_a_damaged_kept_row_is_worked_out_again(dsh_home: Path, tmp_path: Path, agents_home: Path) -> None:
    sid = _session(dsh_home, tmp_path)
    agent = str(uuid.uuid4())
    transcript = _claude_transcript(agents_home, tmp_path, agent)
    write_snapshot(snapshot([_agent_pane("p1", "claude", agent, tmp_path, transcript)], session_id=sid), {})
    first = _listing()
    for damage in ("not json", '[["file"]]', '[{"x": 1}]', "[7]"):
        store = Store(load_config())
        try:
            store.index.write(lambda conn, d=damage: conn.execute("UPDATE sessions SET kept_checks = ?", (d,)))
        finally:
            store.close()
        assert _listing() == first


def test_a_warm_listing_looks_at_no_kept_sessions_snapshot(
    dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log's key stands for the snapshot's: a kept row is written without a stat of the state folder
    (at 100,000 sessions that stat was 0.4-0.5 s of the listing)."""
    ids = [_session(dsh_home, tmp_path) for _ in range(3)]
    for sid in ids:
        write_snapshot(snapshot([pane()], session_id=sid), {})
    first = _listing()
    looked: list[str] = []
    for name in ("stat", "lstat"):
        stock = getattr(os, name)

        def counted(path, *args, stock=stock, **kwargs):  # type: ignore[no-untyped-def]
            if "/state/" in os.fspath(path):
                looked.append(os.fspath(path))
            return stock(path, *args, **kwargs)

        monkeypatch.setattr(os, name, counted)
    assert _listing() == first
    assert looked == []


@pytest.fixture
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("ENV", "")


def test_a_host_changes_the_log_before_its_first_snapshot_and_after_its_last(
    dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plain_shell: None
) -> None:
    """The rule the kept rows rest on, held by a real session: one resumed (a `resume` before any snapshot
    is written) and closed (its last snapshot before the `close`) lists its new panes, not the kept row."""
    from dsh.persist import snapshot as snapshot_module
    from dsh.persist.snapshot import SNAPSHOT_FILE, load_snapshot
    from dsh.session.session import Session

    async def run(resume: str | None, tabs: int) -> str:
        config = load_config()
        store = Store(config)
        if resume is None:
            log = store.create_session(str(tmp_path))
            loaded = None
        else:
            loaded = load_snapshot(resume)
            log = SessionLog.open_existing(next((dsh_home / "sessions").rglob(f"{resume}.jsonl")))
        session = Session(config=config, store=store, log=log, cwd=str(tmp_path), loaded=loaded)
        session.start()
        try:
            session.send_line("true")  # a session where nothing was done is archived, and not listed
            for _ in range(tabs):
                session.open_tab(None)
            await asyncio.sleep(0.3)  # time for the scheduler's thread to write the tabs
        finally:
            session.quit()
            await session.reap_panes(0.5)
            store.close()
        return log.id

    sid = asyncio.run(run(None, 0))
    first = _listing()
    assert _listing() == first and len(json.loads(first[0])["panes"]) == 1

    order: list[str] = []
    stock_write, stock_append = snapshot_module.atomic_write, SessionLog.append

    def write(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path).name == SNAPSHOT_FILE:
            order.append("snapshot")
        return stock_write(path, *args, **kwargs)

    def append(self, type, **fields):  # type: ignore[no-untyped-def]
        order.append(type)
        return stock_append(self, type, **fields)

    monkeypatch.setattr(snapshot_module, "atomic_write", write)
    monkeypatch.setattr(SessionLog, "append", append)
    asyncio.run(run(sid, 2))
    # The tabs' writes on the scheduler's thread may be coalesced into the flush at the quit: one or more.
    assert order[0] == "resume" and order[-1] == "close" and "snapshot" in order
    rows = _listing()
    assert [p["state"] for p in json.loads(rows[0])["panes"]] == ["RESTORED", "RESTORED", "RESTORED"]
    assert rows == _uncached(dsh_home)


def _forget_kept_rows() -> None:
    store = Store(load_config())
    try:
        store.index.write(lambda conn: conn.execute("UPDATE sessions SET kept_checks = NULL, kept_text = NULL"))
    finally:
        store.close()


def test_a_kept_row_shows_todays_title_and_label(
    dsh_home: Path, tmp_path: Path, agents_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept row is the whole row: a title changed in the index (as an agent's conversation retitles a
    session, its log unchanged) or a label under another home makes it be worked out again and kept anew,
    as the listing with nothing kept writes it."""
    work = agents_home / "src" / "wörk"
    work.mkdir(parents=True)
    ids = [_session(dsh_home, work) for _ in range(2)]
    for sid in ids:
        write_snapshot(snapshot([pane()], session_id=sid), {})
    first = _listing()
    assert {json.loads(row)["workspace_label"] for row in first} == {"~/src/wörk"}
    worked: list[str] = []
    stock = listing.listed_states

    def counted(records, **kwargs):  # type: ignore[no-untyped-def]
        worked.append(records[0]["id"])
        return stock(records, **kwargs)

    monkeypatch.setattr(listing, "listed_states", counted)
    store = Store(load_config())
    try:
        store.index.write(
            lambda conn: conn.execute("UPDATE sessions SET title = 'retitled \x7f' WHERE id = ?", (ids[0],))
        )
    finally:
        store.close()
    retitled = _listing()
    assert worked == ["p1"]
    assert {json.loads(row)["id"]: json.loads(row)["title"] for row in retitled}[ids[0]] == "retitled \x7f"
    assert "\x7f" not in "".join(retitled) and "\\u007f" in "".join(retitled)
    worked.clear()
    assert _listing() == retitled and worked == []  # kept anew
    _forget_kept_rows()
    assert _listing() == retitled

    monkeypatch.setenv("HOME", str(tmp_path))
    moved = _listing()
    assert {json.loads(row)["workspace_label"] for row in moved} == {"~/home/src/wörk"}
    assert moved == [row.replace("~/src/w\\u00f6rk", "~/home/src/w\\u00f6rk") for row in retitled]
    assert _listing() == moved
    _forget_kept_rows()
    assert _listing() == moved


class _Damaged:
    """A connection whose first full listing query fails after two rows, as a damaged page would."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.failed = False

    def execute(self, sql: str, params: object = ()) -> object:
        cursor = self.conn.execute(sql, params)  # type: ignore[arg-type]  # as json_listing passes them
        if self.failed or "ORDER BY" not in sql:
            return cursor
        self.failed = True

        def rows():  # type: ignore[no-untyped-def]  # the cursor's rows, then the damage
            for n, row in enumerate(cursor):
                if n == 2:
                    raise sqlite3.DatabaseError("database disk image is malformed")
                yield row

        return rows()


def test_a_streamed_listing_sends_the_same_rows_in_order_and_none_twice_on_a_retry(
    dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(5):
        _session(dsh_home, tmp_path, title=f"s{n}")
        time.sleep(0.002)  # distinct update times: newest first is one order
    listed = _listing()
    assert len(listed) == 5
    store = Store(load_config())
    try:
        store.summaries(cwd=None)
        sent: list[str] = []
        assert listing_json(store, None, include_archived=False, sink=sent.append) == []
        assert sent == listed
        # The index's read retries once after it finds the index damaged (store/index.py _retrying); the
        # listing then starts again from the top, and what was already sent is not sent again. (The
        # index is kept here, so the retry reads the same rows as the first try.)
        monkeypatch.setattr(store.index, "_recover", lambda exc: None)
        real_connect = store.index._connect
        damaged: list[_Damaged] = []

        def connect():  # type: ignore[no-untyped-def]  # the first connection asked for is damaged
            conn = real_connect()
            if damaged:
                return conn
            damaged.append(_Damaged(conn))
            return damaged[0]

        monkeypatch.setattr(store.index, "_connect", connect)
        sent = []
        listing_json(store, None, include_archived=False, sink=sent.append)
        assert damaged[0].failed
        assert sent == listed
    finally:
        store.close()
