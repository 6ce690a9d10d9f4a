"""The titles' own table (store/title_search.py): the same answer as the LIKE over every row it replaces,
kept in step by its triggers through every write, made on an index made before it, and not needed."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest
from test_index_listing import make, plans

from dsh.store import agent_table, title_search
from dsh.store.index import SessionIndex, like_subsequence
from dsh.store.log import SessionLog, append_event


def like_ids(index: SessionIndex, terms: list[str], limit: int = 100) -> list[int]:
    """What `matching_ids` answered before the table: a LIKE over the sessions' own rows."""
    text = "(title || ' ' || coalesce(first_input, ''))"
    where = " AND ".join(["root = ?", "archived = 0", *(f"{text} LIKE ? ESCAPE '\\'" for _ in terms)])
    sql = f"SELECT rowid FROM sessions WHERE {where} ORDER BY updated_at DESC, mtime_ns DESC, id DESC LIMIT {limit}"
    conn = index._connect()
    return [row[0] for row in conn.execute(sql, [index._root_db, *map(like_subsequence, terms)])]


def table_rows(index: SessionIndex) -> list[tuple[object, int, str]]:
    """The table's rows (a text made of bytes that are not UTF-8 read back as they were stored)."""
    conn = index._connect()
    sql = f"SELECT path, rid, CAST(text AS BLOB) FROM {title_search.TABLE} ORDER BY rid"
    return [(path, rid, bytes(text).decode("utf-8", "surrogateescape")) for path, rid, text in conn.execute(sql)]


TEXTS = [
    "Make Target2 now",
    "fix the [flaky] test*",
    "100% done_ok?",
    "ÉCOLE élève naïve",
    "a_b c%d e*f g?h [i]",
    "flamingo checkout race",
    "FLAMINGO Checkout",
]
QUERIES = [
    ["target"],
    ["TGT2"],
    ["[flaky]"],
    ["*"],
    ["?"],
    ["%"],
    ["_"],
    ["a_b"],
    ["c%d"],
    ["[i]"],
    ["école"],
    ["ÉCOLE"],
    ["élève"],
    ["flamc"],
    ["flamingoc"],
    ["fla", "race"],
    ["checkout", "FLAMINGO"],
    ["zzz"],
]


def test_it_answers_as_the_like_over_every_row_did(index: SessionIndex, root: Path) -> None:
    for n, text in enumerate(TEXTS):
        make(root, f"/w{n}", text)
    index.refresh()
    for terms in QUERIES:
        assert index.matching_ids(terms, 100) == like_ids(index, terms), terms
    assert [s.first_input for s in index.matching(["flamingoc"], 100)] == [
        "FLAMINGO Checkout",
        "flamingo checkout race",
    ]
    assert len(index.matching(["fla"], 1)) == 1  # the limit holds, newest first
    assert index.matching_ids(["fla"], 1) == like_ids(index, ["fla"], 1)


def like_wide_ids(index: SessionIndex, terms: list[str], limit: int = 1001) -> list[int]:
    """What `matching_ids(wide=True)` answered before the table: a LIKE over SEARCH_INDEX."""
    from dsh.store.index import WIDE_TEXT

    where = " AND ".join(["root = ?", "archived = 0", *(f"{WIDE_TEXT} LIKE ? ESCAPE '\\'" for _ in terms)])
    sql = f"SELECT rowid FROM sessions WHERE {where} ORDER BY updated_at DESC, mtime_ns DESC, id DESC LIMIT {limit}"
    conn = index._connect()
    return [row[0] for row in conn.execute(sql, [index._root_db, *map(like_subsequence, terms)])]


def test_its_wide_search_answers_as_the_like_over_every_rows_whole_text(index: SessionIndex, root: Path) -> None:
    for n, text in enumerate(TEXTS):
        make(root, f"/Work{n}/Proj_%", text)
    make(root, "/untitled", "")
    index.refresh()
    for terms in [*QUERIES, ["work3"], ["proj_%"], ["untitled"], ["no workspace"], ["~"], ["wkpj"]]:
        assert index.matching_ids(terms, 1001, wide=True) == like_wide_ids(index, terms), terms
    assert len(index.matching_ids(["w"], 2, wide=True)) == 2


