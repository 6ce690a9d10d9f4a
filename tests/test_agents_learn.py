"""The session-id learner: its backoff schedule, and finding a fake agent's session when it appears."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from dsh.agents.base import AgentAdapter
from dsh.agents.codex import CodexAdapter
from dsh.agents.learn import SessionLearner

FAKES = Path(__file__).resolve().parent / "fakes" / "bin"
UUID = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Scripted(CodexAdapter):
    """Finds nothing until told, and counts lookups."""

    def __init__(self) -> None:
        self.answer: str | None = None
        self.calls = 0
        self.raise_once = False

    def find_session_id(self, cwd: str, started_at: float, env: Mapping[str, str]) -> str | None:
        self.calls += 1
        if self.raise_once:
            self.raise_once = False
            raise OSError("scan failed")
        return self.answer


def test_lookups_back_off_then_continue_at_the_last_spacing() -> None:
    clock, adapter = Clock(1000.0), Scripted()
    learner = SessionLearner(adapter, "/w", 1000.0, {}, clock=clock, delays=(1.0, 2.0, 4.0))
    times = []
    while len(times) < 5:
        clock.now += 0.25
        if learner.due():
            times.append(clock.now - 1000.0)
            learner.attempt()
    assert times == [1.0, 2.0, 4.0, 6.0, 8.0]
    assert adapter.calls == 5


def test_found_id_stops_the_lookups() -> None:
    clock, adapter = Clock(0.0), Scripted()
    learner = SessionLearner(adapter, "/w", 0.0, {}, clock=clock, delays=(1.0,))
    clock.now = 1.0
    assert learner.attempt() is None
    adapter.answer = UUID
    clock.now = 2.0
    assert learner.due() and learner.attempt() == UUID
    assert learner.done and learner.next_at() is None and not learner.due()
    assert learner.attempt() == UUID and adapter.calls == 2


def test_an_id_known_at_launch_needs_no_lookup_but_a_malformed_one_is_ignored() -> None:
    adapter = Scripted()
    assert SessionLearner(adapter, "/w", 0.0, {}, known_id=UUID).done
    assert not SessionLearner(adapter, "/w", 0.0, {}, known_id="../x").done


def test_a_failing_or_malformed_lookup_counts_as_not_found() -> None:
    adapter = Scripted()
    learner = SessionLearner(adapter, "/w", 0.0, {}, clock=Clock(100.0))
    adapter.raise_once = True
    assert learner.attempt() is None
    adapter.answer = "not-an-id"
    assert learner.attempt() is None and not learner.done


def test_learns_the_session_of_a_fake_agent_started_later(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PATH": f"{FAKES}{os.pathsep}{os.environ.get('PATH', '')}"}
    adapter: AgentAdapter = CodexAdapter()
    learner = SessionLearner(adapter, str(tmp_path), time.time(), env, delays=(0.0,))
    assert learner.attempt() is None
    done = subprocess.run(
        ["codex"], cwd=tmp_path, env=env, input="x\n", capture_output=True, text=True, timeout=20, check=True
    )
    assert learner.attempt() is not None and learner.session_id in done.stdout
