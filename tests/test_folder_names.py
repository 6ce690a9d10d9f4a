"""A folder's names come from the index while the folder's mtime holds, and are exactly what listing the
folder gives (store/folder_names.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from dsh.store import folder_names
from dsh.store.index import SessionIndex


def _age(folder: Path, seconds: float = 10) -> None:
    past = time.time() - seconds
    os.utime(folder, (past, past))


@pytest.fixture
def index(tmp_path: Path):  # type: ignore[no-untyped-def]
    found = SessionIndex(tmp_path / "session-query.db", tmp_path / "sessions")
    yield found
    found.close()


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    stock = os.listdir

    def counted(path):  # type: ignore[no-untyped-def]
        seen.append(os.fspath(path))
        return stock(path)

    monkeypatch.setattr(os, "listdir", counted)
    return seen


def test_names_are_listed_once_then_read_from_the_index_until_the_folder_changes(
    index: SessionIndex, tmp_path: Path, listings: list[str]
) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    odd = os.fsdecode(b"not-utf8-\xff")
    for name in ("a", "b c", "line\nbreak", odd):
        (folder / name).mkdir()
    _age(folder)
    want = {"a", "b c", "line\nbreak", odd}
    assert folder_names.names(index, str(folder)) == want and len(listings) == 1
    assert folder_names.names(index, str(folder)) == want and len(listings) == 1
    (folder / "a").rmdir()
    (folder / "d").mkdir()
    assert folder_names.names(index, str(folder)) == want - {"a"} | {"d"} and len(listings) == 2
    # Changed just now: not trusted, so listed again until it is older than RACY_NS.
    assert folder_names.names(index, str(folder)) == want - {"a"} | {"d"} and len(listings) == 3
    _age(folder)
    folder_names.names(index, str(folder))
    assert folder_names.names(index, str(folder)) == want - {"a"} | {"d"} and len(listings) == 4


def test_an_empty_or_missing_folder_has_no_names(index: SessionIndex, tmp_path: Path, listings: list[str]) -> None:
    folder = tmp_path / "state"
    assert folder_names.names(index, str(folder)) == set()
    folder.mkdir()
    _age(folder)
    assert folder_names.names(index, str(folder)) == set() == folder_names.names(index, str(folder))
    assert len(listings) == 1
