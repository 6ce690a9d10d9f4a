"""The socket directory: private to the user, refused when it is not, and socket paths that fit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dsh.rundir import SOCKET_PATH_MAX, RunDirError, host_log_path, run_dir, socket_path
from dsh.store.ids import InvalidSessionId


def test_the_run_dir_is_made_private_under_dsh_home(dsh_home: Path) -> None:
    path = run_dir()
    assert path == dsh_home / "run"
    assert path.stat().st_mode & 0o777 == 0o700
    assert socket_path("s1") == path / "s1.sock"


def test_xdg_runtime_dir_is_used_when_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = tmp_path / "xdg"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert run_dir() == runtime / "dsh"


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o777])
def test_a_run_dir_others_can_enter_is_refused_with_the_fix(dsh_home: Path, mode: int) -> None:
    (dsh_home / "run").mkdir(mode=mode)
    os.chmod(dsh_home / "run", mode)
    with pytest.raises(RunDirError, match=r"chmod 700 .*/run"):
        run_dir()


def test_a_symlinked_run_dir_is_refused(dsh_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (dsh_home / "run").symlink_to(elsewhere)
    with pytest.raises(RunDirError, match="symbolic link"):
        run_dir()


def test_a_socket_path_too_long_for_the_kernel_falls_back_to_a_short_private_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("DSH_HOME", str(deep))
    path = socket_path("20261201T000000Z-abcdef")
    assert len(os.fsencode(str(path))) <= SOCKET_PATH_MAX
    assert path.parent.stat().st_mode & 0o777 == 0o700 and path.parent.stat().st_uid == os.getuid()
    assert socket_path("20261201T000000Z-abcdef") == path  # the same id finds the same socket


def test_ids_never_become_paths() -> None:
    with pytest.raises(InvalidSessionId):
        socket_path("../evil")
    with pytest.raises(InvalidSessionId):
        host_log_path("a/b")
