"""Whether a process runs in a dsh pane (its environment names one), as /agents and `--open-agent` ask of
Claude Code processes: read from the process, known again from its start time while it lives."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.agents import process
from dsh.agents.process import in_dsh_pane


@pytest.fixture
def sleepers() -> Iterator[tuple[int, int]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    inside = subprocess.Popen(["sleep", "60"], env={**env, "DSH_PANE_ID": "p1", "DSH_SESSION_ID": "s"})
    outside = subprocess.Popen(["sleep", "60"], env=env)
    yield inside.pid, outside.pid
    for proc in (inside, outside):
        proc.kill()
        proc.wait()


def test_a_process_in_a_pane_is_told_from_one_outside(sleepers: tuple[int, int]) -> None:
    inside, outside = sleepers
    assert in_dsh_pane(inside) and not in_dsh_pane(outside)
    assert not in_dsh_pane(2**22 + 7)  # no such process


def test_a_process_read_once_is_known_again_without_its_environment(
    sleepers: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, outside = sleepers
    in_dsh_pane(inside), in_dsh_pane(outside)
    read = []
    real = process._read

    def counting(path: str) -> bytes | None:
        read.append(path)
        return real(path)

    monkeypatch.setattr(process, "_read", counting)
    assert in_dsh_pane(inside) and not in_dsh_pane(outside)
    assert not any(path.endswith("/environ") for path in read)


def test_a_reused_pid_is_read_again(tmp_path: Path) -> None:
    # A fake /proc: the same pid, first a process in a pane, then another one (a later start) outside.
    pid = tmp_path / "4242"
    pid.mkdir()

    def becomes(start: int, env: bytes) -> None:
        fields = " ".join(["S"] + ["0"] * 18 + [str(start)])
        (pid / "stat").write_text(f"4242 (claude) {fields} 0 0\n")
        (pid / "environ").write_bytes(env)

    becomes(100, b"HOME=/root\0DSH_PANE_ID=p1\0")
    assert in_dsh_pane(4242, proc=str(tmp_path))
    becomes(900, b"HOME=/root\0")
    assert not in_dsh_pane(4242, proc=str(tmp_path))


def test_a_process_whose_environment_cannot_be_read_counts_as_outside(tmp_path: Path) -> None:
    (tmp_path / "77").mkdir()
    fields = " ".join(["S"] + ["0"] * 18 + ["5"])
    (tmp_path / "77" / "stat").write_text(f"77 (x) {fields} 0 0\n")
    assert not in_dsh_pane(77, proc=str(tmp_path))
