"""End to end: agent conversations of every project in /resume, opened in a dsh pane in their directory;
a store this dsh cannot read is one line; the transcript search; titles the status line and listing share."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hooks_argv import without_hooks
from tests.e2e.hosts import host_pid
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

FAKES = Path(__file__).resolve().parent.parent / "fakes" / "bin"


@pytest.fixture
def agent_env(dsh_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    env = dict(dsh_env)
    env["PATH"] = f"{FAKES}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(tmp_path / "home")
    env["FAKE_AGENT_LOG"] = str(tmp_path / "agent-invocations.jsonl")
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("CODEX_HOME", None)
    (tmp_path / "home").mkdir()
    return env


@pytest.fixture
def run(launch: Launch) -> Launch:
    def start(*args: str, cwd: Path, env: dict[str, str], rows: int = 32, cols: int = 120) -> PtyDriver:
        return launch(*args, cwd=cwd, env=env, rows=rows, cols=cols)

    return start


def agent(argv: list[str], cwd: Path, env: dict[str, str], lines: list[str]) -> str:
    """Run a fake agent CLI as a person would outside dsh; its conversation id."""
    done = subprocess.run(
        argv, cwd=cwd, env=env, input="".join(f"{x}\n" for x in lines), capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[2]


def invocations(env: dict[str, str]) -> list[dict]:
    path = Path(env["FAKE_AGENT_LOG"])
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def test_agent_conversations_of_other_projects_open_in_a_dsh_pane(run, agent_env, tmp_path: Path) -> None:
    webapp, api, here = tmp_path / "webapp", tmp_path / "api-server", tmp_path / "here"
    for folder in (webapp, api, here):
        folder.mkdir()
    claude_id = agent(["claude"], webapp, agent_env, ["fix the checkout rounding bug"])
    codex_id = agent(["codex"], api, agent_env, ["add rate limiting to the login endpoint"])
    d = run(cwd=here, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/resume")
    d.wait_for("This workspace")
    d.send("\t")
    screen = d.wait_for("fix the checkout rounding bug", timeout=20)
    assert "add rate limiting to the login endpoint" in screen
    assert "claude" in screen and "codex" in screen and "~" not in screen.split("webapp")[0][-3:]
    d.send("checkout")
    d.wait_for("webapp")
    d.send("\r")
    # A new dsh session in the conversation's directory, its pane running the agent's own resume.
    d.wait_for(f"fake-claude resumed {claude_id}", timeout=20)
    resumed = [r for r in invocations(agent_env) if r["agent"] == "claude"][-1]
    assert without_hooks(resumed["argv"]) == [str(FAKES / "claude"), "--resume", claude_id]
    assert resumed["cwd"] == str(webapp)
    assert os.readlink(f"/proc/{d.pid}/cwd") == str(webapp)
    d.wait_for(f"opened claude --resume {claude_id} in")
    assert codex_id


def test_a_conversation_of_this_workspace_opens_in_a_new_tab(run, agent_env, tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    codex_id = agent(["codex"], here, agent_env, ["write the migration script"])
    d = run(cwd=here, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/resume")
    d.wait_for("write the migration script", timeout=20)
    d.send("migration\r")
    d.wait_for(f"fake-codex resumed {codex_id}", timeout=20)
    screen = d.wait_for("new tab")
    assert "1:" in screen  # a second tab in the same session
    assert os.readlink(f"/proc/{d.pid}/cwd") == str(here)


def test_a_corrupt_agent_store_is_one_line_in_the_picker(run, agent_env, tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    agent(["claude"], here, agent_env, ["a readable conversation"])
    broken = Path(agent_env["HOME"]) / ".claude" / "projects" / "-broken"
    broken.mkdir(parents=True)
    (broken / "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11.jsonl").write_bytes(b"\x00\x01 not a transcript\n" * 20)
    d = run(cwd=here, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/resume")
    screen = d.wait_for("in a format this dsh does not know", timeout=20)
    assert screen.count("format this dsh does not know") == 1
    d.wait_for("a readable conversation")
    d.send("\x1b")
    d.wait_for("PROMPT")
    d.type_line("echo still-fine")
    d.wait_for("still-fine")


def test_transcript_search_finds_a_line_typed_in_a_session(run, agent_env, tmp_path: Path) -> None:
    old, here = tmp_path / "old-project", tmp_path / "here"
    old.mkdir()
    here.mkdir()
    a = run(cwd=old, env=agent_env)
    a.wait_for("PROMPT")
    a.type_line("echo first line")
    a.type_line("python3 -c 'print(1)' # http.server later")
    a.type_line("echo third")
    # The shell's prompt after the output, not the type-ahead's echo while python3 still runs: a /quit
    # then asks first ("still running"), and the test would wait for an exit that waits for a "y".
    a.wait_for("third\n#")
    a.type_line("/quit")
    a.wait_exit()
    d = run(cwd=here, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/resume")
    d.wait_for("This workspace")
    d.send("\t")
    d.wait_for("All workspaces")
    d.send("http.server")
    screen = d.wait_for("matched: python3 -c 'print(1)' # http.server later", timeout=15)
    assert "echo first line" in screen  # the row (titled by its first line) found through the transcript


def test_the_status_line_and_dsh_sessions_show_one_title(run, dsh_cmd, agent_env, dsh_home, tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    d = run(cwd=here, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/resume")
    d.wait_for("This workspace")
    d.send("\x1b")  # `/resume`, a slash command, names no session
    d.wait_for("PROMPT")
    d.type_line("/rename")
    time.sleep(0.5)
    d.type_line("echo build the release notes")
    screen = d.wait_for("build the release notes\n")
    status = next(line for line in screen.splitlines() if "PROMPT" in line)
    assert "echo build the release notes" in status and "untitled" not in status
    out = subprocess.run(
        [*dsh_cmd, "sessions", "--json"], cwd=here, env=agent_env, capture_output=True, text=True, timeout=30
    )
    (row,) = [r for r in json.loads(out.stdout) if r["live_pid"] == host_pid(dsh_home)]
    assert row["title"] == "echo build the release notes"


def test_a_session_with_an_agent_is_titled_after_its_conversation(run, dsh_cmd, agent_env, dsh_home, tmp_path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    d = run(cwd=here, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/agent claude")
    d.wait_for("fake-claude session")
    d.send("summarize the README for me\r")
    d.wait_for("claude> summarize the README for me")
    screen = d.wait_until(lambda s: "· summarize the README" in s, timeout=20, what="the title in the status line")
    status = next(line for line in screen.splitlines() if "· summarize the README" in line)
    assert "untitled" not in status
    out = subprocess.run(
        [*dsh_cmd, "sessions", "--json"], cwd=here, env=agent_env, capture_output=True, text=True, timeout=30
    )
    (row,) = [r for r in json.loads(out.stdout) if r["live_pid"] == host_pid(dsh_home)]
    assert row["title"] == "summarize the README for me"
    assert row["agents"] and row["agents"][0]["kind"] == "claude"


def test_open_agent_from_the_command_line(run, agent_env, tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    codex_id = agent(["codex"], project, agent_env, ["tidy the imports"])
    d = run(f"--open-agent=codex:{codex_id}", cwd=elsewhere, env=agent_env)
    d.wait_for(f"fake-codex resumed {codex_id}", timeout=20)
    d.wait_for(f"opened codex resume {codex_id} in")
    resumed = [r for r in invocations(agent_env) if r["agent"] == "codex"][-1]
    assert without_hooks(resumed["argv"]) == [str(FAKES / "codex"), "resume", codex_id]
    assert resumed["cwd"] == str(project)
    bad = run("--open-agent=codex:0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11", cwd=elsewhere, env=agent_env)
    assert bad.wait_exit() == 1
    assert "no codex conversation 0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11 in the index" in bad.text().replace("\n", " ")
