"""End to end: `dsh attach`, `dsh stop` and `dsh --resume` take a session's title or a unique start of
its id (or of the id's random part); an ambiguous word lists the sessions it could be."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch

pytestmark = pytest.mark.slow

C_B = "\x02"


def listed(dsh_cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, dict]:
    out = subprocess.run(
        [*dsh_cmd, "sessions", "--all", "--json"], cwd=cwd, env=env, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    return {row["id"]: row for row in json.loads(out.stdout)}


def shortest_unique_start(word: str, others: list[str]) -> str:
    for length in range(1, len(word) + 1):
        if not any(other.startswith(word[:length]) for other in others):
            return word[:length]
    raise AssertionError(f"{word} is a start of another")


def test_titles_and_prefixes_name_sessions(launch: Launch, dsh_cmd, dsh_env, tmp_path: Path) -> None:
    def dsh(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*dsh_cmd, *args], cwd=tmp_path, env=dsh_env, capture_output=True, text=True, timeout=30)

    ids = []
    for title in ("alpha work", "alpine"):
        d = launch(cwd=tmp_path, env=dsh_env, rows=24, cols=90)
        d.wait_for("PROMPT")
        d.type_line(f"/rename {title}")
        d.wait_for(f"session renamed: {title}")
        d.send(C_B + "d")
        assert d.wait_exit() == 0
        (new,) = [sid for sid, row in listed(dsh_cmd, dsh_env, tmp_path).items() if row["title"] == title]
        ids.append(new)
    alpha, alpine = ids

    ambiguous = dsh("stop", "alp")
    assert ambiguous.returncode == 2
    assert "could be any of 2 sessions" in ambiguous.stderr
    assert alpha in ambiguous.stderr and alpine in ambiguous.stderr

    a = launch("attach", "alpha-work", cwd=tmp_path, env=dsh_env, rows=24, cols=90)  # the title's slug
    a.wait_for("PROMPT")
    assert listed(dsh_cmd, dsh_env, tmp_path)[alpha]["state"] == "attached"
    a.send(C_B + "d")
    assert a.wait_exit() == 0

    random_part = alpine.partition("-")[2]
    prefix = shortest_unique_start(random_part, [alpha.partition("-")[2], alpha])
    stopped = dsh("stop", prefix)
    assert stopped.returncode == 0 and f"stopped session {alpine}" in stopped.stdout

    not_running = dsh("stop", "alpine")  # a stopped session's title: it says so, by its id
    assert not_running.returncode == 1 and f"session {alpine} is not running (closed)" in not_running.stderr
    nobody = dsh("stop", "../nobody")
    assert nobody.returncode == 2 and "no session named '../nobody'" in nobody.stderr

    r = launch("--resume", "alpine", cwd=tmp_path, env=dsh_env, rows=24, cols=90)  # a closed one, by title
    r.wait_for(f"resumed session {alpine}")
    r.type_line("/quit")
    r.wait_exit()
