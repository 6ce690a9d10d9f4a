"""The keymap as data: keys bound to command lines, behind the prefix key (tmux style) or direct.

A binding's action is a slash-command line without its slash (`split -h`), so help, config and the
command registry share one table. The UI runs it with `Registry.run_line`. Pressing the prefix twice
sends the prefix key itself to the pane, unless the prefix key is bound after the prefix.

Config (`config.toml`), read by `Keymap.from_config`:

    [keys]
    prefix = "c-a"          # the prefix key: one key
    "|" = "split -h"        # after the prefix: key = command line (a leading / is allowed)
    x = ""                  # an empty action unbinds the default
    [keys.direct]           # no prefix needed
    "M-h" = "focus left"

Key names are prompt_toolkit's (`c-a`, `left`, `c-left`, `s-tab`, `f5`, `pageup`, `enter`, `tab`,
`space`, `escape` …) or one printable character; a binding may be a space-separated sequence of them.
`M-x` (Alt+x) is written `escape x` by prompt_toolkit; both are accepted and stored as `escape x`.
Modifier prefixes and named keys are case-insensitive; single characters are not (`A` is Shift+a).
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from dsh.config.table import OPTIONS
from dsh.keynames import VALID_KEY_NAMES as VALID_KEY_NAMES  # re-exported: tests and help use it
from dsh.keynames import normalize_key, single_key_problem
from dsh.layout.presets import LAYOUT_NAMES
from dsh.text import sanitize
from dsh.values import Value

if TYPE_CHECKING:
    from dsh.commands.registry import Registry
    from dsh.config.model import Config

DEFAULT_PREFIX = str(OPTIONS["ui.prefix"].default)

DEFAULT_PREFIX_BINDINGS: dict[str, str] = {
    "%": "split -h",
    '"': "split -v",
    "left": "focus left",
    "right": "focus right",
    "up": "focus up",
    "down": "focus down",
    "o": "focus next",
    ";": "focus last",
    "z": "zoom",
    "x": "close",
    "c": "new",
    "n": "tab next",
    "p": "tab prev",
    **{str(n): f"tab select {n}" for n in range(10)},
    ",": "tab rename",
    "[": "copy",
    "]": "paste",
    "?": "help keys",
    ":": "command-prompt",
    "c-left": "resize left 5",
    "c-right": "resize right 5",
    "c-up": "resize up 5",
    "c-down": "resize down 5",
    "{": "swap prev",
    "}": "swap next",
    "d": "detach",
    "S": "sync toggle",
    "space": "layout next",
    **{f"escape {n}": f"layout {name}" for n, name in enumerate(LAYOUT_NAMES, start=1)},
    "E": "layout spread",
    "!": "break",
    "&": "kill-tab",
    "c-r": "start-all",
    "a": "agents",
    "g": "agents next",
    "s": "sessions",
    "w": "tree",
    "L": "session last",
    "(": "session prev",
    ")": "session next",
}

DEFAULT_DIRECT_BINDINGS: dict[str, str] = {
    "escape left": "focus left",
    "escape right": "focus right",
    "escape up": "focus up",
    "escape down": "focus down",
}

_DISPLAY_NAMES = {"pageup": "PgUp", "pagedown": "PgDn", "c-space": "C-Space"}


def key_sequence(key: str) -> tuple[str, ...]:
    """The names to hand to prompt_toolkit's `KeyBindings.add(*names)` for a canonical key."""
    return tuple(key.split(" "))


def _display_part(part: str) -> str:
    if part in _DISPLAY_NAMES:
        return _DISPLAY_NAMES[part]
    if len(part) == 1:
        return part
    for modifier, shown in (("c-s-", "C-S-"), ("c-", "C-"), ("s-", "S-")):
        if part.startswith(modifier):
            rest = part[len(modifier) :]
            return shown + (rest if len(rest) == 1 else _display_part(rest))
    return part.capitalize() if part.isalpha() else part


def key_display(key: str) -> str:
    """How help shows a canonical key: `c-b` -> `C-b`, `escape left` -> `M-Left`, `pageup` -> `PgUp`."""
    parts = key.split(" ")
    shown: list[str] = []
    i = 0
    while i < len(parts):
        if parts[i] == "escape" and i + 1 < len(parts):
            shown.append("M-" + _display_part(parts[i + 1]))
            i += 2
            continue
        shown.append(_display_part(parts[i]))
        i += 1
    return " ".join(shown)


def command_name(line: str) -> str:
    """The command a binding runs: the first word of its line, lower-case, without a slash."""
    words = line.strip().removeprefix("/").split()
    return words[0].lower() if words else ""


