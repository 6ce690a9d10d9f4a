"""Shell completions generated from the parser, installed with `dsh completion --install`, and asked
of real bash, zsh and fish: every subcommand and option, and the sessions there are (ids, titles)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dsh.cli import build_parser
from dsh.cli.completion import LOADERS, SHELLS, commands, install_path, script
from dsh.config import load_config
from dsh.store.store import Store
from tests.e2e.ptydriver import PtyDriver

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
BASH_COMPLETION = Path("/usr/share/bash-completion/bash_completion")


def parser_words() -> tuple[set[str], set[str]]:
    """Every subcommand and every option flag the parser knows (help suppressed aside)."""
    names: set[str] = set()
    flags: set[str] = set()

    def walk(p: argparse.ArgumentParser) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    names.add(name)
                    walk(sub)
            elif action.help != argparse.SUPPRESS:
                flags.update(action.option_strings)

    walk(build_parser())
    return names, flags


def test_every_subcommand_and_option_is_in_every_script() -> None:
    names, flags = parser_words()
    assert {"attach", "stop", "sessions", "config", "completion"} <= names
    for shell in SHELLS:
        text = script(shell)
        for name in names:
            assert name in text, (shell, name)
        for flag in flags:
            shown = flag if shell != "fish" else (f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}")
            assert shown in text, (shell, flag)
    kinds = {c.name: c.positionals for c in commands(build_parser())}
    assert kinds["attach"] == ["sessions"] and kinds["stop"] == ["sessions"]


def test_the_shipped_files_are_the_loaders() -> None:
    for shell, name in (("bash", "dsh"), ("zsh", "_dsh"), ("fish", "dsh.fish")):
        assert (REPO / "share" / "completions" / name).read_text() == LOADERS[shell]


@pytest.fixture
def home(tmp_path: Path, dsh_home: Path) -> dict[str, str]:
    """Two sessions in the store, one titled; a user's home with dsh's completions installed in it."""
    store = Store(load_config(env={}))
    titled = store.create_session(str(tmp_path))
    titled.set_title("Release notes")
    titled.close()
    plain = store.create_session(str(tmp_path))
    plain.close()
    store.close()
    user = tmp_path / "user"
    user.mkdir()
    env = {
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(user),
        "DSH_HOME": str(dsh_home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "ids": f"{titled.id} {plain.id}",
    }
    done = subprocess.run(
        [str(BIN / "dsh"), "completion", "--install"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    for shell in SHELLS:
        path = install_path(shell, env)
        assert str(path) in done.stdout and path.read_text() == LOADERS[shell]
    assert "fpath=(~/.local/share/zsh/site-functions $fpath)" in done.stdout
    return env


def test_bash_completes_commands_options_and_sessions(home: dict[str, str]) -> None:
    assert BASH_COMPLETION.exists(), "bash-completion is needed (.ci/run installs it)"
    titled, plain = home["ids"].split()
    # bash-completion finds the installed file by itself (in XDG_DATA_HOME's default, under HOME).
    probe = f"""
source {BASH_COMPLETION}
__load_completion dsh || echo NOT-LOADED
comp() {{ COMP_WORDS=("$@"); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); COMP_LINE="$*"; COMP_POINT=${{#COMP_LINE}}
  _dsh; echo "$*: ${{COMPREPLY[*]}}"; }}
comp dsh ""
comp dsh st
comp dsh attach ""
comp dsh stop rel
comp dsh sessions --j
comp dsh --resume ""
"""
    done = subprocess.run(["bash", "-c", probe], env=home, capture_output=True, text=True, timeout=60)
    out = done.stdout
    assert "NOT-LOADED" not in out, done.stderr
    lines = dict(line.split(": ", 1) for line in out.splitlines())
    assert {"attach", "stop", "sessions", "config", "completion"} <= set(lines["dsh "].split())
    assert lines["dsh st"] == "stop"
    assert set(lines["dsh attach "].split()) == {titled, plain, "release-notes"}
    assert lines["dsh stop rel"] == "release-notes"
    assert lines["dsh sessions --j"] == "--json"
    assert titled in lines["dsh --resume "].split()


def test_fish_completes_commands_options_and_sessions(home: dict[str, str]) -> None:
    assert shutil.which("fish"), "fish is needed (.ci/run installs it)"
    titled, _plain = home["ids"].split()

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "-c", f"complete -C{line!r}"], env=home, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    # HOME is a new folder: fish finds the installed file in its completions folder by itself.
    assert any(row.startswith("attach\t") for row in complete("dsh "))
    assert [row.split("\t")[0] for row in complete("dsh st")] == ["stop"]
    rows = complete("dsh attach ")
    assert f"{titled}\tRelease notes" in rows and f"release-notes\t{titled}" in rows
    assert "--install" in [row.split("\t")[0] for row in complete("dsh completion --")]


@pytest.mark.slow
def test_zsh_completes_commands_and_sessions(home: dict[str, str]) -> None:
    assert shutil.which("zsh"), "zsh is needed (.ci/run installs it)"
    titled, plain = home["ids"].split()
    env = {k: v for k, v in home.items() if k != "ids"}
    d = PtyDriver(["zsh", "-f"], env=env, cwd=Path(env["HOME"]), rows=30, cols=160)
    try:
        # As the README says: the folder on fpath before compinit.
        d.send("fpath=(~/.local/share/zsh/site-functions $fpath); autoload -U compinit; compinit -u; PS1=z'sh> '\r")
        d.wait_until(lambda s: "zsh>" in s.splitlines(), timeout=30, what="the prompt")  # (the line typed shows z'sh)
        d.send("dsh st\t")
        d.wait_until(lambda s: "zsh> dsh stop" in s.splitlines(), timeout=30, what="stop completed")
        d.send("\x15dsh attach \t")  # C-u clears the line; two sessions: zsh lists them
        screen = d.wait_for("release-notes", timeout=30)
        assert titled in screen and plain in screen and "Release notes" in screen
        d.send("\x15dsh \t")
        screen = d.wait_for("completion", timeout=30)
        assert "attach" in screen and "stop" in screen and "sessions" in screen
    finally:
        d.close()
