"""A home, or a folder in it, that another user can write or owns: dsh refuses to start, with one line
naming the path and the command that fixes it (as ssh does); a home dsh makes itself is 0700."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from dsh.safefile import UnsafePathError, check_folder
from dsh.store.workspace import workspace_partition
from tests.hostile import assert_clean, make_sessions, run_dsh

PLANTED = '[keys]\n"c-t" = "quit"\n'  # what another user wrote into a 0777 home's config


@pytest.mark.parametrize("command", [["sessions", "--all"], ["config"], ["config", "set", "ui.mouse", "false"]])
def test_a_home_others_can_write_is_refused(
    command: list[str], dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    make_sessions(tmp_path, "mine")
    (dsh_home / "config.toml").write_text(PLANTED)
    before = (dsh_home / "config.toml").read_bytes()
    os.chmod(dsh_home, 0o777)
    got = run_dsh(dsh_cmd, dsh_env, *command)
    assert got.returncode == 2 and got.stdout == ""
    assert_clean(got)
    assert got.stderr == (
        f"dsh: refusing to use {dsh_home}: it can be written by other users (mode 0777); fix: chmod 700 {dsh_home}\n"
    )
    assert (dsh_home / "config.toml").read_bytes() == before
    os.chmod(dsh_home, 0o700)
    assert run_dsh(dsh_cmd, dsh_env, "sessions", "--all").returncode == 0


def test_a_home_others_can_only_read_is_used(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    [sid] = make_sessions(tmp_path, "mine")
    os.chmod(dsh_home, 0o755)
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 0 and sid in got.stdout


@pytest.mark.parametrize("folder", ["sessions", "state", "history", "log"])
def test_a_folder_in_the_home_others_can_write_is_refused(
    folder: str, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    make_sessions(tmp_path, "mine")
    path = dsh_home / folder
    path.mkdir(exist_ok=True)
    os.chmod(path, 0o775)
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 2
    assert_clean(got)
    fix = f"fix: chmod 700 {path}"
    assert got.stderr == f"dsh: refusing to use {path}: it can be written by other users (mode 0775); {fix}\n"


def test_a_session_folder_others_can_write_is_skipped_and_the_rest_listed(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    [kept] = make_sessions(tmp_path / "a", "kept")
    [hidden] = make_sessions(tmp_path / "b", "planted?")
    part = dsh_home / "sessions" / workspace_partition(str(tmp_path / "b"))
    os.chmod(part, 0o777)
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 0
    assert_clean(got)
    assert kept in got.stdout and hidden not in got.stdout
    fix = f"fix: chmod 700 {part}"
    assert f"{part}: can be written by other users (mode 0777); {fix}; its sessions are not listed" in got.stderr


def test_a_folder_another_user_owns_is_refused_with_the_fix() -> None:
    uid = os.getuid()
    other = 4242 if uid != 4242 else 4243
    fake = os.stat_result((stat.S_IFDIR | 0o700, 0, 0, 1, other, 0, 0, 0, 0, 0))

    import dsh.safefile as safefile

    problem = safefile.folder_problem("/h/.dsh", fake)
    assert problem == f"is owned by uid {other}, not by you (uid {uid}); fix: chown {uid} /h/.dsh"
    root_owned = os.stat_result((stat.S_IFDIR | 0o755, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    assert safefile.folder_problem("/srv/dsh", root_owned) is None  # root may own it, as ssh allows


def test_a_home_dsh_makes_is_0700_whatever_the_umask(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "new" / "home"
    env = {**dsh_env, "DSH_HOME": str(home)}
    got = subprocess.run(
        ["sh", "-c", 'umask 000; exec "$@"', "sh", *dsh_cmd, "sessions", "--all"],
        env=env,
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert got.returncode == 0, got.stderr
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700


def test_a_config_file_others_can_write_is_skipped_with_the_fix(dsh_home: Path) -> None:
    from dsh.config import load_config

    path = dsh_home / "config.toml"
    path.write_text('[ui]\nprefix = "c-t"\n')
    os.chmod(path, 0o666)
    config = load_config(env={})
    assert config.get("ui.prefix") == "c-b"
    assert config.warnings == [
        f"{path}: cannot use: can be written by other users (mode 0666); fix: chmod 600 {path}; using the other layers"
    ]


def test_check_folder_names_what_is_wrong(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePathError, match="is a FIFO, not a folder"):
        check_folder(fifo)


@pytest.mark.slow
def test_dsh_itself_refuses_a_home_others_can_write(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    from tests.e2e.ptydriver import PtyDriver

    os.chmod(dsh_home, 0o777)
    driver = PtyDriver(dsh_cmd, env=dsh_env, cwd=tmp_path, rows=24, cols=200)
    try:
        assert driver.wait_exit() == 2
        screen = driver.text()
    finally:
        driver.close()
    assert f"dsh: refusing to use {dsh_home}: it can be written by other users (mode 0777); fix: chmod 700" in screen
    assert not (dsh_home / "sessions").exists()  # nothing was started
