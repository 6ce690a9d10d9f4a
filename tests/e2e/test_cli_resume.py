"""End to end: `dsh --resume ID`, `dsh --continue`, the legacy ./.sessions lookup, and history per workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow


@pytest.fixture
def run(launch: Launch, dsh_env: dict[str, str]) -> Launch:
    def start(*args: str, cwd: Path) -> PtyDriver:
        return launch(*args, cwd=cwd, env=dsh_env, rows=30, cols=110)

    return start


def quit_session(d: PtyDriver, word: str) -> None:
    """Print `word` in the pane (typed so that the screen only shows it once it ran), then quit."""
    d.wait_for("PROMPT")
    half = len(word) // 2
    d.type_line(f"printf '%s%s\\n' {word[:half]} {word[half:]}")
    d.wait_for(word)
    d.type_line("/quit")
    d.wait_exit()


def test_continue_resumes_the_newest_session_here(run, dsh_home: Path, tmp_path: Path) -> None:
    quit_session(run(cwd=tmp_path), "first-session")
    quit_session(run(cwd=tmp_path), "second-session")
    d = run("--continue", cwd=tmp_path)
    screen = d.wait_for("resumed session")
    assert "second-session" in screen and "first-session" not in screen


def test_continue_with_no_session_here_says_so(run, tmp_path: Path) -> None:
    d = run("--continue", cwd=tmp_path)
    assert d.wait_exit() == 1
    assert "no session to continue" in d.text()


def test_unknown_and_malformed_ids(run, tmp_path: Path) -> None:
    d = run("--resume=nosuchsession", cwd=tmp_path)
    assert d.wait_exit() == 1
    assert "no session nosuchsession" in d.text()
    bad = run("--resume", "../../etc/passwd", cwd=tmp_path)
    assert bad.wait_exit() == 2
    assert "Traceback" not in bad.text() and "dsh:" in bad.text()


def test_resume_finds_a_legacy_dot_sessions_log(run, dsh_home: Path, tmp_path: Path) -> None:
    legacy = tmp_path / ".sessions"
    legacy.mkdir()
    header = {
        "type": "session",
        "version": 1,
        "id": "legacy-one",
        "cwd": str(tmp_path),
        "created_at": "2025-01-01T00:00:00.000Z",
        "dsh": "0.0.1",
    }
    (legacy / "legacy-one.jsonl").write_text(json.dumps(header) + "\n")
    d = run("--resume", "legacy-one", cwd=tmp_path)
    d.wait_for("resumed session legacy-one")
    d.type_line("/quit")
    d.wait_exit()
    lines = [json.loads(x) for x in (legacy / "legacy-one.jsonl").read_text().splitlines()]
    assert [e["type"] for e in lines][:2] == ["session", "resume"]


def test_prompt_history_is_this_workspaces_first_then_every_workspaces(run, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    quit_session(run(cwd=one), "typed-in-one")
    d = run(cwd=two)
    d.wait_for("PROMPT")
    d.type_line("echo typed-in-two")
    d.wait_for("typed-in-two\n")
    d.send("\x1b[A")  # Up: this workspace's line first
    d.wait_for("dsh› echo typed-in-two")
    d.send("\x1b[A\x1b[A")  # then the other workspace's, newest first: /quit, then the printf
    d.wait_for("dsh› printf '%s%s\\n' typed- in-one")
    d.send("\x15")
    d.type_line("/quit")
    d.wait_exit()
    e = run(cwd=one)
    e.wait_for("PROMPT")
    e.send("\x1b[A\x1b[A")  # /quit, then the printf: one's own lines before two's
    e.wait_for("dsh› printf '%s%s\\n' typed- in-one")


def test_resume_without_an_id_opens_the_picker(run, tmp_path: Path) -> None:
    quit_session(run(cwd=tmp_path), "picked-session")
    d = run("--resume", cwd=tmp_path)
    d.wait_for("This workspace")
    d.wait_for("printf")  # the earlier session, titled by its first input, once the index caught up
    d.send("\x1b[B\r")  # the newest row is this very session: move down to the earlier one
    d.wait_for("picked-session", timeout=20)
    d.wait_for("resumed session")


def test_resume_refuses_a_session_with_no_recorded_workspace(run, tmp_path: Path) -> None:
    legacy = tmp_path / ".sessions"
    legacy.mkdir()
    header = {"type": "session", "version": 1, "id": "nowhere", "created_at": "2025-01-01T00:00:00.000Z"}
    (legacy / "nowhere.jsonl").write_text(json.dumps(header) + "\n")
    d = run("--resume=nowhere", cwd=tmp_path)
    assert d.wait_exit() == 1
    assert "cannot resume nowhere: session has no recorded workspace" in d.text()


def test_a_session_where_nothing_was_done_is_archived_and_not_continued(run, dsh_cmd, dsh_env, tmp_path) -> None:
    import subprocess

    quit_session(run(cwd=tmp_path), "real-work")
    idle = run(cwd=tmp_path)
    idle.wait_for("PROMPT")
    idle.type_line("/quit")
    idle.wait_exit()
    listed = subprocess.run(
        [*dsh_cmd, "sessions", "--json"], cwd=tmp_path, env=dsh_env, capture_output=True, text=True, timeout=30
    )
    rows = json.loads(listed.stdout)
    assert len(rows) == 1 and rows[0]["title"].startswith("printf")
    archived = subprocess.run(
        [*dsh_cmd, "sessions", "--json", "--archived"],
        cwd=tmp_path,
        env=dsh_env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert len(json.loads(archived.stdout)) == 2  # hidden, never deleted
    d = run("--continue", cwd=tmp_path)
    d.wait_for("real-work")
