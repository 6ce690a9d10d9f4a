"""The key help table: every binding from the keymap itself, summaries once per command, the fixed keys."""

from __future__ import annotations

from dsh.commands.keymap import Keymap, key_display
from dsh.session.commands import build_registry
from dsh.ui.keyhelp import PROMPT_KEYS, copy_key_rows, key_help_lines


def rows(lines: list[str]) -> dict[str, str]:
    """Key column -> rest of the row, for the keymap rows (before the first blank line)."""
    out: dict[str, str] = {}
    for line in lines[1 : lines.index("")]:
        out[line[2:18].strip()] = line[18:].strip()
    return out


def test_every_binding_of_the_default_keymap_is_listed() -> None:
    keymap = Keymap()
    lines = key_help_lines(keymap, build_registry(), "c-]")
    table = rows(lines)
    for key, line in keymap.prefix_bindings.items():
        if key.isdigit():
            continue
        assert table[f"C-b {key_display(key)}"].startswith(f"/{line}"), key
    assert table["C-b 0…9"].startswith("/tab select N")
    for key, line in keymap.direct_bindings.items():
        assert table[key_display(key)].startswith(f"/{line}")
    assert table["C-b C-b"] == "send C-b itself to the pane"
    assert "between the prompt and the pane" in table["C-]"]
    assert "  (C-Left and the other /resize keys repeat without C-b: C-b C-Left C-Left …)" in lines


def test_a_summary_is_shown_once_per_run_of_the_same_command() -> None:
    registry = build_registry()
    table = rows(key_help_lines(Keymap(), registry, "c-]"))
    summary = registry.get("focus").summary
    assert table["C-b Left"] == f"/focus left          {summary}"
    assert table["C-b Right"] == "/focus right"
    assert table["M-Left"].endswith(summary)  # a new section starts with its summary again


def test_custom_prefix_bindings_and_escape_key_are_listed() -> None:
    keymap, warnings = Keymap.from_config(
        {"prefix": "c-a", "|": "split -h", "x": ""}, known_commands=build_registry().names(), source="cfg"
    )
    assert warnings == []
    lines = key_help_lines(keymap, build_registry(), "c-g")
    table = rows(lines)
    assert lines[0] == "Keys (prefix C-a, then the key):"
    assert table["C-a |"].startswith("/split -h")
    assert "C-a x" not in table
    assert "C-g" in table and "C-]" not in table
    assert "In copy mode (C-a [ or /copy; vi keys, ui.copy_keys chooses):" in lines


def test_prompt_and_copy_mode_keys_are_listed() -> None:
    text = "\n".join(key_help_lines(Keymap(), None, "c-]"))
    for key, description in [*PROMPT_KEYS, *copy_key_rows("vi", "C-b")]:
        assert f"{key:<16} {description}" in text or f"{key:<24} {description}" in text