def test_the_pickers_search_reads_the_titles_table_alone(index: SessionIndex, root: Path) -> None:
    for i in range(3):
        make(root, f"/w{i}", f"make target{i}")
    index.refresh()
    found = plans(index, lambda: index.matching_ids(["target"], 100))
    assert any(f"COVERING INDEX {title_search.TABLE}_order" in step for step in found)
    assert not any("sessions" in step.split() for step in found)


def test_every_write_of_a_session_keeps_its_row_right(index: SessionIndex, root: Path) -> None:
    kept = make(root, "/kept", "ocelot first")
    grown = make(root, "/grown", "plain start")
    gone = make(root, "/gone", "ocelot doomed")
    archived = make(root, "/archived", "ocelot hidden")
    index.refresh()
    assert len(table_rows(index)) == 4
    # A log that grew (its row replaced), a title set, a log removed, a session archived.
    append_event(grown.path, "input", text="later line")
    append_event(kept.path, "title", title="Quasar renamed")
    gone.path.unlink()
    append_event(archived.path, "archive", archived=True)
    index.refresh()
    rows = table_rows(index)
    conn = index._connect()
    listed = "SELECT path, rowid, lower(title || ' ' || coalesce(first_input, '')) FROM sessions WHERE archived = 0"
    # One row per listed session, at its current rowid, with its current text.
    assert sorted(rows) == sorted(conn.execute(listed).fetchall())
    assert sorted(text for _, _, text in rows) == ["plain start plain start", "quasar renamed ocelot first"]
    live = {path: rid for path, rid, _ in rows}
    assert index.matching_ids(["ocelot"], 100) == like_ids(index, ["ocelot"]) == [live[str(kept.path)]]
    assert [s.title for s in index.matching(["quasar"], 100)] == ["Quasar renamed"]
    # Brought back from the archive: listed and searched again.
    append_event(archived.path, "archive", archived=False)
    index.refresh()
    assert [s.first_input for s in index.matching(["hidden"], 100)] == ["ocelot hidden"]


def test_an_index_made_before_the_table_gets_it_filled_when_opened(tmp_path: Path, root: Path) -> None:
    db = tmp_path / "made-before.db"
    first = SessionIndex(db, root, progress=io.StringIO())
    make(root, "/w", "flamingo checkout")
    make(root, "/v", "archived one")
    first.refresh()
    first.close()
    conn = sqlite3.connect(db)
    conn.execute(f"DROP TABLE {title_search.TABLE}")  # its index and the triggers go with the tables they are on
    for kind in ("insert", "update", "delete"):
        conn.execute(f"DROP TRIGGER IF EXISTS {title_search.TABLE}_{kind}")
    conn.commit()
    conn.close()
    # Made before: the first form of the table, without its whole text (nor that index).
    again = SessionIndex(db, root, progress=io.StringIO())
    again.count()
    again.close()
    conn = sqlite3.connect(db)
    conn.execute(f"DROP INDEX {title_search.TABLE}_wide")
    conn.execute(f"ALTER TABLE {title_search.TABLE} DROP COLUMN wide")
    conn.commit()
    conn.close()
    again = SessionIndex(db, root, progress=io.StringIO())
    assert [s.first_input for s in again.matching(["flamc"], 100)] == ["flamingo checkout"]
    assert title_search.present(again._connect())
    assert len(table_rows(again)) == 2
    make(root, "/u", "flamingo later")  # the triggers came back with it
    again.refresh()
    assert [s.first_input for s in again.matching(["flamingo"], 100)] == ["flamingo later", "flamingo checkout"]
    again.close()


