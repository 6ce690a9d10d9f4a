"""Every config key in one table: its default (whose type is the key's), its bounds and a line of doc."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dsh.keynames import single_key_problem
from dsh.values import Value

# A value as the table holds it: TOML's scalars. The default's type is the key's type.
Scalar = bool | int | float | str
Check = Callable[[Any], "str | None"]


class Option(Value, fields=("key", "default", "check", "doc", "env"), frozen=True):
    """One key (dotted, as `dsh config get` takes it): its default, what else it may hold, what it does,
    and the DSH_* variable that sets it, if one does (documented in dsh(1))."""

    key: str
    default: Scalar
    check: Check | None
    doc: str
    env: str | None

    def __init__(self, key: str, default: Scalar, check: Check | None, doc: str, env: str | None = None) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "check", check)
        object.__setattr__(self, "doc", doc)
        object.__setattr__(self, "env", env)

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.key.split("."))


class Table(Value, fields=("key", "doc", "entries"), frozen=True):
    """A table whose names are the user's: `[keys]` (any key; `Keymap.from_config` checks them), or one
    whose every entry is a table of `entries`' keys (`[workspace."<path>"]`, `[machines.NAME]`)."""

    key: str
    doc: str
    entries: tuple[Option, ...] | None  # None: anything goes under it

    def __init__(self, key: str, doc: str, entries: tuple[Option, ...] | None = None) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "doc", doc)
        object.__setattr__(self, "entries", entries)


# -- bounds ------------------------------------------------------------------------------------
def _int_range(low: int, high: int) -> Check:
    def check(value: int) -> str | None:
        return None if low <= value <= high else f"must be from {low:,} to {high:,}"

    return check


def _number_range(low: float, high: float) -> Check:
    def check(value: float) -> str | None:
        return None if low <= value <= high else f"must be from {low:g} to {high:g}"

    return check


def _one_key(value: str) -> str | None:
    problem = single_key_problem(value)
    return None if problem is None else f"{problem} (e.g. c-a, c-], f12)"


_TERM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")


def _term_name(value: str) -> str | None:
    return None if _TERM_NAME.fullmatch(value) else "must be a terminal type name such as xterm-256color"


def _folder(value: str) -> str | None:
    if not value.strip():
        return "must name a folder"
    return "must not hold a NUL character" if "\x00" in value else None


def _one_of(*choices: str) -> Check:
    def check(value: str) -> str | None:
        return None if value in choices else "must be " + " or ".join(f'"{c}"' for c in choices)

    return check


_CELLS_OR_PERCENT = re.compile(r"(\d{1,4})|(\d{1,3})%")


def _cells_or_percent(value: str) -> str | None:
    # As dsh.layout.presets.size_option reads it (not imported here: the client reads config too).
    found = _CELLS_OR_PERCENT.fullmatch(value.strip())
    if found is None or (found.group(2) is not None and int(found.group(2)) > 100):
        return 'must be a number of cells or a percentage, e.g. "24" or "60%"'
    return None


