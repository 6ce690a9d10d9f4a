"""The installed `dsh` command: --version, --help, a bad DSH_HOME, and staying light on headless paths."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dsh import __version__


def run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_version(dsh_cmd: list[str], dsh_env: dict[str, str]) -> None:
    got = run([*dsh_cmd, "--version"], dsh_env)
    assert got.returncode == 0 and got.stdout.strip() == f"dsh {__version__}"


def test_help_names_the_commands(dsh_cmd: list[str], dsh_env: dict[str, str]) -> None:
    got = run([*dsh_cmd, "--help"], dsh_env)
    assert got.returncode == 0
    for word in ["--resume", "--continue", "sessions", "config", "-o KEY=VALUE"]:
        assert word in got.stdout
    for sub in ["sessions", "config"]:
        got = run([*dsh_cmd, sub, "--help"], dsh_env)
        assert got.returncode == 0 and f"dsh {sub}" in got.stdout


@pytest.mark.parametrize(
    "argv", [["sessions"], ["sessions", "--all", "--json"], ["config"], ["config", "set", "a", "1"]]
)
def test_dsh_home_pointing_at_a_file(
    argv: list[str], dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "not-a-dir"
    home.write_text("keep me")
    env = {**dsh_env, "DSH_HOME": str(home)}
    got = run([*dsh_cmd, *argv], env)
    assert got.returncode == 2
    assert got.stderr == f"dsh: DSH_HOME {home} is not a directory\n"
    assert got.stdout == ""
    assert home.read_text() == "keep me"


def test_usage_errors_exit_2(dsh_cmd: list[str], dsh_env: dict[str, str]) -> None:
    got = run([*dsh_cmd, "sessions", "--bogus"], dsh_env)
    assert got.returncode == 2 and "unrecognized arguments" in got.stderr and "Traceback" not in got.stderr


def test_headless_commands_do_not_load_the_ui(dsh_env: dict[str, str], tmp_path: Path) -> None:
    code = (
        "import io, sys, contextlib\n"
        "from dsh.cli import main\n"
        "for argv in (['sessions', '--all', '--json'], ['sessions'], ['config', '--show-origin']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        assert main(argv) == 0\n"
        "ui = ('prompt_toolkit', 'pyte', 'ptyprocess')\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ui)\n"
        "print(heavy)\n"
    )
    got = run([sys.executable, "-c", code], dsh_env, cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == "[]"
