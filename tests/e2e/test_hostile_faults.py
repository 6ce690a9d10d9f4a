"""End to end: faults under a running host (stopped, its files removed or replaced) are said and survived."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hosts import alive, host_pid
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    return work


@pytest.fixture
def run(launch: Launch, dsh_env: dict[str, str], workdir: Path) -> Launch:
    def start(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> PtyDriver:
        return launch(*args, cwd=cwd or workdir, env=env or dsh_env, rows=30, cols=100)

    return start


def _session_id(dsh_home: Path) -> str:
    (log,) = (dsh_home / "sessions").glob("*/*.jsonl")
    return log.stem


def test_attaching_a_stopped_host_says_so_at_once_and_dsh_stop_ends_it(
    run: Launch, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, workdir: Path
) -> None:
    d = run()
    d.wait_for("PROMPT")
    sid, pid = _session_id(dsh_home), host_pid(dsh_home)
    d.send("\x02d")
    assert d.wait_exit() == 0
    os.kill(pid, signal.SIGSTOP)
    try:
        a = run("attach", sid)
        started = time.monotonic()
        assert a.wait_exit(timeout=8) not in (0, None)
        took = time.monotonic() - started
        said = a.text().replace("\n", "")
        assert f"(pid {pid}) is stopped and does not answer" in said, said
        assert f"kill -CONT {pid}" in said and f"dsh stop {sid}" in said, said
        assert took < 4.0, f"the stopped host was said after {took:.1f} s (the handshake waits 10 s)"
        # And the command it names works on a stopped host.
        out = subprocess.run(
            [*dsh_cmd, "stop", sid], cwd=workdir, env=dsh_env, capture_output=True, text=True, timeout=30
        )
        assert out.returncode == 0, out.stderr
        assert f"stopped session {sid}" in out.stdout
        assert not alive(pid)
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGCONT)
