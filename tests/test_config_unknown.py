"""A key or table the config table does not know is said in one line with the nearest known name, at
start and on /reload, and nothing else of the config is lost for it; `dsh config set` refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_app_harness import C_A, plain_shell, run, running_app  # noqa: F401  (plain_shell: autouse)

from dsh.config import ConfigError, load_config, set_personal
from tests.hostile import assert_clean, run_dsh


def test_a_misspelt_key_and_an_unknown_table_each_name_the_nearest_known_one(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text('[ui]\nmoues = false\nprefix = "c-a"\n\n[ui.bogus]\nx = 1\ny = 2\n\n[term]\nscrollbak = 500\n')
    config = load_config(env={})
    assert config.warnings == [
        f"personal: {path}: ui.moues: unknown key (did you mean ui.mouse?); ignored",
        f"personal: {path}: ui.bogus: unknown table (did you mean ui.mouse?); ignored",
        f"personal: {path}: term.scrollbak: unknown key (did you mean term.scrollback?); ignored",
    ]
    assert config.get("ui.prefix") == "c-a" and config.flag("ui.mouse") is True
    assert config.integer("term.scrollback") == 10000


def test_a_key_in_the_wrong_table_names_where_it_lives(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text("[ui]\nscrollback = 500\n\n[UI]\nmouse = false\n")
    assert load_config(env={}).warnings == [
        f"personal: {path}: ui.scrollback: unknown key (did you mean term.scrollback?); ignored",
        f"personal: {path}: UI: unknown table (did you mean ui?); ignored",
    ]


def test_with_nothing_near_the_tables_keys_are_listed(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text("[zzz]\nq = 1\n[snapshot]\nqqqq = 1\n")
    assert load_config(env={}).warnings == [
        f"personal: {path}: zzz: unknown table (the tables are store, term, ui, layout, attention, snapshot, "
        "keys, workspace, resume, machines); ignored",
        f"personal: {path}: snapshot.qqqq: unknown key ([snapshot] has debounce_seconds); ignored",
    ]


def test_tables_of_your_own_names_are_checked_only_where_dsh_reads_them(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text(
        '[keys]\n"c-t" = "/tab new"\n[keys.direct]\n"M-z" = "zoom"\n'
        '[workspace."/w/p"]\nauto_resume = true\nauto_resme = true\n'
        '[machines.box]\nssh = "me@box"\ndhs = "dsh"\nattenton_seconds = 5\n'
        "[resume.agents]\nclaud = false\n"
    )
    config = load_config(env={})
    assert config.warnings == [
        f'personal: {path}: workspace."/w/p".auto_resme: unknown key (did you mean workspace."/w/p".auto_resume?); '
        "ignored",
        f"personal: {path}: machines.box.dhs: unknown key (did you mean machines.box.dsh?); ignored",
        f"personal: {path}: machines.box.attenton_seconds: unknown key "
        "(did you mean machines.box.attention_seconds?); ignored",
        f"personal: {path}: resume.agents.claud: unknown key (did you mean resume.agents.claude?); ignored",
    ]
    assert config.workspace("/w/p")["auto_resume"] is True and config.get("keys.direct") == {"M-z": "zoom"}


def test_a_flag_with_an_unknown_key_says_so() -> None:
    config = load_config(["ui.moues=false", "ui.prefix=c-a"], env={})
    assert config.warnings == ["-o ui.moues=false: ui.moues: unknown key (did you mean ui.mouse?); ignored"]
    assert config.get("ui.prefix") == "c-a"


def test_a_table_clash_is_said_once_not_as_an_unknown_key_too(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text('ui = "flat"\n[term.scrollback]\nx = 1\n')
    assert not any("unknown" in warning for warning in load_config(env={}).warnings)
    assert len(load_config(env={}).warnings) == 2


def test_config_set_refuses_an_unknown_key(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text("# mine\n")
    with pytest.raises(ConfigError, match=r"^ui\.moues: unknown key \(did you mean ui\.mouse\?\); not changed$"):
        set_personal("ui.moues", "false")
    assert path.read_text() == "# mine\n"
    assert set_personal('workspace."/w".auto_resume', "true") == path


def test_the_cli_says_it_on_stderr_and_carries_on(dsh_home: Path, dsh_cmd: list[str], dsh_env: dict[str, str]) -> None:
    path = dsh_home / "config.toml"
    path.write_text("[ui]\nmoues = false\n")
    got = run_dsh(dsh_cmd, dsh_env, "config", "get", "ui.mouse")
    assert (got.returncode, got.stdout) == (0, "true\n")
    assert got.stderr == f"dsh: warning: personal: {path}: ui.moues: unknown key (did you mean ui.mouse?); ignored\n"
    assert_clean(got)


def test_the_window_says_it_on_reload_and_applies_the_rest(tmp_path: Path, dsh_home: Path) -> None:
    path = dsh_home / "config.toml"

    async def body() -> None:
        async with running_app(tmp_path) as h:
            path.write_text('[ui]\nmoues = false\nprefix = "c-a"\n')
            h.type_line("/reload")
            await h.wait(lambda: "ui.moues: unknown key" in h.message, "the unknown key named on /reload")
            assert f"{path}: ui.moues: unknown key (did you mean ui.mouse?); ignored" in h.message
            h.send(C_A + "%")  # the rest of the file is applied: C-a is the prefix
            await h.wait(lambda: len(h.session.panes) == 2, "C-a % to split")

    run(body)
