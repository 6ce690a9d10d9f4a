"""End to end (real PTYs): /reload in one session reaches every other live session of the user, each of
its clients told in one line, and the new prefix taken (by the client too, which reads the detach keys
itself when its host is stuck); a key config.toml does not know is said at start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hosts import alive, host_pid

pytestmark = pytest.mark.slow

C_A = "\x01"
C_B = "\x02"


def listed(dsh_cmd: list[str], env: dict[str, str], cwd: Path) -> list[dict[str, object]]:
    out = subprocess.run(
        [*dsh_cmd, "list", "--all", "--json"], env=env, cwd=cwd, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    sessions: list[dict[str, object]] = json.loads(out.stdout)
    return sessions


def session_in(dsh_cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, object]:
    [found] = [s for s in listed(dsh_cmd, env, cwd) if s["cwd"] == str(cwd)]
    return found


def pane_count(session: dict[str, object]) -> int:
    tabs = session["tabs"]
    assert isinstance(tabs, list)
    return sum(len(tab["panes"]) for tab in tabs)


def test_reload_in_one_session_changes_the_prefix_of_the_other(
    launch: Launch, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    config = dsh_home / "config.toml"
    config.write_text("[ui]\nmoues = false\n")
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    first = launch(cwd=here, env=dsh_env, rows=30, cols=220)
    # At start, the key it does not know is said with the nearest one it knows.
    first.wait_for("ui.moues: unknown key (did you mean ui.mouse?); ignored", timeout=30)
    first.wait_for("PROMPT", timeout=30)
    second = launch(cwd=there, env=dsh_env, rows=30, cols=220)
    second.wait_for("PROMPT", timeout=30)
    first_id = session_in(dsh_cmd, dsh_env, here)["id"]
    # A second client on the other session: each client of it hears of the reload.
    also = launch("attach", str(session_in(dsh_cmd, dsh_env, there)["id"]), cwd=there, env=dsh_env, rows=30, cols=220)
    also.wait_for("PROMPT", timeout=30)

    config.write_text('[ui]\nprefix = "c-a"\n')
    first.type_line("/reload")
    first.wait_for("prefix C-a; also in 1 other live session", timeout=20)
    said = f"config reloaded by /reload in session {first_id} ({config}); prefix C-a"
    second.wait_for(said, timeout=20)
    also.wait_for(said, timeout=20)

    # The other session's keys changed with it: C-a % splits there.
    second.send(C_A + "%")
    deadline = time.monotonic() + 20
    while pane_count(session_in(dsh_cmd, dsh_env, there)) != 2:
        assert time.monotonic() < deadline, f"C-a % did not split the other session; its screen:\n{second.text()}"
        time.sleep(0.1)
    assert pane_count(session_in(dsh_cmd, dsh_env, here)) == 1


def test_after_a_reload_a_stuck_host_is_left_with_the_new_prefix(
    launch: Launch, dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    client = launch(cwd=tmp_path, env=dsh_env, rows=30, cols=160)
    client.wait_for("PROMPT", timeout=30)
    (dsh_home / "config.toml").write_text('[ui]\nprefix = "c-a"\n')
    client.type_line("/reload")
    client.wait_for("prefix C-a", timeout=20)
    pid = host_pid(dsh_home)
    os.kill(pid, signal.SIGSTOP)
    try:
        client.send("x")
        client.wait_for("is not answering", timeout=20)
        assert f"session host (pid {pid}) is not answering; C-a d detaches" in client.text()
        client.send(C_A + "d")
        assert client.wait_exit(timeout=10) == 0
    finally:
        os.kill(pid, signal.SIGCONT)
    assert alive(pid)  # the session stays
