"""Shared fixtures: a private DSH_HOME for every test, and the command that runs the installed dsh."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def dsh_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own DSH_HOME, so nothing touches the real ~/.dsh."""
    home = tmp_path_factory.mktemp("dsh-home")
    monkeypatch.setenv("DSH_HOME", str(home))
    for name in list(os.environ):
        if name.startswith("DSH_") and name != "DSH_HOME":
            monkeypatch.delenv(name)
    return home


@pytest.fixture
def dsh_cmd() -> list[str]:
    """argv prefix that runs the installed `dsh` console script of this interpreter."""
    script = Path(sys.executable).parent / "dsh"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "dsh"]


@pytest.fixture
def dsh_env(dsh_home: Path) -> dict[str, str]:
    """Environment for a dsh subprocess: the test's DSH_HOME, a plain shell, a known TERM."""
    env = dict(os.environ)
    env["DSH_HOME"] = str(dsh_home)
    env["SHELL"] = "/bin/sh"
    env["TERM"] = "xterm-256color"
    env.pop("TMUX", None)
    return env


@pytest.fixture
def outside(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A folder outside DSH_HOME whose files must stay byte-for-byte as they are (tests/hostile.py)."""
    from tests.hostile import Outside

    folder = tmp_path / "outside"
    folder.mkdir()
    return Outside(folder)
