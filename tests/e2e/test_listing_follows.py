"""End to end: `dsh sessions` keeps up with real sessions once their folder has settled (the index then
looks in a folder again only when its mtime moves): lines typed in a running dsh, its close, and a
resumed session's lines are all listed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from dsh.store.workspace import workspace_partition
from tests.e2e.conftest import Launch
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

HOUR_NS = 3600 * 1_000_000_000


@pytest.fixture
def run(launch: Launch, dsh_env: dict[str, str]) -> Launch:
    def start(*args: str, cwd: Path) -> PtyDriver:
        return launch(*args, cwd=cwd, env=dsh_env, rows=30, cols=110)

    return start


def listed(dsh_cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, object]:
    got = subprocess.run([*dsh_cmd, "sessions", "--json"], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    (row,) = json.loads(got.stdout)
    return row


def settle(folder: Path) -> None:
    """Age the session's folder by an hour, as time would: a folder changed in the last 2 s is listed
    again at every refresh anyway, so this is what lets the refresh skip it."""
    then = folder.stat().st_mtime_ns - HOUR_NS
    os.utime(folder, ns=(then, then))


def type_and_see(d: PtyDriver, word: str) -> None:
    half = len(word) // 2
    d.type_line(f"printf '%s%s\\n' {word[:half]} {word[half:]}")
    d.wait_for(word)


def test_lines_typed_in_a_running_dsh_its_close_and_a_resume_are_listed(
    run, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    folder = dsh_home / "sessions" / workspace_partition(str(tmp_path))
    d = run(cwd=tmp_path)
    d.wait_for("PROMPT")
    type_and_see(d, "first-line")
    settle(folder)
    before = listed(dsh_cmd, dsh_env, tmp_path)  # records the folder as settled
    assert before["live_pid"] is not None
    moved = folder.stat().st_mtime_ns
    type_and_see(d, "second-line")
    assert folder.stat().st_mtime_ns == moved  # the host's appends leave the folder as it was
    row = listed(dsh_cmd, dsh_env, tmp_path)
    assert row["input_count"] == before["input_count"] + 1  # type: ignore[operator]
    d.type_line("/quit")
    d.wait_exit()
    row = listed(dsh_cmd, dsh_env, tmp_path)
    assert row["state"] == "closed" and row["live_pid"] is None
    count = row["input_count"]

    settle(folder)
    listed(dsh_cmd, dsh_env, tmp_path)
    again = run("--resume", str(row["id"]), cwd=tmp_path)
    again.wait_for("resumed session")
    again.wait_for("PROMPT")
    type_and_see(again, "after-resume")
    row = listed(dsh_cmd, dsh_env, tmp_path)
    assert row["input_count"] == count + 1  # type: ignore[operator]
    assert row["live_pid"] is not None
    again.type_line("/quit")
    again.wait_exit()