def test_a_read_only_index_made_before_the_table_is_searched_the_slower_way(tmp_path: Path, root: Path) -> None:
    db = tmp_path / "read-only.db"
    first = SessionIndex(db, root, progress=io.StringIO())
    make(root, "/w", "flamingo checkout")
    first.refresh()
    first.close()
    reader = SessionIndex(db, root, progress=io.StringIO())
    conn = reader._connect()
    conn.execute(f"DROP TABLE {title_search.TABLE}")  # an index made before it, opened where it cannot write:
    conn.execute("PRAGMA query_only = ON")
    reader._ensure_search_index(conn)
    assert not title_search.present(conn)
    assert [s.first_input for s in reader.matching(["flamc"], 100)] == ["flamingo checkout"]
    assert not reader.warnings()
    reader.close()


def test_a_log_whose_path_is_not_utf8_is_found_and_kept(index: SessionIndex, root: Path, tmp_path: Path) -> None:
    log = SessionLog.create(root, "/w/caf\udce9")
    log.append("input", text="bytes \udcff typed")
    log.close()
    index.refresh()
    assert [s.id for s in index.matching(["typed"], 100)] == [log.id]
    append_event(log.path, "title", title="Renamed bytes")
    index.refresh()
    assert [s.title for s in index.matching(["renamed"], 100)] == ["Renamed bytes"]
    assert len(table_rows(index)) == 1


def conversation(n: int, title: str, prompt: str | None, updated: str) -> agent_table.ConversationRow:
    return agent_table.ConversationRow(
        f"/agents/{n}.jsonl", "claude", 1, 1, 1, "claude", f"id{n}", f"claude:id{n}", "/w", title, prompt,
        None, None, 1, 1, None, updated, updated, None,
    )  # fmt: skip


def test_the_conversations_first_search_reads_their_covering_index(index: SessionIndex) -> None:
    texts = [("Flamingo checkout", None), ("x", "fix the [flaky] test*"), ("other", "flam race"), ("zz", "a_b%")]
    rows = [conversation(n, t, p, f"2026-11-0{n + 1}T00:00:00Z") for n, (t, p) in enumerate(texts)]
    index.write(lambda conn: agent_table.upsert(conn, rows))
    conn = index._connect()
    slow = (
        f"SELECT {', '.join(agent_table.COLUMNS)} FROM agent_conversations NOT INDEXED WHERE {{}}"
        " ORDER BY updated_at DESC, id DESC LIMIT 100"
    )
    text = "(title || ' ' || coalesce(first_prompt, ''))"
    for terms in (["flam"], ["FLAMC"], ["[flaky]"], ["_"], ["%"], ["flam", "race"], ["nothing"]):
        like = [like_subsequence(t) for t in terms]
        where = " AND ".join(f"{text} LIKE ? ESCAPE '\\'" for _ in like)
        expected = [agent_table.ConversationRow(*row) for row in conn.execute(slow.format(where), like)]
        assert agent_table.conversations(conn, like=like, limit=100) == expected, terms
    assert [row.title for row in agent_table.conversations(conn, like=["%fla%"], limit=1)] == ["other"]
    found = plans(index, lambda: agent_table.conversations(conn, like=["%fla%"], limit=100))
    assert any("COVERING INDEX agent_search" in step for step in found)


def test_a_write_of_many_sessions_makes_the_table_again_after_them(
    index: SessionIndex, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More sessions written at once than BULK_ROWS (a first build): the table is dropped, the rows are
    written without its triggers (64 us a row) and it is made again whole, triggers and all."""
    fired: list[str] = []
    real_drop = title_search.drop
    monkeypatch.setattr(title_search, "BULK_ROWS", 2)
    monkeypatch.setattr(title_search, "drop", lambda conn: (fired.append("drop"), real_drop(conn)))
    for n in range(4):
        make(root, f"/w{n}", f"bulk line {n}")
    index.refresh()
    assert fired  # dropped and made again
    conn = index._connect()
    listed = "SELECT path, rowid, lower(title || ' ' || coalesce(first_input, '')) FROM sessions WHERE archived = 0"
    assert sorted(table_rows(index)) == sorted(conn.execute(listed).fetchall()) and len(table_rows(index)) == 4
    assert title_search.present(conn)
    fired.clear()
    log = make(root, "/w9", "one more")  # one row: through the triggers
    index.refresh()
    assert not fired and [s.id for s in index.matching(["one more"], 10)] == [log.id]
