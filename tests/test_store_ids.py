"""Session ids and workspace partitions."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from dsh.layout.ids import is_valid_id
from dsh.persist.records import SnapshotError, validate_id
from dsh.store.ids import ID_PATTERN, InvalidSessionId, is_valid_session_id, new_session_id, validate_session_id
from dsh.store.workspace import NO_WORKSPACE, same_workspace, workspace_label, workspace_partition


def test_new_ids_are_valid_unique_and_start_with_utc_time() -> None:
    ids = {new_session_id() for _ in range(200)}
    assert len(ids) == 200
    for sid in ids:
        assert is_valid_session_id(sid)
        assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{6}", sid)


@pytest.mark.parametrize("good", ["a", "A1", "0", "abc_def-1", "x" * 64])
def test_valid_ids_pass(good: str) -> None:
    assert validate_session_id(good) == good


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("", "empty"),
        ("../etc", "path"),
        ("a/b", "path"),
        ("..", "path"),
        ("x" * 65, "longer than 64"),
        ("-abc", "start with"),
        ("_abc", "start with"),
        ("a b", "only letters"),
        ("a.jsonl", "only letters"),
        ("é", "start with"),
    ],
)
def test_invalid_ids_are_refused_with_a_reason(bad: str, words: str) -> None:
    assert not is_valid_session_id(bad)
    with pytest.raises(InvalidSessionId, match=words):
        validate_session_id(bad)


def test_invalid_session_id_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        validate_session_id(None)


def test_partitions_of_lookalike_paths_differ() -> None:
    a, b = workspace_partition("/a_b"), workspace_partition("/a-b")
    assert a != b
    assert a.startswith("a_b-") and b.startswith("a-b-")


def test_same_workspace_answers_as_the_partitions_do() -> None:
    cwds = ["/a_b", "/a-b", "/a_b/", "/x/" + "y" * 300, "/x/" + "y" * 301, "/", "/tmp/\x1b[31mred", "/tmp/[31mred"]
    for cwd in cwds:
        for other in cwds:
            assert same_workspace(cwd, other) is (workspace_partition(cwd) == workspace_partition(other))


def test_partition_is_a_safe_folder_name() -> None:
    for cwd in ["/", "/home/u/src/my proj", "/../..", "/x/" + "y" * 300, "/tmp/\x1b[31mred", "/.hidden"]:
        part = workspace_partition(cwd)
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", part), part
        assert len(part) <= 60
        assert workspace_partition(cwd) == part


def test_partition_keeps_the_end_of_a_long_path() -> None:
    assert "my-project" in workspace_partition("/very/" + "deep/" * 30 + "my-project")


def test_label_shortens_home_and_names_missing_workspace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    assert workspace_label("/home/u/src/x") == "~/src/x"
    assert workspace_label("/home/u") == "~"
    assert workspace_label("/home/user2/x") == "/home/user2/x"
    assert workspace_label(None) == NO_WORKSPACE
    assert os.path.expanduser("~") == "/home/u"


def test_one_pattern_shapes_every_id_read_back() -> None:
    """Session, pane and tab ids, as the store, the layout, a snapshot and a handoff check them: one
    pattern, written once (three copies of it had been kept in step by hand)."""
    root = Path(__file__).resolve().parent.parent / "dsh"
    written = [p for p in root.rglob("*.py") if ID_PATTERN.pattern in p.read_text()]
    assert [p.relative_to(root).as_posix() for p in written] == ["store/ids.py"]
    for word in ("p1", "a" * 64, "a" * 65, "-x", "x/y", "t_2-b"):
        shaped = re.fullmatch(ID_PATTERN, word) is not None
        assert is_valid_session_id(word) is shaped and is_valid_id(word) is shaped, word
        try:
            validate_id(word)
        except SnapshotError:
            assert not shaped, word
        else:
            assert shaped, word
