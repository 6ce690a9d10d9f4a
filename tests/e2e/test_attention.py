"""End to end: a fake Claude that runs the hooks dsh gave it (as the real CLI does) reports through
`dsh report` to the pane's host; its state shows in the header and the status line, the user's own
hook still runs once; a blocked agent in a detached session counts in another session's status line,
and Enter in /agents attaches there with that pane focused."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

FAKES = Path(__file__).resolve().parent.parent / "fakes" / "bin"


@pytest.fixture
def agent_env(dsh_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    env = dict(dsh_env)
    env["PATH"] = f"{FAKES}{os.pathsep}{env.get('PATH', '')}"
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    env["HOME"] = str(home)
    env.pop("CLAUDE_CONFIG_DIR", None)
    # The user's own hook, which must still run (once) beside dsh's.
    mine = tmp_path / "mine.log"
    settings = {
        "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"cat >> {mine}; echo >> {mine}"}]}]}
    }
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    return env


@pytest.fixture
def run(launch: Launch) -> Launch:
    def start(*args: str, cwd: Path, env: dict[str, str], rows: int = 30, cols: int = 120) -> PtyDriver:
        return launch(*args, cwd=cwd, env=env, rows=rows, cols=cols)

    return start


def dsh(dsh_cmd: list[str], *args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*dsh_cmd, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=30)


def test_claude_s_hooks_report_its_states_and_the_user_s_hook_runs_once(run, agent_env, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT", timeout=30)
    d.type_line("/agent claude")
    d.wait_for("fake-claude session", timeout=30)
    d.wait_for("○ idle", timeout=30)  # SessionStart
    d.send("ask rm -rf build\r")
    screen = d.wait_for("! needs you", timeout=30)
    assert "allow Bash: rm -rf build" in screen
    assert "1 needs you" in screen
    d.send("y\r")
    # Its turn ends in front of the user: seen at once (idle), with its last answer kept in the header.
    d.wait_for("claude> ask rm -rf build", timeout=30)
    d.wait_until(lambda screen: "○ idle" in screen, what="idle after the turn", timeout=30)
    mine = [json.loads(line) for line in (tmp_path / "mine.log").read_text().splitlines() if line.strip()]
    assert [entry["prompt"] for entry in mine] == ["ask rm -rf build"]  # once, not twice


def test_a_blocked_agent_in_a_detached_session_is_counted_here_and_enter_goes_there(
    run, agent_env, dsh_cmd, tmp_path: Path
) -> None:
    other, here = tmp_path / "other", tmp_path / "here"
    other.mkdir()
    here.mkdir()
    made = dsh(dsh_cmd, "new", "-d", "--json", "--", "claude", env=agent_env, cwd=other)
    assert made.returncode == 0, made.stderr
    session_id = json.loads(made.stdout)["session"]
    listed = json.loads(dsh(dsh_cmd, "list", "--all", "--json", env=agent_env, cwd=other).stdout)
    pane_id = next(p["id"] for s in listed for t in s["tabs"] for p in t["panes"])
    sent = dsh(dsh_cmd, "send", "-t", f"{session_id}:{pane_id}", "ask make deploy\r", env=agent_env, cwd=other)
    assert sent.returncode == 0, sent.stderr
    waited = dsh(
        dsh_cmd,
        "wait",
        "-t",
        f"{session_id}:{pane_id}",
        "--state",
        "blocked",
        "--timeout",
        "20",
        env=agent_env,
        cwd=other,
    )
    assert waited.returncode == 0, waited.stderr + waited.stdout
    listed = dsh(dsh_cmd, "agents", "--json", env=agent_env, cwd=other)
    rows = json.loads(listed.stdout)
    assert [(r["session"], r["pane"], r["state"], r["message"]) for r in rows] == [
        (session_id, pane_id, "blocked", "allow Bash: make deploy")
    ]
    assert json.loads(dsh(dsh_cmd, "agents", "--json", env=agent_env, cwd=here).stdout) == []  # not this workspace
    d = run(cwd=here, env=agent_env)
    d.wait_for("PROMPT", timeout=30)
    d.wait_for("1 needs you", timeout=30)  # another session's agent, in this one's status line
    d.send("\x02a")
    screen = d.wait_for("allow Bash: make deploy", timeout=30)
    assert "needs you" in screen
    d.send("\r")
    # The other session, attached, with the blocked pane focused (its header marked, the ask in it).
    d.wait_until(
        lambda screen: f"▶ {pane_id}" in screen and "Allow Bash: make deploy" in screen,
        what="attached there",
        timeout=30,
    )


def test_notifications_survive_a_kill_9_of_the_host_and_unread_stays_unread(
    run, dsh_cmd, dsh_env, dsh_home, tmp_path
) -> None:
    from tests.e2e.hosts import kill_host, wait_saved

    d = run(cwd=tmp_path, env=dsh_env)
    d.wait_for("PROMPT", timeout=30)
    d.send("\x02%")  # a second pane; the first goes to the background
    d.wait_for("▶ p2", timeout=30)
    listed = json.loads(dsh(dsh_cmd, "list", "--all", "--json", env=dsh_env, cwd=tmp_path).stdout)
    sid = listed[0]["id"]
    sent = dsh(dsh_cmd, "send", "-t", f"{sid}:p1", "printf '\\033]9;build finished\\007'\r", env=dsh_env, cwd=tmp_path)
    assert sent.returncode == 0, sent.stderr
    d.wait_for("(!)", timeout=30)  # p1's header flags it
    wait_saved(dsh_home, b'"text": "build finished"')
    kill_host(dsh_home)
    d.wait_exit()
    r = run(f"--resume={sid}", cwd=tmp_path, env=dsh_env)
    r.wait_for("PROMPT", timeout=30)
    r.type_line("/notifications")
    screen = r.wait_for("unread of", timeout=30)
    assert "1 unread of 1" in screen and "● " in screen and "build finished" in screen


def test_a_live_session_s_row_shows_its_agents_states_in_sessions_and_resume(
    run, agent_env, dsh_cmd, dsh_home, tmp_path: Path
) -> None:
    """`dsh sessions` (text and --json) and /resume show a live session's agents' states, asked of its
    host; a host that does not answer (stopped) leaves its row listed without them, and the list is not
    held up for it."""
    import signal

    from tests.e2e.hosts import host_pid

    work = tmp_path / "work"
    work.mkdir()
    made = dsh(dsh_cmd, "new", "-d", "--json", "--", "claude", env=agent_env, cwd=work)
    assert made.returncode == 0, made.stderr
    sid = json.loads(made.stdout)["session"]
    sent = dsh(dsh_cmd, "send", "-t", f"{sid}:p1", "ask make deploy\r", env=agent_env, cwd=work)
    assert sent.returncode == 0, sent.stderr
    waited = dsh(dsh_cmd, "wait", "-t", f"{sid}:p1", "--state", "blocked", "--timeout", "20", env=agent_env, cwd=work)
    assert waited.returncode == 0, waited.stderr + waited.stdout

    table = dsh(dsh_cmd, "sessions", env=agent_env, cwd=work).stdout.splitlines()
    assert "AGENTS" in table[0].split()
    row = next(line for line in table if line.startswith(sid))
    assert "1 needs you" in row and " detached " in row  # (`dsh new -d`: no client ever attached it)
    listed = {row["id"]: row for row in json.loads(dsh(dsh_cmd, "sessions", "--json", env=agent_env, cwd=work).stdout)}
    [state] = listed[sid]["agent_states"]
    assert (state["pane"], state["kind"], state["state"], state["message"]) == (
        "p1",
        "claude",
        "blocked",
        "allow Bash: make deploy",
    )

    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT", timeout=30)
    d.type_line("/resume")
    d.wait_until(
        lambda screen: any("● " in line and "1 needs you" in line for line in screen.splitlines()),
        what="the live session's row with its agent's state",
        timeout=30,
    )

    pid = host_pid(dsh_home, sid)
    os.kill(pid, signal.SIGSTOP)  # listening, never answering
    try:
        stopped = subprocess.run(
            [*dsh_cmd, "sessions", "--json"], env=agent_env, cwd=work, capture_output=True, text=True, timeout=10
        )
        row = next(row for row in json.loads(stopped.stdout) if row["id"] == sid)
        assert row["live_pid"] is not None and row["agent_states"] is None
        table = dsh(dsh_cmd, "sessions", env=agent_env, cwd=work).stdout
        assert sid in table and "needs you" not in table
    finally:
        os.kill(pid, signal.SIGCONT)


def test_the_hook_files_go_when_the_agent_ends_after_a_crash_and_with_the_session(
    run, agent_env, dsh_cmd, dsh_home, tmp_path: Path
) -> None:
    """The --settings file dsh writes for a claude it starts lives while that claude runs: removed when
    it exits, by the next host after a kill -9 of the one that wrote it, and when the session ends."""
    import time

    from tests.e2e.hosts import kill_host

    def settings_files() -> list[Path]:
        return sorted((dsh_home / "state").glob("*/hooks/*/claude-settings.json"))

    def wait_files(count: int, what: str) -> list[Path]:
        deadline = time.monotonic() + 30
        while len(found := settings_files()) != count:
            assert time.monotonic() < deadline, f"{what}: {found}"
            time.sleep(0.1)
        return found

    work = tmp_path / "work"
    work.mkdir()
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT", timeout=30)
    d.type_line("/agent claude")
    d.wait_for("fake-claude session", timeout=30)
    [first] = wait_files(1, "the agent's settings file")
    d.send("/exit\r")
    wait_files(0, "removed once the agent exited")
    assert not first.parent.exists()

    d.send("\x02%")
    d.wait_for("▶ p3", timeout=30)
    d.type_line("/agent claude")
    d.wait_for("fake-claude session", timeout=30)
    [crashed] = wait_files(1, "the second agent's settings file")
    sid = crashed.parent.parent.parent.name
    kill_host(dsh_home)
    d.wait_exit()
    assert crashed.exists()  # nobody left to remove it
    r = run(f"--resume={sid}", cwd=work, env=agent_env)
    r.wait_for("PROMPT", timeout=30)
    wait_files(0, "swept by the next host (its pane is not running)")

    r.type_line("/agent claude")
    [last] = wait_files(1, "a third agent's settings file")
    stopped = dsh(dsh_cmd, "stop", sid, env=agent_env, cwd=work)
    assert stopped.returncode == 0, stopped.stderr
    r.wait_exit(timeout=30)
    wait_files(0, "removed with the session")
    assert not last.parent.parent.exists()
