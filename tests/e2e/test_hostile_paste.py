"""Typed input without bracketed paste costs the host time and memory in proportion to its length."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hosts import host_pid

pytestmark = pytest.mark.slow


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(field)


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _settle(pid: int, limit: float = 120.0) -> None:
    """Until the host has used no CPU for half a second (it has read and drawn all it was sent)."""
    deadline = time.monotonic() + limit
    last = _cpu(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = _cpu(pid)
        if now - last < 0.02:
            return
        last = now
    raise AssertionError("the host stayed busy")


def test_a_paste_without_brackets_costs_the_host_linear_memory_and_time(
    launch: Launch, dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    d = launch(cwd=tmp_path, env=dsh_env, rows=30, cols=120)
    d.wait_for("PROMPT", timeout=30)
    pid = host_pid(dsh_home)
    typed = 0
    for kb in (16, 64, 256):
        _settle(pid)
        peak, cpu = _status(pid, "VmHWM"), _cpu(pid)
        data = b"a" * (kb * 1024)
        for at in range(0, len(data), 4096):  # reads of a few KB, as a terminal delivers a paste
            d.send(data[at : at + 4096])
        typed += len(data)
        _settle(pid)
        grown, busy = _status(pid, "VmHWM") - peak, _cpu(pid) - cpu
        # Linear bounds, generous for a loaded machine: the quadratic prompt took +150 MB and 2.7 s
        # at 16 KB, +2.1 GB and 13.6 s at 64 KB.
        assert grown <= 8 * 2**20 + 64 * len(data), (kb, grown)
        assert busy <= 2.0 + 8.0 * len(data) / 2**20, (kb, busy)
    d.wait_for("aaaa")  # the typed line is on the prompt (its bound: tests/test_app_prompt.py)