class Keymap(Value, fields=("prefix", "prefix_bindings", "direct_bindings")):
    """Which command line each key runs: after the prefix key, or directly."""

    prefix: str
    prefix_bindings: dict[str, str]
    direct_bindings: dict[str, str]

    def __init__(
        self,
        prefix: str = DEFAULT_PREFIX,
        prefix_bindings: dict[str, str] | None = None,
        direct_bindings: dict[str, str] | None = None,
    ) -> None:
        self.prefix = prefix
        self.prefix_bindings = dict(DEFAULT_PREFIX_BINDINGS) if prefix_bindings is None else prefix_bindings
        self.direct_bindings = dict(DEFAULT_DIRECT_BINDINGS) if direct_bindings is None else direct_bindings

    def commands_used(self) -> set[str]:
        """Every command name some binding runs (the app checks its registry has them all)."""
        lines = [*self.prefix_bindings.values(), *self.direct_bindings.values()]
        return {command_name(line) for line in lines}

    def describe(self, registry: Registry | None = None) -> list[tuple[str, str, str]]:
        """(key as shown, command line, summary) for every binding, prefix ones first; for help.

        Summaries come from the registry's docstrings when one is given. When every digit is bound to
        `tab select <digit>`, the ten rows fold into one.
        """

        def summary(line: str) -> str:
            command = registry.get(command_name(line)) if registry is not None else None
            return command.summary if command is not None else ""

        prefix = key_display(self.prefix)
        rows: list[tuple[str, str, str]] = []
        digits = [str(n) for n in range(10)]
        fold = all(self.prefix_bindings.get(d) == f"tab select {d}" for d in digits)
        for key, line in self.prefix_bindings.items():
            if fold and key in digits:
                if key == digits[0]:
                    rows.append((f"{prefix} 0…9", "tab select N", summary(line)))
                continue
            rows.append((f"{prefix} {key_display(key)}", line, summary(line)))
        if self.prefix not in self.prefix_bindings:
            rows.append((f"{prefix} {prefix}", "", f"send {prefix} itself to the pane"))
        rows += [(key_display(key), line, summary(line)) for key, line in self.direct_bindings.items()]
        return rows

    @classmethod
    def from_settings(cls, config: Config, *, known_commands: Collection[str], source: str) -> tuple[Keymap, list[str]]:
        """The keymap a loaded config gives: its `[keys]` table, whose prefix is `ui.prefix` unless the
        table names one itself."""
        keys = config.get("keys")
        table: dict[str, Any] = dict(keys) if isinstance(keys, dict) else {}
        prefix = config.text("ui.prefix")
        if prefix and "prefix" not in table:
            table["prefix"] = prefix
        return cls.from_config(table, known_commands=known_commands, source=source)

    @classmethod
    def from_config(
        cls,
        table: object,
        *,
        known_commands: Collection[str],
        source: str,
    ) -> tuple[Keymap, list[str]]:
        """The default keymap with the `[keys]` table applied; a warning for each entry that was skipped.

        A bad key name, an unknown command, a line with an unbalanced quote or a value that is not text
        keeps the default for that key and yields a warning naming `source` and the key.
        """
        keymap = cls()
        warnings: list[str] = []
        if table is None:
            return keymap, warnings
        if not isinstance(table, Mapping):
            warnings.append(f"{source}: [keys] must be a table — using the default keys")
            return keymap, warnings
        known = {name.lower().removeprefix("/") for name in known_commands}
        reader = _ConfigReader(source, known, warnings)
        if "prefix" in table:
            problem = single_key_problem(table["prefix"])
            if problem is not None:
                reader.warn("[keys]", "prefix", f"{problem}: {_shown(table['prefix'])}")
            else:
                keymap.prefix = normalize_key(table["prefix"]) or keymap.prefix
        for key, value in table.items():
            if key == "prefix":
                continue
            if key == "direct":
                if isinstance(value, Mapping):
                    for direct_key, action in value.items():
                        reader.apply(keymap.direct_bindings, "[keys.direct]", direct_key, action, direct=True)
                else:
                    reader.warn("[keys]", "direct", "must be a table of key = command line")
                continue
            reader.apply(keymap.prefix_bindings, "[keys]", key, value, direct=False)
        if keymap.prefix in keymap.direct_bindings:
            reader.warn("[keys.direct]", keymap.prefix, "is the prefix key; the direct binding is dropped")
            del keymap.direct_bindings[keymap.prefix]
        return keymap, warnings


def _shown(value: Any) -> str:
    return sanitize(repr(value) if not isinstance(value, str) else f'"{value}"', 60)


class _ConfigReader(Value, fields=("source", "known", "warnings")):
    source: str
    known: set[str]
    warnings: list[str]

    def __init__(self, source: str, known: set[str], warnings: list[str]) -> None:
        self.source = source
        self.known = known
        self.warnings = warnings

    def warn(self, section: str, key: object, problem: str) -> None:
        self.warnings.append(f"{self.source}: {section} {_shown(key)}: {problem} — default kept")

    def apply(self, bindings: dict[str, str], section: str, key: object, value: object, *, direct: bool) -> None:
        canonical = normalize_key(key)
        if canonical is None:
            self.warn(section, key, "unknown key name")
            return
        if direct and len(canonical) == 1:
            self.warn(section, key, "a plain character would be taken from every pane; add a modifier")
            return
        if not isinstance(value, str):
            self.warn(section, key, f"expected a command line in quotes, got {_shown(value)}")
            return
        line = value.strip().removeprefix("/").strip()
        if not line or line.lower() == "none":
            bindings.pop(canonical, None)
            return
        try:
            shlex.split(line)
        except ValueError as exc:
            self.warn(section, key, f"cannot read {_shown(value)}: {str(exc).lower()}")
            return
        name = command_name(line)
        if name not in self.known:
            self.warn(section, key, f"unknown command /{sanitize(name, 40)}")
            return
        bindings[canonical] = line
