"""The installed `dsh` command: --version, --help, a bad DSH_HOME, and staying light on headless paths."""

from __future__ import annotations

import re
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


REPO = Path(__file__).resolve().parent.parent
COMPLETIONS = [REPO / "share" / "completions" / name for name in ("dsh", "_dsh", "dsh.fish")]


def test_man_page_documents_the_contracts() -> None:
    from dsh.config import ENV_KEYS
    from dsh.store.summary import JSON_KEYS

    page = (REPO / "man" / "dsh.1").read_text().replace("\\-", "-")
    for section in ["SYNOPSIS", "COMMANDS", "FILES", "ENVIRONMENT", "SESSION LOG FORMAT", "JSON OUTPUT", "EXIT STATUS"]:
        assert f".SH {section}" in page
    json_section = page.split(".SH JSON OUTPUT", 1)[1].split(".SH ", 1)[0]
    for key in JSON_KEYS:
        assert re.search(rf"^\.BR? (.*\W)?{key}\b", json_section, re.MULTILINE), key
    for name in [*ENV_KEYS, "DSH_HOME"]:
        assert f".B {name}\n" in page, name
    for word in [
        "--resume",
        "--continue",
        "dsh sessions",
        "dsh config",
        "session-query.db",
        "session has no recorded workspace",
        '"type": "session", "version": 1',
    ]:
        assert word in page, word


def test_bash_completion_completes_commands_options_keys_and_ids(dsh_env: dict[str, str], dsh_home: Path) -> None:
    from dsh.store.log import SessionLog

    log = SessionLog.create(dsh_home / "sessions", "/w")
    log.close()
    script = (
        f"source {COMPLETIONS[0]}\n"
        't() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _dsh;'
        ' echo "${COMPREPLY[*]}"; }\n'
        "t dsh se\nt dsh sessions --a\nt dsh config s\nt dsh config set ui.m\nt dsh --resume ''\n"
    )
    env = {**dsh_env, "PATH": f"{Path(sys.executable).parent}:{dsh_env['PATH']}"}
    got = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert got.stdout.splitlines() == ["sessions send", "--all --archived --agents", "set", "ui.mouse", log.id], (
        got.stderr
    )


def test_the_quick_parse_of_dsh_and_dsh_attach_is_what_the_parser_makes() -> None:
    from dsh.cli import build_parser, quick_args

    for words in (
        [],
        ["attach"],
        ["attach", "20261201T000000Z-abcdef"],
        ["attach", "not an id"],
        ["attach", ""],
        ["sessions", "--all", "--json", "--version-first"],  # what another machine's picker asks
        ["sessions", "--all", "--json", "--version-first", "--agents"],
        ["sessions", "--version-first", "--json", "--all"],
    ):
        quick = quick_args(words)
        assert quick is not None, words
        assert vars(quick) == vars(build_parser().parse_args(words)), words
    for words in (
        ["--continue"],
        ["-o", "ui.prefix=c-a"],
        ["attach", "-o", "ui.mouse=false"],
        ["attach", "--help"],
        ["attach", "one", "two"],
        ["stop", "x"],
        ["sessions"],
        ["sessions", "--all", "--json"],
        ["sessions", "--all", "--json", "--version-first", "--archived"],
        ["sessions", "--all", "--json", "--version-first", "--all"],
        ["attached"],
    ):
        assert quick_args(words) is None, words  # the parser's: options, errors, help, other commands


def test_the_sessions_parser_alone_parses_as_the_whole_one() -> None:
    from dsh.cli import build_parser

    for words in (
        ["sessions"],
        ["sessions", "--all", "--json"],
        ["sessions", "--agents", "--all", "-o", "resume.agents.codex=false"],
        ["sessions", "--archived"],
    ):
        alone, whole = vars(build_parser(only="sessions").parse_args(words)), vars(build_parser().parse_args(words))
        assert alone == whole, words
    assert len(build_parser(only="sessions")._subparsers._group_actions[0].choices) == 1  # type: ignore[union-attr]
