"""`dsh sessions --agents [--all] [--json]`: the agent conversations /resume lists, headlessly."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from dsh.store.log import SessionLog

FAKES = Path(__file__).resolve().parent / "fakes" / "bin"


@pytest.fixture
def env(dsh_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    out = {**dsh_env, "HOME": str(home), "PATH": f"{FAKES}{os.pathsep}{dsh_env['PATH']}"}
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME"):
        out.pop(name, None)
    return out


def agent(argv: list[str], cwd: Path, env: dict[str, str], *lines: str) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=env, input="".join(f"{x}\n" for x in lines), capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[2]


def sessions(dsh_cmd: list[str], env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*dsh_cmd, "sessions", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_agents_of_this_directory_and_of_every_one(dsh_cmd: list[str], env: dict[str, str], tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    mine = agent(["claude"], here, env, "fix the flaky test")
    theirs = agent(["codex"], there, env, "write the changelog")
    got = sessions(dsh_cmd, env, here, "--agents")
    assert got.returncode == 0 and got.stderr == "", got.stderr
    lines = got.stdout.splitlines()
    assert lines[0].split() == ["KIND", "ID", "AGE", "MSGS", "TITLE"]
    assert len(lines) == 2 and lines[1].split()[:2] == ["claude", mine] and "fix the flaky test" in lines[1]
    got = sessions(dsh_cmd, env, here, "--agents", "--all", "--json")
    rows = json.loads(got.stdout)
    assert [(r["kind"], r["id"]) for r in rows] == [("codex", theirs), ("claude", mine)]
    assert rows[0]["cwd"] == str(there) and rows[0]["title"] == "write the changelog"
    assert rows[0]["resume_argv"] == ["codex", "resume", theirs] and rows[1]["message_count"] == 2
    assert rows[0]["open_in"] is None


def test_a_source_switched_off_is_not_listed(dsh_cmd: list[str], env: dict[str, str], tmp_path: Path) -> None:
    agent(["claude"], tmp_path, env, "hello")
    got = sessions(dsh_cmd, env, tmp_path, "--agents", "-o", "resume.agents.claude=false")
    assert got.stdout == "" and "no agent conversations" in got.stderr


def test_a_conversation_open_in_a_dsh_pane_is_that_sessions_row(
    dsh_cmd: list[str], env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    sid = agent(["claude"], tmp_path, env, "in a pane")
    log = SessionLog.create(dsh_home / "sessions", str(tmp_path))
    log.append("input", text="/agent claude")
    log.append("pane_opened", pane_id="p1", argv=["claude"])
    log.append("agent", pane_id="p1", kind="claude", session_id=sid)
    log.close()
    # `--agents` lists it, saying which session holds it (it once said "no agent conversations").
    (listed,) = json.loads(sessions(dsh_cmd, env, tmp_path, "--agents", "--all", "--json").stdout)
    assert (listed["kind"], listed["id"], listed["open_in"]) == ("claude", sid, log.id)
    table = sessions(dsh_cmd, env | {"COLUMNS": "200"}, tmp_path, "--agents").stdout
    assert f"in a pane (open in dsh session {log.id})" in table
    (row,) = json.loads(sessions(dsh_cmd, env, tmp_path, "--json").stdout)
    # Its title is the conversation's, since the session was given none and typed nothing worth one.
    assert row["title"] == "in a pane" and row["agents"] == [{"kind": "claude", "session_id": sid}]
    assert row["state"] == "closed"


def test_a_session_listing_follows_its_agents_retitle_reading_only_theirs(
    dsh_cmd: list[str], env: dict[str, str], dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = agent(["claude"], tmp_path, env, "first words")
    agent(["claude"], tmp_path, env, "another conversation, in no session")
    log = SessionLog.create(dsh_home / "sessions", str(tmp_path))
    log.append("pane_opened", pane_id="p1", argv=["claude"])
    log.append("agent", pane_id="p1", kind="claude", session_id=sid)
    log.close()
    (row,) = json.loads(sessions(dsh_cmd, env, tmp_path, "--json").stdout)
    assert row["title"] == "first words"
    agent(["claude", "--resume", sid], tmp_path, env, "/rename the ocelot work")
    (row,) = json.loads(sessions(dsh_cmd, env, tmp_path, "--json").stdout)
    assert row["title"] == "the ocelot work"

    # In process: the listing's refresh stats this session's transcript only, not every one in the store.
    from dsh.agents.conversations import refresh
    from dsh.cli import main

    seen: list[str] = []
    real = refresh._scan
    monkeypatch.setattr(refresh, "_scan", lambda *a, **k: seen.append("scan") or real(*a, **k))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    assert main(["sessions", "--json"]) == 0
    assert seen == []
    assert main(["sessions", "--agents", "--json"]) == 0
    assert seen == ["scan", "scan"]  # --agents lists every conversation: both stores looked through
