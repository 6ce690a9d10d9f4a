"""Config values are typed and bounded by one schema: a bad value is reported with its file (or variable,
or flag) and key, and the value below it is kept; `dsh config set` checks before it writes and explains
a read-only home."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from dsh.config import ConfigError, load_config, set_personal
from dsh.config.schema import BOUNDS, fit_value
from tests.hostile import assert_clean, make_sessions, read_only_mount, run_dsh

BAD = {
    "ui.prefix": ("5", "a plain character would be taken from everything typed"),
    "ui.escape_key": ('"ctrl-]"', "not a key name"),
    "ui.copy_keys": ('"vim"', 'must be "vi" or "emacs"'),
    "ui.window_size": ('"largest"', 'must be "smallest" or "latest"'),
    "term.emoji_width": ('"huge"', 'must be "auto" or "wide" or "narrow"'),
    "term.clipboard": ('"yes"', 'must be "on" or "external" or "off"'),
    "ui.keyboard": ('"tmux"', 'must be "follow" or "pane"'),
    "term.scrollback": ("-5", "must be from 100 to 1,000,000"),
    "term.tail_bytes": ("1000000000000", "must be from 1,024 to 16,777,216"),
    "snapshot.debounce_seconds": ("-1", "must be from 0.5 to 3600"),
    "term.term": ('"xterm\\u001b[31m"', "must be a terminal type name"),
    "store.root": ('""', "must name a folder"),
    "layout.main_pane_height": ('"lots"', "must be a number of cells or a percentage"),
    "layout.main_pane_width": ('"140%"', "must be a number of cells or a percentage"),
    "attention.notify": ('"loud"', 'must be "terminal" or "bell" or "off"'),
    "machines.timeout_seconds": ("1000", "must be from 0.5 to 600"),
}
DEFAULTS = {
    "ui.prefix": "c-b",
    "ui.escape_key": "c-]",
    "ui.copy_keys": "vi",
    "ui.window_size": "smallest",
    "term.emoji_width": "auto",
    "term.clipboard": "external",
    "ui.keyboard": "follow",
    "term.scrollback": 10000,
    "term.tail_bytes": 65536,
    "snapshot.debounce_seconds": 2.0,
    "term.term": "xterm-256color",
    "store.root": "sessions",
    "layout.main_pane_height": "24",
    "layout.main_pane_width": "80",
    "attention.notify": "terminal",
    "machines.timeout_seconds": 10.0,
}


def test_every_bounded_key_is_tested_here() -> None:
    assert {".".join(parts) for parts in BOUNDS} == set(BAD)


def test_each_bad_value_in_the_personal_config_names_file_and_key_and_keeps_the_default(
    dsh_home: Path, dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    path = dsh_home / "config.toml"
    lines: dict[str, list[str]] = {}
    for key, (value, _why) in BAD.items():
        table, name = key.split(".")
        lines.setdefault(table, []).append(f"{name} = {value}")
    path.write_text("".join(f"[{table}]\n" + "\n".join(entries) + "\n" for table, entries in lines.items()))
    config = load_config(env={})
    for key, (_value, why) in BAD.items():
        assert config.get(key) == DEFAULTS[key], key
        assert any(w.startswith(f"personal: {path}: {key}: {why}") for w in config.warnings), (key, config.warnings)
    [sid] = make_sessions(tmp_path, "still listed")
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 0 and sid in got.stdout
    assert_clean(got)
    assert got.stderr.count(f"personal: {path}: ") == len(BAD)


def test_a_bad_value_above_a_good_one_keeps_the_good_one(dsh_home: Path) -> None:
    (dsh_home / "config.toml").write_text("[term]\nscrollback = 5000\n")
    config = load_config(["term.scrollback=-5"], env={"DSH_PREFIX": "x"})
    assert config.get("term.scrollback") == 5000 and config.get("ui.prefix") == "c-b"
    assert "-o term.scrollback=-5: term.scrollback: must be from 100 to 1,000,000, got -5; keeping 5000" in (
        config.warnings
    )
    assert any(w.startswith("DSH_PREFIX=x: ui.prefix: a plain character") for w in config.warnings)


@pytest.mark.parametrize("key", sorted(BAD))
def test_config_set_refuses_a_bad_value_before_writing(key: str, dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text("# mine\n")
    value = BAD[key][0].strip('"')
    with pytest.raises(ConfigError, match=f"{key}: {BAD[key][1]}"):
        set_personal(key, value)
    assert path.read_text() == "# mine\n"


def test_good_values_pass_the_schema() -> None:
    assert fit_value(("ui", "prefix"), "C-a", "c-b") == ("C-a", None)
    assert fit_value(("ui", "prefix"), "f12", "c-b") == ("f12", None)
    assert fit_value(("snapshot", "debounce_seconds"), 1, 2.0) == (1.0, None)
    assert fit_value(("term", "scrollback"), 100, 10000) == (100, None)


def test_config_set_on_a_read_only_home_explains_it(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with read_only_mount(tmp_path) as home:
        if home is not None:  # a real read-only filesystem
            got = run_dsh(dsh_cmd, {**dsh_env, "DSH_HOME": str(home)}, "config", "set", "ui.prefix", "c-q")
            assert got.returncode == 1
            assert_clean(got)
            assert got.stderr.startswith(f"dsh: config: cannot write {home / 'config.toml'}: Read-only file system.")
            assert "DSH_HOME" in got.stderr and "dsh -o KEY=VALUE" in got.stderr
            assert (home / "config.toml").read_text() == '[ui]\nprefix = "c-a"\n'
            return
    # No mount here: the kernel's answer for a read-only filesystem, where the write is made.
    home = Path(os.environ["DSH_HOME"])

    def read_only(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr("dsh.config.personal.atomic_write", read_only)
    with pytest.raises(ConfigError, match=f"cannot write {home / 'config.toml'}: Read-only file system. The dsh home"):
        set_personal("ui.prefix", "c-q")
