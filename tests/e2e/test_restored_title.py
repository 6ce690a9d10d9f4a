"""After a restore, the status line's title is the listing's: lines sent to the agent change neither."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.hosts import host_pid, kill_host, wait_saved
from tests.e2e.test_resume_restore import agent_env, only_session_id, run  # noqa: F401 -- fixtures

pytestmark = pytest.mark.slow


def status_title(screen: str) -> str:
    return next((line for line in screen.splitlines() if "PROMPT" in line or "IN PANE" in line), "")


def test_the_title_after_a_restore_is_the_listings(run, dsh_cmd, agent_env, dsh_home: Path, tmp_path: Path) -> None:  # noqa: F811
    work = tmp_path / "work"
    work.mkdir()
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/agent claude")
    d.wait_for("fake-claude session")
    d.send("summarize the README for me\r")
    d.wait_for("claude> summarize the README for me")
    d.send("\x1d")  # back to the prompt
    d.wait_until(lambda s: "summarize the README" in status_title(s), timeout=20, what="the agent's title")
    wait_saved(dsh_home, b'"kind": "claude"')
    session_id = only_session_id(dsh_home)
    kill_host(dsh_home)
    d.wait_exit()

    r = run(f"--resume={session_id}", cwd=tmp_path, env=agent_env)
    r.wait_for("RESUMABLE")
    r.type_line("now add the tests")  # from the prompt, into the restored agent's pane: it resumes
    r.wait_for("claude> now add the tests", timeout=20)
    r.send("\x1d")
    screen = r.wait_for("PROMPT")
    out = subprocess.run(
        [*dsh_cmd, "sessions", "--json"], cwd=work, env=agent_env, capture_output=True, text=True, timeout=30
    )
    (row,) = [x for x in json.loads(out.stdout) if x["live_pid"] == host_pid(dsh_home)]
    shown = status_title(screen)
    assert row["title"] in shown, (row["title"], shown)
    assert "now add the tests" not in shown
