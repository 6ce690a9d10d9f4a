"""A recheck records what it read (agents/lookups.py), and those checks hold exactly while that is unchanged."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

import pytest

from dsh.agents.evidence import conversation_state
from dsh.agents.lookups import RecheckReads, StoreStamps, checks_hold, still_hold
from dsh.agents.registry import adapter_by_kind

CLAUDE = adapter_by_kind("claude")
CODEX = adapter_by_kind("codex")


def _settle(folder: Path) -> None:
    past = time.time() - 10
    for found, _, _ in os.walk(folder):
        os.utime(found, (past, past))


def _transcript(home: Path, sid: str, *records: dict) -> Path:  # type: ignore[type-arg]
    path = home / "projects" / "-w" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _check(env: dict[str, str], sid: str, known: str | None = None) -> tuple[bool | None, list]:  # type: ignore[type-arg]
    looked = RecheckReads(StoreStamps(), {})
    assert CLAUDE is not None
    _, conversation = conversation_state(CLAUDE, sid, "/w", env, known=known, looked=looked)
    return conversation, looked.checks


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


def test_a_named_transcript_is_checked_by_its_stat_alone(env: dict[str, str], tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    path = _transcript(tmp_path / "claude", sid, {"type": "mode", "sessionId": sid})
    conversation, checks = _check(env, sid, known=str(path))
    assert conversation is False and [c[0] for c in checks] == ["file"]  # no store search, no stamp
    assert still_hold(checks, StoreStamps())
    with path.open("a") as out:  # the first prompt: the answer changes, and so does the stat
        out.write(json.dumps({"type": "user", "sessionId": sid, "cwd": "/w"}) + "\n")
    assert not still_hold(checks, StoreStamps())
    conversation, checks = _check(env, sid, known=str(path))
    assert conversation is True and still_hold(checks, StoreStamps())
    path.unlink()
    assert not still_hold(checks, StoreStamps())


def test_a_searched_store_is_checked_by_its_folders_mtimes(env: dict[str, str], tmp_path: Path) -> None:
    sid, other = str(uuid.uuid4()), str(uuid.uuid4())
    _transcript(tmp_path / "claude", other, {"type": "user", "sessionId": other})
    _settle(tmp_path / "claude")
    conversation, checks = _check(env, sid, known=str(tmp_path / "gone.jsonl"))
    assert conversation is False and [c[0] for c in checks] == ["file", "store"]
    assert still_hold(checks, StoreStamps())
    # The session's transcript appears in a folder that already held one: the folder's mtime moves.
    _transcript(tmp_path / "claude", sid, {"type": "user", "sessionId": sid})
    assert not still_hold(checks, StoreStamps())
    conversation, checks = _check(env, sid)
    assert conversation is True and [c[0] for c in checks] == ["store", "file"]
    # Just changed: a stamp is not taken until the folders are older than RACY_NS, so nothing holds yet.
    assert checks[0][4] is None and not still_hold(checks, StoreStamps())
    _settle(tmp_path / "claude")
    conversation, checks = _check(env, sid)
    assert still_hold(checks, StoreStamps())


def test_a_store_check_does_not_hold_for_another_store(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = str(uuid.uuid4())
    _settle(tmp_path / "claude")
    _, checks = _check(env, sid)
    assert still_hold(checks, StoreStamps())
    (tmp_path / "elsewhere" / "projects").mkdir(parents=True)
    _settle(tmp_path / "elsewhere")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))  # the listing runs with another store
    assert not still_hold(checks, StoreStamps())


def test_codex_stamps_cover_every_dated_folder_of_its_store(tmp_path: Path) -> None:
    assert CODEX is not None
    env = {"CODEX_HOME": str(tmp_path / "codex")}
    day = tmp_path / "codex" / "sessions" / "2026" / "11" / "29"
    day.mkdir(parents=True)
    _settle(tmp_path / "codex")
    before = StoreStamps().stamp(CODEX, env)
    assert before is not None
    (day / "rollout-2026-11-29T10-00-00-x.jsonl").write_text("{}\n")
    os.utime(day, (time.time() - 5, time.time() - 5))
    assert StoreStamps().stamp(CODEX, env) not in (None, before)
    assert day in CODEX.transcript_folders(env)


@pytest.mark.parametrize("name", ["plain", 'a "quote"', "back\\slash", "café", "del\x7f", "tab\t", "emoji\U0001f600"])
def test_checks_kept_as_text_hold_exactly_when_the_decoded_ones_do(tmp_path: Path, name: str) -> None:
    """checks_hold reads json.dumps's text of the one-transcript checks without decoding it; any path, a
    missing file, several checks and damaged text give what still_hold of the decoded checks gives."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text("{}\n")
    looked = RecheckReads(StoreStamps(), {})
    looked.file(str(path))
    looked.file(str(tmp_path / "never.jsonl"))
    one, missing, both = [looked.checks[0]], [looked.checks[1]], looked.checks
    for checks in (one, missing, both):
        assert checks_hold(json.dumps(checks), StoreStamps()) is still_hold(checks, StoreStamps()) is True
    with path.open("a") as out:
        out.write("{}\n")
    for checks, holds in ((one, False), (missing, True), (both, False)):
        assert checks_hold(json.dumps(checks), StoreStamps()) is still_hold(checks, StoreStamps()) is holds
    path.unlink()
    (tmp_path / "never.jsonl").write_text("")
    for checks in (one, missing, both):
        assert checks_hold(json.dumps(checks), StoreStamps()) is still_hold(checks, StoreStamps()) is False


@pytest.mark.parametrize(
    "text", ["not json", '[["file"]]', '[{"x": 1}]', "[7]", '[["file", "/x", [1, 2]]]', '[["file", "/x", [1, 2, 3]]] ']
)
def test_damaged_checks_text_does_not_hold(text: str) -> None:
    assert checks_hold(text, StoreStamps()) is False
