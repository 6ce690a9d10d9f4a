"""The index's change log: what every write since a listing changed, whichever process wrote it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from dsh.store import index_changes
from dsh.store.index import SessionIndex
from dsh.store.log import SessionLog


def conn() -> sqlite3.Connection:
    return sqlite3.connect(":memory:", isolation_level=None)


def test_an_index_that_never_numbered_a_write_is_at_0_and_has_nothing_since() -> None:
    c = conn()
    assert index_changes.generation(c) == 0
    assert index_changes.since(c, 0) == index_changes.Changes(0, [], False)


def test_every_write_after_a_generation_is_read_back_as_one_list_in_order() -> None:
    c = conn()
    index_changes.record(c, ["/s/a.jsonl"])
    listed_at = index_changes.generation(c)
    index_changes.record(c, ["/s/b.jsonl", "/s/a.jsonl"])
    index_changes.record(c, [], agents=True)
    index_changes.record(c, ["/s/c\udcff.jsonl"])  # a name that is not UTF-8 comes back as it was
    got = index_changes.since(c, listed_at)
    assert got == index_changes.Changes(4, ["/s/b.jsonl", "/s/a.jsonl", "/s/c\udcff.jsonl"], True)
    assert index_changes.since(c, 4) == index_changes.Changes(4, [], False)


def test_a_write_of_many_logs_or_writes_forgotten_mean_every_row_again() -> None:
    c = conn()
    index_changes.record(c, [f"/s/{n}.jsonl" for n in range(index_changes.PATHS_KEPT + 1)])
    assert index_changes.since(c, 0).paths is None
    for n in range(index_changes.KEPT + 5):
        index_changes.record(c, [f"/s/{n}.jsonl"])
    assert c.execute("SELECT count(*) FROM changes").fetchone()[0] == index_changes.KEPT
    assert index_changes.since(c, 2).paths is None  # writes 3 to 6 were forgotten
    newest = index_changes.generation(c)
    assert index_changes.since(c, newest - 2).paths == [
        f"/s/{n}.jsonl" for n in (index_changes.KEPT + 3, index_changes.KEPT + 4)
    ]


def test_a_listing_read_at_a_number_the_index_never_reached_is_told_nothing_is_known() -> None:
    # The index was removed and built again: it numbers from 1 again.
    c = conn()
    index_changes.record(c, ["/s/a.jsonl"])
    assert index_changes.since(c, 40).paths is None
    assert index_changes.since(conn(), 40).paths is None


def test_a_refresh_numbers_its_write_and_names_the_logs_it_indexed(
    root: Path, index: SessionIndex, tmp_path: Path
) -> None:
    first = SessionLog.create(root, "/w/a")
    first.close()
    index.refresh()
    at = index.generation()
    assert at > 0
    index.refresh()  # nothing changed: nothing written, nothing numbered
    assert index.generation() == at
    second = SessionLog.create(root, "/w/b")
    second.close()
    other = SessionIndex(tmp_path / "session-query.db", root)  # another process's refresh
    other.refresh()
    other.close()
    assert index.changes_since(at).paths == [str(second.path)]
