"""`dsh config` through the installed command: effective TOML, origins, get and set."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)


def test_prints_effective_config_as_toml(dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path) -> None:
    (dsh_home / "config.toml").write_text('[ui]\nprefix = "c-a"\n')
    env = {**dsh_env, "DSH_SCROLLBACK": "123"}
    got = run([*dsh_cmd, "-o", "ui.mouse=false", "config"], env)
    assert got.returncode == 0, got.stderr
    doc = tomllib.loads(got.stdout)
    assert doc["ui"] == {
        "prefix": "c-a",
        "mouse": False,
        "escape_key": "c-]",
        "keyboard": "follow",
        "copy_keys": "vi",
        "set_title": True,
        "window_size": "smallest",
    }
    assert doc["term"]["scrollback"] == 123 and doc["store"]["root"] == "sessions"
    assert got.stderr == ""


def test_show_origin_names_each_layer(dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path) -> None:
    personal = dsh_home / "config.toml"
    personal.write_text('[ui]\nprefix = "c-a"\n')
    env = {**dsh_env, "DSH_SCROLLBACK": "123"}
    got = run([*dsh_cmd, "config", "--show-origin", "-o", "ui.mouse=false"], env)
    assert got.returncode == 0, got.stderr
    lines = dict(reversed(line.split("\t")) for line in got.stdout.splitlines())
    assert lines['ui.prefix = "c-a"'] == f"personal: {personal}"
    assert lines["term.scrollback = 123"] == "env: DSH_SCROLLBACK"
    assert lines["ui.mouse = false"] == "flag: -o ui.mouse=false"
    # A value naming a place says where that is, resolved.
    assert lines[f'store.root = "sessions"  # {dsh_home / "sessions"}'].startswith("base: ")


def test_the_config_shows_the_session_root_it_resolves_to(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path
) -> None:
    got = run([*dsh_cmd, "config"], dsh_env)
    assert f'root = "sessions"  # {dsh_home / "sessions"}' in got.stdout.splitlines()


def test_a_reader_that_leaves_early_is_no_error(dsh_cmd: list[str], dsh_env: dict[str, str]) -> None:
    import subprocess

    shell = subprocess.run(
        f"{' '.join(dsh_cmd)} config --show-origin | head -1",
        shell=True,
        env=dsh_env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "Traceback" not in shell.stderr and shell.stdout.count("\n") == 1


def test_set_then_get(dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path) -> None:
    personal = dsh_home / "config.toml"
    personal.write_text('# mine\n[keys]\n"c-t" = "/tab new"\n')
    got = run([*dsh_cmd, "config", "set", "term.scrollback", "5000"], dsh_env)
    assert got.returncode == 0, got.stderr
    assert got.stdout == f"term.scrollback = 5000  (in {personal})\n"
    assert tomllib.loads(personal.read_text()) == {"keys": {"c-t": "/tab new"}, "term": {"scrollback": 5000}}
    got = run([*dsh_cmd, "config", "get", "term.scrollback"], dsh_env)
    assert (got.returncode, got.stdout) == (0, "5000\n")
    got = run([*dsh_cmd, "config", "get", "--show-origin", "ui.prefix"], dsh_env)
    assert got.stdout.startswith("base: ") and got.stdout.endswith('\t"c-b"\n')
    got = run([*dsh_cmd, "config", "--show-origin", "get", "ui.prefix"], dsh_env)
    assert got.stdout.startswith("base: ") and got.stdout.endswith('\t"c-b"\n')
    # A VALUE may start with "-": it reaches the schema, which refuses this one and writes nothing.
    got = run([*dsh_cmd, "config", "set", "term.scrollback", "-1"], dsh_env)
    assert got.returncode == 1 and "term.scrollback: must be from 100 to 1,000,000, got '-1'" in got.stderr
    assert tomllib.loads(personal.read_text())["term"]["scrollback"] == 5000
    got = run([*dsh_cmd, "config", "get", "no.such"], dsh_env)
    assert (got.returncode, got.stderr) == (1, "dsh: config: no.such is not set\n")


def test_set_refuses_bad_values_and_broken_files(dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path) -> None:
    got = run([*dsh_cmd, "config", "set", "term.scrollback", "lots"], dsh_env)
    assert got.returncode == 1
    assert got.stderr == "dsh: config: term.scrollback: expected an integer, got 'lots'; not changed\n"
    personal = dsh_home / "config.toml"
    personal.write_text("[ui\nprefix = 1\n")
    got = run([*dsh_cmd, "config", "set", "ui.prefix", "c-a"], dsh_env)
    assert got.returncode == 1 and got.stderr.startswith(f"dsh: config: {personal}:1: syntax error")
    assert personal.read_text() == "[ui\nprefix = 1\n"


def test_syntax_error_is_reported_and_dsh_carries_on(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path
) -> None:
    personal = dsh_home / "config.toml"
    personal.write_text('[ui]\nprefix = "c-a"\nmouse = \n')
    got = run([*dsh_cmd, "config"], dsh_env)
    assert got.returncode == 0
    assert got.stderr.startswith(f"dsh: warning: {personal}:3: syntax error: ")
    assert got.stderr.endswith("; using the other layers\n") and got.stderr.count("\n") == 1
    assert tomllib.loads(got.stdout)["ui"]["prefix"] == "c-b"


def test_usage_errors(dsh_cmd: list[str], dsh_env: dict[str, str]) -> None:
    for argv in (["config", "set", "x"], ["config", "get"], ["config", "frobnicate"]):
        got = run([*dsh_cmd, *argv], dsh_env)
        assert got.returncode == 2 and got.stderr.startswith("usage: dsh config"), argv
        assert "Traceback" not in got.stderr
