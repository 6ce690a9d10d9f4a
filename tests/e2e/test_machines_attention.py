"""Other machines' agents over a real sshd: a blocked agent in a live session on `box` is listed by
`dsh agents --machines`, counted in this machine's status line once `attention_seconds` asks for it,
shown in /agents with its machine, and Enter there attaches it over ssh with that pane focused;
detaching there comes back here."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.machines_fixture import Box, write_config

pytestmark = pytest.mark.slow

FAKES = Path(__file__).resolve().parent.parent / "fakes" / "bin"


def run(dsh_cmd: list[str], env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*dsh_cmd, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


def blocked_agent_on_box(box: Box, dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path) -> tuple[str, str]:
    """A live session in the box's store whose fake Claude (running the hooks dsh gave it) waits for
    a permission: its session and pane ids."""
    env = dict(dsh_env)
    env["DSH_HOME"] = str(box.home)
    env["PATH"] = f"{FAKES}{os.pathsep}{env.get('PATH', '')}"
    home = tmp_path / "box-user"
    (home / ".claude").mkdir(parents=True)
    env["HOME"] = str(home)
    env.pop("CLAUDE_CONFIG_DIR", None)
    work = tmp_path / "box-project"
    work.mkdir()
    made = run(dsh_cmd, env, "new", "-d", "--json", "--", "claude", cwd=work)
    assert made.returncode == 0, made.stderr
    session_id = json.loads(made.stdout)["session"]
    listed = json.loads(run(dsh_cmd, env, "list", "--all", "--json", cwd=work).stdout)
    pane_id = next(p["id"] for s in listed for t in s["tabs"] for p in t["panes"])
    sent = run(dsh_cmd, env, "send", "-t", f"{session_id}:{pane_id}", "ask make deploy\r", cwd=work)
    assert sent.returncode == 0, sent.stderr
    waited = run(
        dsh_cmd, env, "wait", "-t", f"{session_id}:{pane_id}", "--state", "blocked", "--timeout", "20", cwd=work
    )
    assert waited.returncode == 0, waited.stderr + waited.stdout
    # A second pane, focused: Enter in /agents must focus the blocked one itself.
    split = run(dsh_cmd, env, "split", "-t", session_id, "--", "sh", cwd=work)
    assert split.returncode == 0, split.stderr
    listed = json.loads(run(dsh_cmd, env, "list", "--all", "--json", cwd=work).stdout)
    active = [p["id"] for s in listed for t in s["tabs"] for p in t["panes"] if p.get("active")]
    assert active and pane_id not in active, listed
    return session_id, pane_id


def test_an_agent_that_needs_you_on_another_machine_is_counted_listed_and_reached(
    box: Box, launch: Launch, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    session_id, pane_id = blocked_agent_on_box(box, dsh_cmd, dsh_env, tmp_path)
    here = tmp_path / "here"
    here.mkdir()
    # Headless: asked over ssh, with the machine's name.
    listed = run(dsh_cmd, dsh_env, "agents", "--machines", "--json", cwd=here)
    assert listed.returncode == 0, listed.stderr
    rows = [r for r in json.loads(listed.stdout) if not r["outside"]]
    assert [(r["machine"], r["session"], r["pane"], r["state"], r["message"]) for r in rows] == [
        ("box", session_id, pane_id, "blocked", "allow Bash: make deploy")
    ]
    assert "gone does not answer" in listed.stderr  # the machine that is down: one line
    # Off by default: nothing asks the box while this client runs...
    d = launch(cwd=here, env=dsh_env, rows=30, cols=140)
    d.wait_for("PROMPT", timeout=30)
    d.type_line("echo local-marker")
    d.wait_for("local-marker")
    d.send("\x02a")
    d.wait_for("no agent is running", timeout=30)
    d.send("q")
    # ...until its table says how often; /reload takes it.
    write_config(dsh_home, box, box_extra="attention_seconds = 1")
    d.type_line("/reload")
    d.wait_for("1 needs you", timeout=30)
    d.send("\x02a")
    screen = d.wait_for("allow Bash: make deploy", timeout=30)
    assert "box: " in screen and "agents on every machine" in screen
    d.send("\r")
    # The box's session, attached over ssh, with the blocked pane focused.
    d.wait_until(
        lambda s: f"▶ {pane_id}" in s and "Allow Bash: make deploy" in s and "local-marker" not in s,
        what="the other machine's session, its blocked pane focused",
        timeout=30,
    )
    d.send("\x02d")  # detach there: ssh ends, and this client comes back
    d.wait_for("local-marker", timeout=30)
    assert d.proc.isalive()
