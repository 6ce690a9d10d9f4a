"""End to end, two clients on one session (real PTYs): dsh's notice is sent out to the client whose
screen does not show its pane and not to the one looking at it, read when a client looks again; and the
panes take the smallest client's size, or with `ui.window_size = "latest"` the last active one's."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

C_B = "\x02"
OSC9 = b"\x1b]9;"
FAKES = Path(__file__).resolve().parent.parent / "fakes" / "bin"


def dsh(dsh_cmd: list[str], *args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*dsh_cmd, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=30)


def only_session(dsh_cmd: list[str], env: dict[str, str], cwd: Path) -> str:
    listed = json.loads(dsh(dsh_cmd, "list", "--all", "--json", env=env, cwd=cwd).stdout)
    assert len(listed) == 1, listed
    return str(listed[0]["id"])


def saved_notes(home: Path) -> list[tuple[str, bool]]:
    """The snapshot's notifications: (text, unread)."""
    notes: list[tuple[str, bool]] = []
    for path in (home / "state").glob("*/snapshot.json"):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # (being replaced this instant)
        notes += [(n["text"], n.get("read_at") is None) for n in data.get("notifications", [])]
    return notes


def wait_notes(home: Path, predicate, what: str, timeout: float = 20.0) -> list[tuple[str, bool]]:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        notes = saved_notes(home)
        if predicate(notes):
            return notes
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: the snapshot holds {notes}")
        time.sleep(0.1)


def wait_raw(driver: PtyDriver, needle: bytes, since: int, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while needle not in bytes(driver.raw[since:]):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not in the client's output; its screen:\n{driver.text()}")
        time.sleep(0.05)


@pytest.fixture
def agent_env(dsh_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The fake Claude on PATH (it runs the hooks dsh gives it, as the real one does); both terminals
    take OSC 9 notifications."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    path = f"{FAKES}{os.pathsep}{dsh_env.get('PATH', '')}"
    env = {**dsh_env, "PATH": path, "HOME": str(home), "TERM_PROGRAM": "iTerm.app"}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return env


def test_an_agent_s_notice_goes_out_to_the_client_not_looking_and_is_read_when_one_looks(
    launch: Launch, dsh_cmd: list[str], agent_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    """dsh's own notices (an agent's hook turning it blocked or done) are per client: the client
    looking at the pane is told nothing, one whose picker covers the panes gets the notification; with
    nobody looking it is kept unread, and read when one client's screen shows the pane again."""
    env = agent_env
    made = dsh(dsh_cmd, "new", "-d", "--json", "--", "claude", env=env, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    sid = json.loads(made.stdout)["session"]
    first = launch("attach", sid, cwd=tmp_path, env=env, rows=30, cols=100)
    first.wait_for("fake-claude session", timeout=30)
    second = launch("attach", sid, cwd=tmp_path, env=env, rows=30, cols=100)
    second.wait_for("fake-claude session", timeout=30)
    # The second client opens the picker over the panes; the first keeps looking at p1, the agent.
    second.send(C_B + "s")
    second.wait_for("Esc", timeout=30)
    mark_first, mark_second = len(first.raw), len(second.raw)
    sent = dsh(dsh_cmd, "send", "-t", f"{sid}:p1", "ask make deploy\r", env=env, cwd=tmp_path)
    assert sent.returncode == 0, sent.stderr
    asked = OSC9 + b"claude needs you: allow Bash: make deploy"
    wait_raw(second, asked, mark_second, "the ask, to the client in the picker")
    first.wait_for("! needs you", timeout=30)  # the state, in the header of the client looking
    time.sleep(0.5)
    assert OSC9 not in bytes(first.raw[mark_first:])  # it looks at the pane: nothing sent out to it

    # Both in the picker: nobody looks, so the turn's end is kept unread and goes out to both.
    first.send(C_B + "s")
    first.wait_for("Esc", timeout=30)
    mark_first, mark_second = len(first.raw), len(second.raw)
    sent = dsh(dsh_cmd, "send", "-t", f"{sid}:p1", "y\r", env=env, cwd=tmp_path)
    assert sent.returncode == 0, sent.stderr
    wait_raw(first, OSC9 + b"claude is done", mark_first, "the turn's end, to the first client")
    wait_raw(second, OSC9 + b"claude is done", mark_second, "the turn's end, to the second client")
    notes = wait_notes(dsh_home, lambda notes: any(unread for _, unread in notes), "kept unread")
    assert [text.split(":")[0] for text, _ in notes] == ["claude done"]  # the ask seen in front of a client: not kept
    # The first client leaves the picker: it looks at p1 again, which reads it (the second still in its picker).
    first.send("\x1b")
    first.wait_for("○ idle", timeout=30)
    wait_notes(dsh_home, lambda notes: notes and not any(unread for _, unread in notes), "read once a client looked")


def pane_size(driver: PtyDriver, tag: str) -> tuple[int, int]:
    """Type `stty size` (twice: the first keys may be what resizes the panes) and read the pane's size."""
    for round_ in (1, 2):
        driver.type_line(f"echo {tag}{round_}-$(stty size)-")
        screen = driver.wait_for(rf"{tag}{round_}-\d+ \d+-", timeout=30, regex=True)
    found = re.findall(rf"{tag}2-(\d+) (\d+)-", screen)
    return int(found[-1][0]), int(found[-1][1])


@pytest.mark.parametrize("window_size", ["smallest", "latest"])
def test_the_panes_take_the_smallest_client_or_the_latest_active_one(
    launch: Launch, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path, window_size: str
) -> None:
    (dsh_home / "config.toml").write_text(f'[ui]\nwindow_size = "{window_size}"\n')
    big = launch(cwd=tmp_path, env=dsh_env, rows=30, cols=120)
    big.wait_for("PROMPT", timeout=30)
    sid = only_session(dsh_cmd, dsh_env, tmp_path)
    alone = pane_size(big, "alone")
    assert alone[1] == 120
    small = launch("attach", sid, cwd=tmp_path, env=dsh_env, rows=24, cols=80)
    small.wait_for("PROMPT", timeout=30)
    assert pane_size(small, "small") == (alone[0] - 6, 80)  # the small one typed last: its size either way
    # Keys from the big client: in "latest" the panes grow to its size, in "smallest" they stay small.
    expected = alone if window_size == "latest" else (alone[0] - 6, 80)
    assert pane_size(big, "big") == expected
    assert pane_size(small, "again") == (alone[0] - 6, 80)


def test_a_client_attaching_reads_what_the_focused_pane_flagged_while_nobody_looked(
    launch: Launch, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    made = dsh(dsh_cmd, "new", "-d", "--json", env=dsh_env, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    sid = json.loads(made.stdout)["session"]
    sent = dsh(dsh_cmd, "send", "-t", f"{sid}:p1", "printf '\\033]9;build finished\\007'\r", env=dsh_env, cwd=tmp_path)
    assert sent.returncode == 0, sent.stderr
    wait_notes(dsh_home, lambda notes: notes == [("build finished", True)], "kept unread: no client looks")
    client = launch("attach", sid, cwd=tmp_path, env=dsh_env, rows=30, cols=100)
    client.wait_for("PROMPT", timeout=30)
    wait_notes(dsh_home, lambda notes: notes == [("build finished", False)], "read once a client looks")
    assert "(!)" not in client.text()
