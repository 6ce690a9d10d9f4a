"""End to end: a client started with `dsh attach` follows `/resume` to a closed, a crashed and a live session."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hosts import kill_host, wait_saved
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow


@pytest.fixture
def run(launch: Launch, dsh_env: dict[str, str]) -> Launch:
    def start(*args: str, cwd: Path) -> PtyDriver:
        return launch(*args, cwd=cwd, env=dsh_env, rows=30, cols=110)

    return start


def _print(d: PtyDriver, word: str) -> None:
    """Print `word` in the pane, typed in halves so that the screen shows it only once it ran."""
    half = len(word) // 2
    d.type_line(f"printf '%s%s\\n' {word[:half]} {word[half:]}")
    d.wait_for(word)


def _resume(d: PtyDriver, name: str, shown: str) -> str:
    """`/resume`, every workspace, the row of the workspace `name`, Enter; the screen once `shown` is on it."""
    d.type_line("/resume")
    d.wait_for("This workspace")
    d.send("\t")
    d.wait_for("All workspaces")
    d.send(name)
    d.wait_for(name)
    d.send("\r")
    return d.wait_until(lambda s: shown in s or "not running" in s, timeout=20, what=shown)


def test_resume_from_an_attach_client_reaches_closed_crashed_and_live_sessions(
    run, dsh_home: Path, tmp_path: Path
) -> None:
    closed, crashed, live = (tmp_path / name for name in ("alpha-closed", "bravo-crashed", "charlie-live"))
    for folder in (closed, crashed, live):
        folder.mkdir()
    a = run(cwd=closed)
    a.wait_for("PROMPT")
    _print(a, "alpha-was-here")
    a.type_line("/quit")
    assert a.wait_exit() == 0

    b = run(cwd=crashed)
    b.wait_for("PROMPT")
    _print(b, "bravo-was-here")
    wait_saved(dsh_home, b"bravo-was-here")
    kill_host(dsh_home, signal.SIGKILL)
    assert b.wait_exit() == 1

    c = run(cwd=live)
    c.wait_for("PROMPT")
    c.type_line("sleep 1000")  # a program running: leaving the session keeps it running
    c.wait_for("· sleep 1000 ·")  # the status line names the pane's foreground program
    c.send("\x02d")  # C-b d
    assert c.wait_exit() == 0

    # The client under test: `dsh attach`, which never restores the session it names...
    d = run("attach", cwd=live)
    d.wait_for("sleep 1000")
    d.wait_for("PROMPT")
    # ...but a /resume from it restores what it picks, as from any other client.
    screen = _resume(d, "alpha-closed", "alpha-was-here")
    assert "not running" not in screen, screen
    d.wait_for("PROMPT")
    screen = _resume(d, "bravo-crashed", "bravo-was-here")
    assert "not running" not in screen, screen
    d.wait_for("RESTORED")
    d.wait_for("PROMPT")
    screen = _resume(d, "charlie-live", "sleep 1000")
    assert "not running" not in screen, screen
