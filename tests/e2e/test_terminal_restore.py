"""End to end: every way a client ends gives the terminal back as it was (autowrap, cursor, keypad, mouse,
bracketed paste, focus reports, the main screen): a kill -9 of the host, SIGTERM and SIGHUP of the client,
read back from the terminal's modes in a PTY and from tmux's own flags when dsh runs inside tmux."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pyte
import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hosts import kill_host

pytestmark = pytest.mark.slow

ROWS, COLS = 24, 80


def fresh_modes() -> set[int]:
    """The modes of a terminal nobody has touched (what the PTY's screen starts with)."""
    return set(pyte.Screen(COLS, ROWS).mode)


@pytest.mark.parametrize("how", ["kill -9 of the host", "SIGTERM of the client", "SIGHUP of the client"])
def test_every_exit_path_puts_the_terminals_modes_back(
    how: str, launch: Launch, dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    d = launch(cwd=tmp_path, env=dsh_env, rows=ROWS, cols=COLS)
    d.wait_for("PROMPT")
    with d._lock:
        assert set(d.screen.mode) != fresh_modes()  # the view set its modes (autowrap off, mouse...)
    if how.startswith("kill"):
        kill_host(dsh_home, signal.SIGKILL)
    else:
        os.kill(d.pid, signal.SIGTERM if "TERM" in how else signal.SIGHUP)
    d.wait_exit()
    with d._lock:
        assert set(d.screen.mode) == fresh_modes(), how
    if how.startswith("kill"):
        lines = [line for line in d.text().splitlines() if line.strip()]
        sid = next(p.stem for p in (dsh_home / "sessions").glob("*/*.jsonl"))
        # The command that restores, whole and on a line of its own (autowrap back on first).
        assert lines[-1].strip() == f"dsh --resume={sid}"
        assert "ended unexpectedly" in d.text()


def test_inside_tmux_a_crashed_host_leaves_autowrap_on(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    env = {k: v for k, v in dsh_env.items() if not k.startswith("TMUX")}
    sock = f"dsh-restore-{os.getpid()}"
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]

    def tm(*args: str) -> str:
        return subprocess.run([*tmux, *args], env=env, capture_output=True, text=True, timeout=10).stdout

    flags = "#{wrap_flag} #{alternate_on} #{cursor_flag} #{keypad_flag} #{keypad_cursor_flag} #{mouse_any_flag}"
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", str(COLS), "-y", str(ROWS), "sh"], env=env, cwd=tmp_path, check=True
    )
    try:
        tm("set", "-g", "remain-on-exit", "on")
        before = tm("display", "-p", flags).strip()
        assert before.startswith("1 0 1")
        tm("send-keys", " ".join(dsh_cmd), "Enter")
        deadline = time.monotonic() + 20
        while "PROMPT" not in tm("capture-pane", "-p"):
            assert time.monotonic() < deadline, tm("capture-pane", "-p")
            time.sleep(0.1)
        assert tm("display", "-p", "#{wrap_flag}").strip() == "0"  # the view draws with autowrap off
        kill_host(Path(env["DSH_HOME"]), signal.SIGKILL)
        deadline = time.monotonic() + 20
        while "dsh --resume=" not in tm("capture-pane", "-p"):
            assert time.monotonic() < deadline, tm("capture-pane", "-p")
            time.sleep(0.1)
        assert tm("display", "-p", flags).strip() == before
    finally:
        tm("kill-server")
