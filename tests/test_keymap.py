"""The keymap: defaults, key names checked against prompt_toolkit, config overrides and warnings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import KEY_ALIASES, Keys

from dsh.commands import Registry
from dsh.commands.keymap import (
    DEFAULT_PREFIX,
    VALID_KEY_NAMES,
    Keymap,
    key_display,
    key_sequence,
    normalize_key,
)

KNOWN = [
    "split",
    "command-prompt",
    "focus",
    "zoom",
    "close",
    "new",
    "tab",
    "copy",
    "paste",
    "help",
    "resize",
    "swap",
    "quit",
    "detach",
    "sync",
    "layout",
    "break",
    "kill-tab",
    "start-all",
    "agents",
    "sessions",
    "session",
    "tree",
]
SOURCE = "/home/u/.dsh/config.toml"


def test_valid_key_names_are_prompt_toolkit_keys() -> None:
    real = {k.value for k in Keys} | set(KEY_ALIASES) | {"space"}
    assert VALID_KEY_NAMES <= real
    pseudo = {
        "<any>",
        "<scroll-up>",
        "<scroll-down>",
        "<cursor-position-response>",
        "<vt100-mouse-event>",
        "<windows-mouse-event>",
        "<bracketed-paste>",
        "<sigint>",
        "<ignore>",
    }
    assert {k.value for k in Keys} - pseudo <= VALID_KEY_NAMES


def test_every_default_binding_is_accepted_by_prompt_toolkit() -> None:
    keymap = Keymap()
    bindings = KeyBindings()
    for key in [keymap.prefix, *keymap.prefix_bindings, *keymap.direct_bindings]:
        assert normalize_key(key) == key
        bindings.add(*key_sequence(key))(lambda event: None)
    assert len(bindings.bindings) == 1 + len(keymap.prefix_bindings) + len(keymap.direct_bindings)


def test_defaults_are_tmux_familiar() -> None:
    keymap = Keymap()
    assert keymap.prefix == DEFAULT_PREFIX == "c-b"
    p = keymap.prefix_bindings
    assert p["%"] == "split -h" and p['"'] == "split -v"
    assert p["left"] == "focus left" and p["o"] == "focus next"
    assert p["z"] == "zoom" and p["x"] == "close" and p["c"] == "new"
    assert p["n"] == "tab next" and p["p"] == "tab prev" and p["7"] == "tab select 7"
    assert p[","] == "tab rename" and p["["] == "copy" and p["]"] == "paste" and p["?"] == "help keys"
    assert p["c-up"] == "resize up 5" and p["{"] == "swap prev" and p["}"] == "swap next"
    assert keymap.direct_bindings["escape left"] == "focus left"
    assert p["space"] == "layout next" and p["escape 3"] == "layout main-horizontal" and p["E"] == "layout spread"
    assert p["!"] == "break" and p["&"] == "kill-tab" and p[":"] == "command-prompt"
    assert p["a"] == "agents" and p["g"] == "agents next"
    assert keymap.commands_used() <= set(KNOWN)


@pytest.mark.parametrize(
    "name,expected",
    [
        ("c-a", "c-a"),
        ("C-A", "c-a"),
        ("M-h", "escape h"),
        ("m-Left", "escape left"),
        ("M-X", "escape X"),
        ("escape   left", "escape left"),
        ("Enter", "enter"),
        ("c-m", "enter"),
        ("c-i", "tab"),
        ("c-@", "c-space"),
        ("s-c-left", "c-s-left"),
        ("F12", "f12"),
        ("%", "%"),
        ("A", "A"),
        ("space", "space"),
        ("c-b c-b", "c-b c-b"),
    ],
)
def test_normalize_key(name: str, expected: str) -> None:
    assert normalize_key(name) == expected


BAD_KEYS = ["", "  ", "ctrl-a", "c-ä", "hyper-x", "M-", "f25", "\x1b", "<any>", 5, None]


@pytest.mark.parametrize("name", BAD_KEYS)
def test_normalize_rejects(name: Any) -> None:
    assert normalize_key(name) is None


def test_key_display() -> None:
    assert key_display("c-b") == "C-b"
    assert key_display("escape left") == "M-Left"
    assert key_display("c-s-left") == "C-S-Left"
    assert key_display("pageup") == "PgUp"
    assert key_display("s-tab") == "S-Tab"
    assert key_display("%") == "%"
    assert key_display("escape") == "Escape"


def test_describe_reads_every_binding_with_summaries() -> None:
    registry = Registry()

    @registry.command("split")
    def split(ctx: Any, args: list[str]) -> None:
        """Split the active pane.

        More text."""

    keymap = Keymap()
    rows = keymap.describe(registry)
    assert ("C-b %", "split -h", "Split the active pane.") in rows
    assert ("C-b 0…9", "tab select N", "") in rows
    assert ("M-Left", "focus left", "") in rows
    assert ("C-b C-b", "", "send C-b itself to the pane") in rows
    described = {line for _key, line, _summary in rows}
    everything = set(keymap.prefix_bindings.values()) | set(keymap.direct_bindings.values())
    assert everything - described == {f"tab select {n}" for n in range(10)}
    keymap.prefix_bindings.pop("5")
    rows = keymap.describe()
    assert ("C-b 4", "tab select 4", "") in rows and not any("…" in key for key, _l, _s in rows)


def test_config_overrides_adds_and_unbinds() -> None:
    table = {
        "prefix": "C-a",
        "|": "/split -h",
        "x": "",
        "o": "focus prev",
        "direct": {"M-h": "focus left", "f5": "zoom"},
    }
    keymap, warnings = Keymap.from_config(table, known_commands=KNOWN, source=SOURCE)
    assert warnings == []
    assert keymap.prefix == "c-a"
    assert keymap.prefix_bindings["|"] == "split -h"
    assert "x" not in keymap.prefix_bindings
    assert keymap.prefix_bindings["o"] == "focus prev"
    assert keymap.direct_bindings["escape h"] == "focus left"
    assert keymap.direct_bindings["f5"] == "zoom"
    assert keymap.direct_bindings["escape left"] == "focus left"  # defaults stay
    assert ("C-a C-a", "", "send C-a itself to the pane") in keymap.describe()
    assert Keymap().prefix == "c-b"  # defaults are not shared mutable state


def test_config_problems_warn_with_source_and_key_and_keep_defaults() -> None:
    table = {
        "prefix": "c-a c-b",
        "ctrl-x": "zoom",
        "z": "explode now",
        "%": "split 'unbalanced",
        "c": 42,
        "direct": {"q": "quit", "hyper-q": "quit"},
    }
    keymap, warnings = Keymap.from_config(table, known_commands=KNOWN, source=SOURCE)
    assert keymap == Keymap()
    assert len(warnings) == 7
    assert all(w.startswith(f"{SOURCE}: [keys") and w.endswith("default kept") for w in warnings)
    text = "\n".join(warnings)
    assert '"prefix": not a single key' in text
    assert '"ctrl-x": unknown key name' in text
    assert '"z": unknown command /explode' in text
    assert '"%": cannot read' in text and "quotation" in text
    assert '"c": expected a command line in quotes, got 42' in text
    assert '[keys.direct] "q": a plain character' in text
    assert '[keys.direct] "hyper-q": unknown key name' in text


def test_config_shapes_that_are_not_tables() -> None:
    keymap, warnings = Keymap.from_config(["x"], known_commands=KNOWN, source=SOURCE)
    assert keymap == Keymap() and warnings == [f"{SOURCE}: [keys] must be a table — using the default keys"]
    keymap, warnings = Keymap.from_config({"direct": "M-h"}, known_commands=KNOWN, source=SOURCE)
    assert keymap == Keymap() and '[keys] "direct": must be a table' in warnings[0]
    assert Keymap.from_config(None, known_commands=KNOWN, source=SOURCE) == (Keymap(), [])


def test_direct_binding_on_the_prefix_is_dropped() -> None:
    keymap, warnings = Keymap.from_config(
        {"prefix": "c-a", "direct": {"c-a": "zoom"}}, known_commands=KNOWN, source=SOURCE
    )
    assert "c-a" not in keymap.direct_bindings
    assert len(warnings) == 1 and "is the prefix key" in warnings[0]


def test_warnings_do_not_carry_control_characters() -> None:
    _keymap, warnings = Keymap.from_config({"\x1b[2J": "zoom"}, known_commands=KNOWN, source=SOURCE)
    assert len(warnings) == 1 and "\x1b" not in warnings[0]


def test_the_man_pages_keys_example_is_a_keymap_with_no_warnings() -> None:
    import re
    import tomllib

    page = (Path(__file__).resolve().parent.parent / "man" / "dsh.1").read_text()
    block = page.split(".B [keys]", 1)[1].split(".nf\n", 1)[1].split(".fi\n", 1)[0]
    text = re.sub(r"\\(.)", r"\1", block)  # roff escapes (\-) back to the characters typed
    table = tomllib.loads(text)["keys"]
    keymap, warnings = Keymap.from_config(table, known_commands=[*KNOWN, "reload"], source=SOURCE)
    assert warnings == []
    assert keymap.prefix == "c-a" and keymap.prefix_bindings["|"] == "split -h" and "x" not in keymap.prefix_bindings
    assert keymap.direct_bindings["escape h"] == "focus left"
