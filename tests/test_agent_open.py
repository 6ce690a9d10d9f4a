"""Opening an agent conversation from /resume: the plan (directory, program, argv, tab or session), and
the transcript searcher the picker asks on its own thread."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dsh.resume.agent_open import parse_open_agent, plan_agent_open
from dsh.resume.preflight import PreflightError
from dsh.resume.transcripts import TranscriptSearcher
from dsh.store import textsearch
from dsh.store.index import SessionIndex

SID = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"


def which(name: str) -> str:
    return f"/opt/bin/{name}"


def test_a_conversation_of_this_workspace_opens_here_with_the_cli_on_path(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    plan = plan_agent_open(
        "claude", SID, str(tmp_path), str(tmp_path / ".claude"), current_cwd=str(tmp_path), env=env, which=which
    )
    assert plan.here and plan.cwd == str(tmp_path) and plan.argv == ["/opt/bin/claude", "--resume", SID]
    assert plan.key == f"claude:{SID}"


def test_another_directory_and_another_store_open_as_a_new_session(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    plan = plan_agent_open(
        "codex", SID, str(tmp_path), "/work/codex-home", current_cwd="/elsewhere", env=env, which=which
    )
    assert not plan.here
    assert plan.argv == ["env", "CODEX_HOME=/work/codex-home", "/opt/bin/codex", "resume", SID]
    plan = plan_agent_open(
        "opencode", "ses_abc123", str(tmp_path), "/d/opencode", current_cwd=None, env=env, which=which
    )
    assert plan.argv == ["env", "XDG_DATA_HOME=/d", "/opt/bin/opencode", "--session", "ses_abc123"]


@pytest.mark.parametrize(
    ("kind", "sid", "cwd", "found", "why"),
    [
        ("vim", SID, "/", which, "unknown agent"),
        ("claude", "../x", "/", which, "not a valid session id"),
        ("claude", SID, None, which, "no recorded directory"),
        ("claude", SID, "/no/such/dir", which, "is gone"),
        ("claude", SID, "/", lambda name: None, "claude is not on PATH"),
    ],
)
def test_what_cannot_be_opened_says_why(kind: str, sid: str, cwd: str | None, found, why: str) -> None:
    with pytest.raises(PreflightError, match=why):
        plan_agent_open(kind, sid, cwd, None, current_cwd="/", env={"HOME": "/h"}, which=found)


def test_open_agent_values() -> None:
    assert parse_open_agent(f"claude:{SID}") == ("claude", SID)
    for bad in ("claude", ":x", "claude:"):
        with pytest.raises(ValueError, match="KIND:ID"):
            parse_open_agent(bad)


def test_the_searcher_answers_the_newest_query_on_its_thread(tmp_path: Path) -> None:
    index = SessionIndex(tmp_path / "q.db", tmp_path / "sessions", progress=io.StringIO())

    def add(conn) -> None:
        textsearch.add_lines(conn, "s:abc", ["python -m http.server", "make test"])
        textsearch.sync(conn)

    index.write(add)
    index.close()
    searcher = TranscriptSearcher(tmp_path / "q.db", tmp_path / "sessions")
    got: list[tuple[str, dict[str, str], str]] = []
    done = threading.Event()

    def deliver(query: str, hits: dict[str, str]) -> None:
        got.append((query, hits, threading.current_thread().name))
        done.set()

    assert not searcher.ask("ht", deliver)  # too short for the trigram index: nothing asked
    assert searcher.ask("http.server", deliver)
    assert done.wait(10)
    assert got == [("http.server", {"s:abc": "python -m http.server"}, "dsh-transcripts")]
    searcher.close()


def test_a_conversation_live_anywhere_is_gone_to_never_opened_twice(tmp_path: Path) -> None:
    from dsh.resume.agent_open import held_elsewhere
    from dsh.store.log import SessionLog

    index = SessionIndex(tmp_path / "q.db", tmp_path / "sessions", progress=io.StringIO())
    log = SessionLog.create(tmp_path / "sessions", str(tmp_path))
    log.append("pane_opened", pane_id="p1", argv=["codex"])
    log.append("agent", pane_id="p1", kind="codex", session_id="th-held")
    log.close()
    index.refresh()
    assert held_elsewhere(index, "codex", "th-held") == log.id  # a dsh pane holds it: go to that session
    assert held_elsewhere(index, "claude", "c-free") is None

    # A claude started outside dsh on the conversation: refused, saying where it runs.
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    outside = subprocess.Popen(
        ["bash", "-c", f'exec -a claude {sys.executable} -c "import time; time.sleep(60)" --resume c-live'], env=env
    )
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/proc/{outside.pid}/cmdline").read_bytes().startswith(b"claude\0"):
            assert time.monotonic() < deadline, "the stand-in claude did not start"
            time.sleep(0.01)
        expected = rf"claude conversation c-live is running outside dsh \(pid {outside.pid}"
        with pytest.raises(PreflightError, match=expected):
            held_elsewhere(index, "claude", "c-live")
    finally:
        outside.kill()
        outside.wait()
    index.close()


def test_the_pane_holding_a_conversation_is_read_from_its_sessions_snapshot(
    dsh_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enter on a conversation another live session holds: its host is asked to focus that very pane
    before the attach (as /agents' Enter does)."""
    from dsh import hostquery
    from dsh.persist.snapshot import write_snapshot
    from dsh.resume import agent_open
    from tests.test_snapshot import agent_pane, pane, snapshot

    claude_id = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"
    write_snapshot(snapshot([pane(), agent_pane()], session_id="sess-held"), {})
    assert agent_open.holding_pane("sess-held", "claude", claude_id) == "p2"
    assert agent_open.holding_pane("sess-held", "codex", claude_id) is None
    assert agent_open.holding_pane("sess-none", "claude", claude_id) is None  # no snapshot
    asked: list[tuple[str, str]] = []
    monkeypatch.setattr(hostquery, "focus_in_host", lambda sid, pane_id: asked.append((sid, pane_id)) or True)
    assert agent_open.go_to_holder("sess-held", "claude", claude_id) == "p2"
    assert asked == [("sess-held", "p2")]
