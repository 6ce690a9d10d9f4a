"""The transcript search keeps an owner's lines a row per refresh and still answers line by line: every
term on one line, the newest such line, case-insensitively; a newline typed inside a line is a space."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from dsh.store import textsearch
from dsh.store.textsearch import Hit


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(":memory:", isolation_level=None)
    for statement in textsearch.STATEMENTS:
        db.execute(statement)
    yield db
    db.close()


def search(conn: sqlite3.Connection, query: str, **kwargs: object) -> list[Hit]:
    textsearch.sync(conn)
    return textsearch.search(conn, query, **kwargs)  # type: ignore[arg-type]


def test_a_refresh_stores_one_row_per_owner(conn: sqlite3.Connection) -> None:
    textsearch.add_owned_lines(conn, [("s:a", ["make test", "git push"]), ("s:b", ["ls", ""]), ("s:c", [])])
    rows = conn.execute("SELECT owner, text FROM lines ORDER BY id").fetchall()
    assert rows == [("s:a", "make test\ngit push"), ("s:b", "ls")]


def test_the_hit_is_the_newest_line_holding_every_term(conn: sqlite3.Connection) -> None:
    textsearch.add_lines(conn, "s:a", ["docker compose build", "vim notes", "DOCKER COMPOSE logs -f", "ls"])
    assert search(conn, "compose docker") == [Hit("s:a", "DOCKER COMPOSE logs -f")]
    assert search(conn, "Compose BUILD") == [Hit("s:a", "docker compose build")]


def test_terms_on_two_lines_do_not_match(conn: sqlite3.Connection) -> None:
    textsearch.add_lines(conn, "s:a", ["python -m http.server", "curl localhost"])
    assert search(conn, "http.server curl") == []
    textsearch.add_lines(conn, "s:b", ["curl http.server"])
    assert search(conn, "http.server curl") == [Hit("s:b", "curl http.server")]


def test_a_newer_refresh_of_an_owner_wins_and_owners_come_newest_first(conn: sqlite3.Connection) -> None:
    textsearch.add_lines(conn, "s:a", ["pytest -x old"])
    textsearch.add_lines(conn, "s:b", ["pytest -k other"])
    textsearch.add_lines(conn, "s:a", ["pytest -x new"])
    assert search(conn, "pytest") == [Hit("s:a", "pytest -x new"), Hit("s:b", "pytest -k other")]
    assert search(conn, "pytest", limit=1) == [Hit("s:a", "pytest -x new")]
    assert search(conn, "pytest", owners=["s:b"]) == [Hit("s:b", "pytest -k other")]


def test_a_newline_typed_inside_a_line_is_a_space(conn: sqlite3.Connection) -> None:
    textsearch.add_lines(conn, "s:a", ["for f in *; do\necho $f; done", "make"])
    assert search(conn, "echo") == [Hit("s:a", "for f in *; do echo $f; done")]


def test_replacing_and_removing_an_owners_lines(conn: sqlite3.Connection) -> None:
    # The replaced rows were the newest: the new one must not reuse an id already counted as indexed.
    textsearch.add_lines(conn, "s:a", ["make release"])
    textsearch.add_lines(conn, "s:a", ["make docs"])
    textsearch.sync(conn)
    textsearch.replace_lines(conn, "s:a", ["cargo build"])
    assert search(conn, "make") == [] and search(conn, "cargo") == [Hit("s:a", "cargo build")]
    assert textsearch.owners_with_lines(conn, ["s:a", "s:zzz"]) == {"s:a"}
    textsearch.remove_owner(conn, "s:a")
    assert search(conn, "cargo") == [] and textsearch.owners_with_lines(conn, ["s:a"]) == set()


def test_text_that_is_not_utf8_is_searchable_around_its_bytes(conn: sqlite3.Connection) -> None:
    textsearch.add_lines(conn, "s:a", ["echo caf\udce9 latte", "make"])
    assert search(conn, "latte") == [Hit("s:a", "echo caf\ufffd latte")]