# -- the table, in the order `dsh config` prints it (share/config.toml and dsh(1) are tested against it) --
SCHEMA: tuple[Option | Table, ...] = (
    Option(
        "store.root",
        "sessions",
        _folder,
        "the session root; a relative path resolves under DSH_HOME",
        "DSH_SESSION_ROOT",
    ),
    # A negative number used to turn history off silently; a million lines is already ~1 GB of cells.
    Option("term.scrollback", 10000, _int_range(100, 1_000_000), "lines kept per pane", "DSH_SCROLLBACK"),
    # Each pane holds this much output in memory for the snapshot: bounded, or memory grows without end.
    Option(
        "term.tail_bytes",
        65536,
        _int_range(1024, 16 * 1024 * 1024),
        "bytes of output kept per pane for restore",
        "DSH_TAIL_BYTES",
    ),
    Option("term.term", "xterm-256color", _term_name, "TERM given to pane children", "DSH_TERM"),
    Option("term.shell_integration", True, None, "bash, zsh and fish tell dsh their prompt, status and folder"),
    Option("term.remain_on_exit", False, None, "keep a pane whose program ended well (a failed one always stays)"),
    Option("term.clipboard", "external", _one_of("on", "external", "off"), "what a program's OSC 52 copy does"),
    Option("term.emoji_width", "auto", _one_of("auto", "wide", "narrow"), "cells of a symbol with VS16"),
    Option("ui.window_size", "smallest", _one_of("smallest", "latest"), "the size panes take with several clients"),
    # A plain character as the prefix would be taken from everything typed (`prefix = 5` ate every 5).
    Option("ui.prefix", "c-b", _one_key, "the prefix key for pane and tab commands", "DSH_PREFIX"),
    Option("ui.mouse", True, None, "mouse support: select, resize, click", "DSH_MOUSE"),
    Option(
        "ui.escape_key", "c-]", _one_key, "moves the keyboard between the prompt and the focused pane", "DSH_ESCAPE_KEY"
    ),
    Option("ui.keyboard", "follow", _one_of("follow", "pane"), "where keys go: the program reading them, or the pane"),
    Option("ui.copy_keys", "vi", _one_of("vi", "emacs"), "copy mode's keys"),
    Option("ui.set_title", True, None, "your terminal's title follows the focused pane's (tmux's set-titles)"),
    Option("layout.main_pane_height", "24", _cells_or_percent, "main-horizontal's main pane: rows, or a percentage"),
    Option("layout.main_pane_width", "80", _cells_or_percent, "main-vertical's main pane: columns, or a percentage"),
    Option("attention.hooks", True, None, "an agent dsh starts reports its state through its own hooks"),
    Option("attention.notify", "terminal", _one_of("terminal", "bell", "off"), "how an agent off screen asks for you"),
    # Below half a second the snapshot would be rewritten many times a second.
    Option(
        "snapshot.debounce_seconds",
        2.0,
        _number_range(0.5, 3600),
        "at most one snapshot write per this long",
        "DSH_SNAPSHOT_DEBOUNCE",
    ),
    Table("keys", "keymap overrides: key = slash command line; prefix; [keys.direct]"),
    Table(
        "workspace",
        'per-workspace tables, keyed by absolute path: [workspace."/home/me/src/project"]',
        (Option("auto_resume", False, None, "resume agent panes by themselves on restore"),),
    ),
    Option("resume.agents.claude", True, None, "list Claude Code's conversations ($CLAUDE_CONFIG_DIR, else ~/.claude)"),
    Option("resume.agents.codex", True, None, "list Codex's conversations ($CODEX_HOME, else ~/.codex)"),
    Option("resume.agents.opencode", True, None, "list opencode's conversations (opencode session list)"),
    Table(
        "machines",
        "other machines reached over your own ssh: [machines.NAME]",
        (
            Option("ssh", "", None, "what ssh takes as its destination: user@host or a Host alias"),
            Option("dsh", "dsh", None, "the command line that runs dsh there"),
            Option("attention_seconds", 0.0, None, "how often its agents' states are asked while attached (0: never)"),
        ),
    ),
    Option("machines.ssh_command", "ssh", None, "the ssh program and its options"),
    Option("machines.timeout_seconds", 10.0, _number_range(0.5, 600), "how long a listing waits for each machine"),
)

OPTIONS: dict[str, Option] = {item.key: item for item in SCHEMA if isinstance(item, Option)}
TABLES: dict[str, Table] = {item.key: item for item in SCHEMA if isinstance(item, Table)}


def base_doc() -> dict[str, Any]:
    """The defaults as a parsed TOML document (the lowest layer), in the table's order; a new one each call."""
    doc: dict[str, Any] = {}
    for item in SCHEMA:
        *tables, name = item.key.split(".")
        node = doc
        for part in tables:
            node = node.setdefault(part, {})
        if isinstance(item, Option):
            node[name] = item.default
        else:
            node.setdefault(name, {})
    return doc
