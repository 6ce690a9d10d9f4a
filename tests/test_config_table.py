"""The config table is the one source of each key's default, type and bounds: share/config.toml and
dsh(1) are held to it, and the code reads its keys through the typed accessors, never with defaults of
its own."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from test_app_harness import plain_shell, run, running_app  # noqa: F401  (plain_shell: autouse)

from dsh.config import Config, load_config
from dsh.config.table import OPTIONS, SCHEMA, TABLES, Option, base_doc

ROOT = Path(__file__).resolve().parent.parent


def _leaves(doc: dict[str, Any], at: tuple[str, ...] = ()) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in doc.items():
        if isinstance(value, dict):
            out.append((".".join((*at, key)), "table"))
            out.extend(_leaves(value, (*at, key)))
        else:
            out.append((".".join((*at, key)), value))
    return out


def test_share_config_toml_holds_the_tables_defaults_in_its_order() -> None:
    shipped = tomllib.loads((ROOT / "share" / "config.toml").read_text())
    got, want = _leaves(shipped), _leaves(base_doc())
    assert got == want
    # Same types too (10 == 10.0 and 1 == True compare equal).
    assert [type(value) for _, value in got] == [type(value) for _, value in want]


def test_each_key_of_share_config_toml_says_what_it_does() -> None:
    table, above = "", ""
    for line in (ROOT / "share" / "config.toml").read_text().splitlines():
        if line.startswith("["):
            table = line.strip("[]") + "."
        elif re.match(r"[a-z_]+ = ", line):
            assert f"{table}{line.split(' = ')[0]}" in OPTIONS, line
            assert "  # " in line or above.startswith("#"), f"no comment on {line!r}"
        above = line


def test_every_option_has_a_doc_and_a_default_that_passes_its_own_bounds() -> None:
    for option in OPTIONS.values():
        assert option.doc and "\n" not in option.doc, option.key
        assert option.check is None or option.check(option.default) is None, option.key
    for table in TABLES.values():
        for entry in table.entries or ():
            assert entry.doc, (table.key, entry.key)


def _roff_text(line: str) -> str:
    """A request line's text as it reads (the font changes gone), its arguments joined as .BR joins them."""
    args = re.findall(r'"([^"]*)"|(\S+)', line.split(None, 1)[1])
    text = "".join(quoted or bare for quoted, bare in args)
    text = re.sub(r"\\f[BIRP]", "", text)
    return text.replace("\\(dq", '"').replace("\\-", "-")


def _man_keys() -> dict[str, str | None]:
    """Each key a .TP heading of dsh(1)'s CONFIGURATION names, with the default it gives (None: none)."""
    man = (ROOT / "man" / "dsh.1").read_text()
    section = man.split(".SH CONFIGURATION\n", 1)[1].split("\n.SH ", 1)[0]
    lines = section.splitlines()
    found: dict[str, str | None] = {}
    for i, line in enumerate(lines[:-1]):
        if line != ".TP" or not re.match(r"\.B[IR]? ", lines[i + 1]):
            continue
        heading = _roff_text(lines[i + 1])
        if heading.startswith("["):
            continue  # [keys], [workspace."path"]: tables of your own names
        waiting: list[str] = []
        for piece in heading.split(", "):
            named = re.fullmatch(r"([a-z_]+(?:\.(?:[a-z_]+|NAME))+)(?: \((.*)\))?", piece.strip())
            assert named is not None, f"dsh(1) heading {heading!r}: cannot read {piece!r}"
            waiting.append(named.group(1).replace(".NAME.", ".*."))
            if named.group(2) is not None:
                found.update(dict.fromkeys(waiting, named.group(2)))
                waiting = []
        found.update(dict.fromkeys(waiting))
    return found


def _entries() -> dict[str, Option]:
    return {f"{table.key}.*.{entry.key}": entry for table in TABLES.values() for entry in table.entries or ()}


def test_the_man_page_names_every_key_with_its_default() -> None:
    named = _man_keys()
    missing = [key for key in OPTIONS if key not in named]
    assert missing == [], f"dsh(1) CONFIGURATION does not name {missing}"
    unknown = [key for key in named if key not in OPTIONS and key not in _entries()]
    assert unknown == [], f"dsh(1) names keys the config table does not have: {unknown}"
    for key, shown in named.items():
        option = OPTIONS.get(key) or _entries()[key]
        if shown is None or (option.default == "" and key in _entries()):
            assert key in _entries(), f"dsh(1) gives no default for {key}"
            continue  # an entry's key it must give (a machine's ssh)
        value = tomllib.loads(f"v = {shown}")["v"]
        assert (value, type(value) is str) == (option.default, type(option.default) is str), key


def test_the_table_lists_tables_and_keys_once() -> None:
    keys = [item.key for item in SCHEMA]
    assert len(keys) == len(set(keys))


# `config.get("term.scrollback", 10000)`: a default of its own beside the table's (they drifted), or
# with none, an untyped value each reader fits to its own idea of the key.
_OWN_DEFAULT = re.compile(r"""config\.get\(\s*["']([a-z_.]+)["']""")


def test_the_code_reads_table_keys_through_the_typed_accessors() -> None:
    offenders = []
    for path in sorted((ROOT / "dsh").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for key in _OWN_DEFAULT.findall(line):
                if key in OPTIONS:
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {key}")
    assert offenders == []


def test_typed_accessors_give_the_value_else_the_tables_default() -> None:
    config = Config({"term": {"scrollback": 500, "term": 7}, "snapshot": {"debounce_seconds": 3}})
    assert config.integer("term.scrollback") == 500
    assert config.text("term.term") == "xterm-256color"  # not text: the default
    assert config.flag("ui.mouse") is True  # missing: the default
    debounce = config.number("snapshot.debounce_seconds")
    assert debounce == 3.0 and isinstance(debounce, float)
    with pytest.raises(KeyError):
        config.text("ui.moues")
    with pytest.raises(TypeError, match=r"ui\.mouse holds bool, not str"):
        config.text("ui.mouse")


def test_the_loaded_config_holds_every_default(dsh_home: Path) -> None:
    config = load_config(env={})
    assert config.warnings == []
    for key, option in OPTIONS.items():
        assert config.get(key) == option.default, key
    assert config.origin("ui.prefix") == f"base: {ROOT / 'share' / 'config.toml'}"


def test_reload_takes_every_value_the_session_keeps(tmp_path: Path, dsh_home: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            assert h.session.scheduler.interval == 2.0
            (dsh_home / "config.toml").write_text(
                '[snapshot]\ndebounce_seconds = 7\n[term]\nscrollback = 500\ntail_bytes = 2048\nterm = "vt100"\n'
            )
            h.type_line("/reload")
            await h.wait(lambda: "config reloaded" in h.message, "the reload message")
            session = h.session
            assert (session.scheduler.interval, session.scrollback, session.tail_bytes, session.term_name) == (
                7.0,
                500,
                2048,
                "vt100",
            )

    run(body)


def test_the_man_page_says_which_key_each_variable_sets() -> None:
    man = (ROOT / "man" / "dsh.1").read_text()
    section = man.split(".SH ENVIRONMENT\n", 1)[1].split("\n.SH ", 1)[0]
    documented = dict(re.findall(r"^\.B (DSH_\w+)\nSets\n\.BR ([a-z_.]+) \.$", section, re.MULTILINE))
    assert documented == {option.env: key for key, option in OPTIONS.items() if option.env}
