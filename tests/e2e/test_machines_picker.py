"""The picker's machines scope over a real sshd: C-o lists another machine's sessions (a machine that is
down is one line), a query finds them, and Enter on a closed one restores it there in its directory over
`ssh -t`; detaching there brings this client back to the session it left."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.machines_fixture import Box
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow


def machines_scope(launch: Launch, dsh_env: dict[str, str], tmp_path: Path) -> PtyDriver:
    """dsh started here with a line of its own on screen, /resume open on its machines scope (C-o)."""
    here = tmp_path / "here"
    here.mkdir()
    d = launch(cwd=here, env=dsh_env, rows=30, cols=140)
    d.wait_for("PROMPT")
    d.type_line("echo local-marker")
    d.wait_for("local-marker")
    d.type_line("/resume")
    d.wait_for("This workspace")
    d.send("\x0f")  # C-o
    return d


def test_enter_on_another_machine_s_session_goes_there_and_back(
    box: Box, launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    there = tmp_path / "there-project"
    there.mkdir()
    box.make_sessions(there, "deploy the api")
    d = machines_scope(launch, dsh_env, tmp_path)
    d.wait_for("deploy the api", timeout=30)
    screen = d.wait_for("gone does not answer", timeout=30)  # the machine that is down: one line
    assert "Machines ·" in screen and "box:" in screen
    d.send("deploy")
    d.wait_until(lambda s: "deploy the api" in s and "deploy" in s.splitlines()[0] + s, what="the query")
    d.send("\r")
    # The other machine's dsh, restored there in its directory, with this terminal.
    d.wait_for("PROMPT", timeout=30)
    d.wait_until(lambda s: "local-marker" not in s, what="the other machine's session on screen", timeout=30)
    d.type_line("pwd")
    d.wait_for(f"\n{there}\n", timeout=30)
    d.send("\x02d")  # detach there: ssh ends, and this client comes back
    d.wait_for("local-marker", timeout=30)
    assert "PROMPT" in d.wait_for("PROMPT")
    assert d.proc.isalive()


def test_enter_on_another_machine_s_agent_conversation_opens_it_there_in_its_directory(
    box: Box, launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    import os
    import subprocess

    there = tmp_path / "billing-service"
    there.mkdir()
    fakes = Path(__file__).resolve().parent.parent / "fakes" / "bin"
    env = {**dsh_env, "CODEX_HOME": str(box.codex_home), "PATH": f"{fakes}{os.pathsep}{dsh_env['PATH']}"}
    made = subprocess.run(
        ["codex", "exec", "migrate the billing tables"], env=env, cwd=there, capture_output=True, text=True, timeout=30
    )
    assert made.returncode == 0, made.stderr
    thread = made.stdout.split("fake-codex session ")[1].split()[0]
    d = machines_scope(launch, dsh_env, tmp_path)
    d.wait_for("migrate the billing tables", timeout=30)
    d.send("billing")
    d.wait_until(lambda s: "box:" in s and "migrate the billing tables" in s, what="the conversation row")
    d.send("\r")
    # That machine's dsh, resuming the conversation in its directory, with this terminal.
    screen = d.wait_for(f"fake-codex resumed {thread} in", timeout=30)
    assert f"{there}" in screen.replace("\n", "")  # the path may wrap at the pane's edge
    d.send("\x02d")  # detach there: ssh ends, and this client comes back
    d.wait_for("local-marker", timeout=30)
    assert d.proc.isalive()
