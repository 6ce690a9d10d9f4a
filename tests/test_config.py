"""Layered config: base < personal < env < flags, origins, warnings, workspaces, set_personal."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest

from dsh.config import ENV_KEYS, ConfigError, load_config, session_root, set_personal
from dsh.config.key_value import ConfigKeyError, join_key, parse_value, split_key


def test_base_holds_the_contract_keys() -> None:
    cfg = load_config(env={})
    assert cfg.warnings == []
    assert cfg.get("store.root") == "sessions"
    assert cfg.get("term.scrollback") == 10000
    assert cfg.get("term.tail_bytes") == 65536
    assert cfg.get("term.term") == "xterm-256color"
    assert cfg.get("ui.prefix") == "c-b"
    assert cfg.get("ui.mouse") is True
    assert cfg.get("ui.escape_key") == "c-]"
    assert cfg.get("snapshot.debounce_seconds") == 2.0
    assert cfg.get("keys") == {} and cfg.get("workspace") == {}
    assert cfg.origin("ui.prefix").startswith("base: ") and cfg.origin("ui.prefix").endswith("config.toml")
    assert cfg.get("no.such.key", 7) == 7 and cfg.origin("no.such") == "unset"


def test_session_root_resolves_under_home_never_the_launch_dir(
    dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert session_root(load_config(env={})) == dsh_home / "sessions"
    assert session_root(load_config(["store.root=elsewhere/s"], env={})) == dsh_home / "elsewhere" / "s"
    assert session_root(load_config(env={"DSH_SESSION_ROOT": "/abs/root"})) == Path("/abs/root")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert session_root(load_config(["store.root=~/x"], env={})) == tmp_path / "x"


def test_personal_overlay_deep_merges(dsh_home: Path) -> None:
    (dsh_home / "config.toml").write_text('[ui]\nprefix = "c-a"\n\n[keys]\n"c-t" = "/tab new"\n')
    cfg = load_config(env={})
    assert cfg.get("ui.prefix") == "c-a"
    assert cfg.get("ui.mouse") is True  # the base's other [ui] keys are kept
    assert cfg.get("keys") == {"c-t": "/tab new"}
    assert cfg.origin("ui.prefix") == f"personal: {dsh_home / 'config.toml'}"
    assert cfg.origin("ui.mouse").startswith("base: ")
    assert cfg.origin("ui") == f"personal: {dsh_home / 'config.toml'}"


def test_layers_in_order_base_personal_env_flags(dsh_home: Path) -> None:
    (dsh_home / "config.toml").write_text("[term]\nscrollback = 500\ntail_bytes = 100000\n")
    env = {"DSH_SCROLLBACK": "600", "DSH_PREFIX": "c-x", "DSH_HANDOFF_FROM": "abc", "DSH_HOME": "/x"}
    cfg = load_config(["term.scrollback=700"], env=env)
    assert cfg.get("term.scrollback") == 700
    assert cfg.origin("term.scrollback") == "flag: -o term.scrollback=700"
    assert cfg.get("term.tail_bytes") == 100000
    assert cfg.get("ui.prefix") == "c-x" and cfg.origin("ui.prefix") == "env: DSH_PREFIX"
    # Names outside the table are not config, and DSH_HOME is the home, not a key.
    assert "handoff" not in str(cfg.data).lower() and cfg.warnings == []
    assert "DSH_HOME" not in ENV_KEYS


def test_env_table_maps_names_to_base_keys() -> None:
    base = load_config(env={})
    for name, key in ENV_KEYS.items():
        assert name.startswith("DSH_")
        assert base.get(key) is not None, key
    assert ENV_KEYS["DSH_SESSION_ROOT"] == "store.root" and ENV_KEYS["DSH_MOUSE"] == "ui.mouse"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", 42),
        ("2.5", 2.5),
        ("true", True),
        ('"quoted"', "quoted"),
        ("[1, 2]", [1, 2]),
        ("c-b", "c-b"),
        ("hello world", "hello world"),
        ("1\nx = 2", "1\nx = 2"),
        ("", ""),
    ],
)
def test_values_parse_as_toml_else_text(text: str, value: object) -> None:
    assert parse_value(text) == value


def test_flag_values_are_fitted_to_the_default_type_or_refused() -> None:
    cfg = load_config(
        [
            "ui.mouse=off",
            "snapshot.debounce_seconds=3",
            "ui.prefix=1",
            "ui.escape_key=5",
            "term.scrollback=lots",
            "nokey",
            "a..b=1",
        ],
        env={"DSH_MOUSE": "maybe"},
    )
    assert cfg.get("ui.mouse") is False
    debounce = cfg.get("snapshot.debounce_seconds")
    assert debounce == 3.0 and isinstance(debounce, float)
    # -o ui.escape_key=5 is the text "5", not a number; but a plain character cannot be a prefix key.
    assert cfg.get("ui.prefix") == "c-b" and cfg.get("ui.escape_key") == "c-]"
    assert cfg.get("term.scrollback") == 10000
    joined = "\n".join(cfg.warnings)
    assert "-o ui.prefix=1: ui.prefix: a plain character would be taken from everything typed" in joined
    assert "-o ui.escape_key=5: ui.escape_key: a plain character" in joined
    assert "-o term.scrollback=lots: term.scrollback: expected an integer" in joined
    assert "DSH_MOUSE=maybe: ui.mouse: expected true or false" in joined
    assert "-o nokey: expected KEY=VALUE" in joined
    assert "-o a..b=1: invalid config key" in joined


def test_table_value_clashes_are_refused(dsh_home: Path) -> None:
    (dsh_home / "config.toml").write_text('ui = "flat"\n[term.scrollback]\nx = 1\n')
    cfg = load_config(["ui=3", "term.scrollback.y=2"], env={})
    assert cfg.get("ui.prefix") == "c-b" and cfg.get("term.scrollback") == 10000
    assert len(cfg.warnings) == 4


def test_config_syntax_error_names_file_and_line_and_carries_on(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text('[ui]\nprefix = "c-a"\nmouse = = true\n')
    cfg = load_config(["term.scrollback=500"], env={"DSH_PREFIX": "c-q"})
    assert len(cfg.warnings) == 1
    assert cfg.warnings[0].startswith(f"{path}:3: syntax error: ")
    assert cfg.warnings[0].endswith("; using the other layers")
    assert cfg.get("ui.prefix") == "c-q" and cfg.get("term.scrollback") == 500 and cfg.get("ui.mouse") is True
    assert path.read_text() == '[ui]\nprefix = "c-a"\nmouse = = true\n'


def test_unterminated_config_and_bad_bytes_and_directory(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text('[ui]\nprefix = "c-a\n')
    assert load_config(env={}).warnings[0].startswith(f"{path}:2: syntax error")
    path.write_bytes(b"[ui]\nprefix = '\xff'\n")
    assert load_config(env={}).warnings == [f"{path}:2: not UTF-8 text; using the other layers"]
    path.unlink()
    path.mkdir()
    assert load_config(env={}).warnings == [
        f"{path}: cannot use: is a folder, not a regular file; using the other layers"
    ]


def test_workspace_table_for_a_cwd(dsh_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    (dsh_home / "config.toml").write_text(
        '[workspace."/w/proj"]\nauto_resume = true\n[workspace."~/other/"]\nauto_resume = true\nx = 1\n'
    )
    cfg = load_config(['workspace."/w/proj".extra="yes"'], env={})
    assert cfg.workspace("/w/proj") == {"auto_resume": True, "extra": "yes"}
    assert cfg.workspace("/w/proj/") == {"auto_resume": True, "extra": "yes"}
    assert cfg.workspace("/home/u/other") == {"auto_resume": True, "x": 1}
    assert cfg.workspace("/w") == {}
    assert cfg.get('workspace."/w/proj".auto_resume') is True


def test_split_and_join_keys() -> None:
    assert split_key("ui.prefix") == ("ui", "prefix")
    assert split_key('workspace."/a.b".auto_resume') == ("workspace", "/a.b", "auto_resume")
    assert join_key(("workspace", "/a.b", "auto_resume")) == 'workspace."/a.b".auto_resume'
    for bad in ["", "a..b", ".a", "a.", "a = 1\nb", "[x]"]:
        with pytest.raises(ConfigKeyError):
            split_key(bad)


def test_set_personal_keeps_other_keys_and_is_private(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text('[ui]\nprefix = "c-a"\n\n[keys]\n"c-t" = "/tab new"\n')
    assert set_personal("term.scrollback", "2000") == path
    assert set_personal("ui.mouse", "false") == path
    assert set_personal('workspace."/w/p".auto_resume', "true") == path
    doc = tomllib.loads(path.read_text())
    assert doc == {
        "ui": {"prefix": "c-a", "mouse": False},
        "keys": {"c-t": "/tab new"},
        "term": {"scrollback": 2000},
        "workspace": {"/w/p": {"auto_resume": True}},
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_config(env={}).workspace("/w/p") == {"auto_resume": True}


def test_set_personal_creates_the_file(dsh_home: Path) -> None:
    path = set_personal("ui.prefix", "c-a")
    assert tomllib.loads(path.read_text()) == {"ui": {"prefix": "c-a"}}


def test_set_personal_refuses_to_clobber(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text("[ui\n")
    with pytest.raises(ConfigError, match=rf"{path}:1: syntax error.*not changed"):
        set_personal("ui.prefix", "c-a")
    assert path.read_text() == "[ui\n"
    path.write_text('ui = "x"\n')
    with pytest.raises(ConfigError, match="is a value, not a table"):
        set_personal("ui.prefix", "c-a")
    with pytest.raises(ConfigError, match="expected an integer"):
        set_personal("term.scrollback", "many")
    with pytest.raises(ConfigError, match="is a table"):
        set_personal("term", "1")
    assert path.read_text() == 'ui = "x"\n'
