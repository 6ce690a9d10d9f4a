"""File modes never depend on the umask: every file dsh writes under its home is 0600, every folder 0700."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.config import set_personal
from dsh.ownlog import log_crash, log_line
from dsh.persist.records import Snapshot, TabRecord
from dsh.persist.snapshot import write_snapshot
from dsh.store.history_file import PromptHistory
from tests.hostile import exited_pane, make_sessions, run_dsh
from tests.test_app_harness import plain_shell, run, running_app  # noqa: F401  (plain_shell: autouse)


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def modes(home: Path) -> dict[str, int]:
    out = {}
    # os.walk passes over a folder that vanishes mid-walk (rglob raises); a file, below.
    found = [home]
    for folder, dirs, files in os.walk(home):
        found += [Path(folder, name) for name in dirs + files]
    for path in found:
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue  # gone between the listing and the look (SQLite's -wal and -shm come and go)
        out[str(path.relative_to(home)) + ("/" if stat.S_ISDIR(info.st_mode) else "")] = stat.S_IMODE(info.st_mode)
    return out


def test_everything_dsh_writes_is_private_under_umask_0(open_umask: None, dsh_home: Path, tmp_path: Path) -> None:
    os.chmod(dsh_home, 0o700)
    make_sessions(tmp_path, "one")
    pane = exited_pane("p1")
    tab = TabRecord(id="t1", title="main", layout={"pane": "p1"}, active_pane="p1")
    write_snapshot(Snapshot(session_id="s1", tabs=[tab], panes=[pane]), {"p1": b"tail"})
    PromptHistory.for_workspace(str(tmp_path)).append("echo hi")
    log_line("a line")
    log_crash("Traceback: pretend")
    set_personal("ui.mouse", "false")
    from dsh.config import load_config
    from dsh.store.store import Store

    Store(load_config(env={})).refresh()
    found = modes(dsh_home)
    loose = {name: f"{mode:04o}" for name, mode in found.items() if mode != (0o700 if name.endswith("/") else 0o600)}
    assert loose == {}
    for expected in (
        "history/",
        "log/dsh.log",
        "log/crash.log",
        "state/s1/history/p1.tail",
        "state/s1/snapshot.json",
        "session-query.db",
        "config.toml",
    ):
        assert any(name.startswith(expected) for name in found), expected


def test_the_app_and_the_listing_keep_the_home_private_under_umask_0(
    open_umask: None, dsh_home: Path, tmp_path: Path, dsh_cmd: list[str], dsh_env: dict[str, str]
) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("echo modes")
            await h.wait_output(h.pane, "modes")

    run(body)
    assert run_dsh(dsh_cmd, dsh_env, "sessions", "--all").returncode == 0
    found = modes(dsh_home)
    loose = {name: f"{mode:04o}" for name, mode in found.items() if mode != (0o700 if name.endswith("/") else 0o600)}
    assert loose == {}
    assert any(name.endswith(".jsonl") for name in found) and any(name.startswith("history/") for name in found)


def test_a_history_file_an_older_dsh_left_0644_is_made_0600(dsh_home: Path) -> None:
    history = PromptHistory.for_workspace("/w")
    history.path.parent.mkdir(mode=0o700)
    history.path.write_text("\n# old\n+ls\n")
    os.chmod(history.path, 0o644)
    history.append("echo new")
    assert stat.S_IMODE(os.stat(history.path).st_mode) == 0o600
    assert history.load() == ["ls", "echo new"]
