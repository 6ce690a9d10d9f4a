"""Shared fixtures: a private DSH_HOME for every test, and the command that runs the installed dsh."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from dsh.store.index import SessionIndex

REPO = Path(__file__).resolve().parent.parent

# The terminal the tests are run from is not the one under test: a tmux says so in TERM_PROGRAM, and
# dsh would draw emoji as that tmux does (dsh.term.widths). Tests that want a tmux start their own.
for _name in ("TERM_PROGRAM", "TERM_PROGRAM_VERSION"):
    os.environ.pop(_name, None)


@pytest.fixture(autouse=True)
def dsh_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own DSH_HOME, so nothing touches the real ~/.dsh; its session hosts (which
    outlive their clients by design) are ended when the test is over."""
    home = tmp_path_factory.mktemp("dsh-home")
    monkeypatch.setenv("DSH_HOME", str(home))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)  # sockets under DSH_HOME/run, per test
    for name in list(os.environ):
        if name.startswith("DSH_") and name != "DSH_HOME":
            monkeypatch.delenv(name)
    yield home
    end_processes_of(home)


def processes_of(home: Path) -> list[int]:
    """Processes started with this DSH_HOME (hosts, and what runs in their panes), this one aside."""
    marker = f"DSH_HOME={home}".encode() + b"\0"
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if marker in environ or environ.endswith(marker[:-1]):
            found.append(int(entry))
    return found


def is_spawner(pid: object) -> bool:
    """Whether `pid` is a dsh spawner (its process name), not a host or anything else."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "dsh-spawner"
    except OSError:
        return False


def end_processes_of(home: Path) -> None:
    """SIGTERM (a host then closes its session as it should), then SIGKILL what is left."""
    pids = processes_of(home)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + 3.0
        while pids and time.monotonic() < deadline:
            pids = [pid for pid in pids if _running(pid)]
            if pids:
                time.sleep(0.05)
        if not pids:
            return


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


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
    env.pop("XDG_RUNTIME_DIR", None)
    # Snapshots at most twice a second (the least the config allows): restore tests wait for one.
    env["DSH_SNAPSHOT_DEBOUNCE"] = "0.5"
    return env


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A session root for index tests: `tmp_path / "sessions"` (made by the tests that need it)."""
    return tmp_path / "sessions"


@pytest.fixture
def index(tmp_path: Path, root: Path) -> Iterator[SessionIndex]:
    """A SessionIndex over `root`, its database beside it, closed after the test."""
    from dsh.store.index import SessionIndex

    idx = SessionIndex(tmp_path / "session-query.db", root)
    yield idx
    idx.close()


@pytest.fixture
def outside(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A folder outside DSH_HOME whose files must stay byte-for-byte as they are (tests/hostile.py)."""
    from tests.hostile import Outside

    folder = tmp_path / "outside"
    folder.mkdir()
    return Outside(folder)
