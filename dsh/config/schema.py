"""One schema for config values: the shipped base config gives each key's type, this adds its bounds."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dsh.config.keys import coerce_like
from dsh.keynames import single_key_problem

Check = Callable[[Any], "str | None"]

# A config nests tables in tables a few levels deep; far deeper is not a config (and would exhaust
# the stack of whatever walks it: the merge, `dsh config`'s printer).
MAX_DEPTH = 16


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


# The bounds of each key whose type the base config gives. Anything outside is reported with its
# file (or variable, or flag) and key, and the value from the layers below is kept.
BOUNDS: dict[tuple[str, ...], Check] = {
    ("store", "root"): _folder,
    # A negative number used to turn history off silently; a million lines is already ~1 GB of cells.
    ("term", "scrollback"): _int_range(100, 1_000_000),
    # Each pane holds this much output in memory for the snapshot: bounded, or memory grows without end.
    ("term", "tail_bytes"): _int_range(1024, 16 * 1024 * 1024),
    ("term", "term"): _term_name,
    ("term", "emoji_width"): _one_of("auto", "wide", "narrow"),
    ("term", "clipboard"): _one_of("on", "external", "off"),
    # A plain character as the prefix would be taken from everything typed (`prefix = 5` ate every 5).
    ("ui", "prefix"): _one_key,
    ("ui", "escape_key"): _one_key,
    ("ui", "copy_keys"): _one_of("vi", "emacs"),
    ("ui", "window_size"): _one_of("smallest", "latest"),
    ("layout", "main_pane_height"): _cells_or_percent,
    ("layout", "main_pane_width"): _cells_or_percent,
    ("attention", "notify"): _one_of("terminal", "bell", "off"),
    ("ui", "keyboard"): _one_of("follow", "pane"),
    # Below half a second the snapshot would be rewritten many times a second.
    ("snapshot", "debounce_seconds"): _number_range(0.5, 3600),
}


def fit_value(parts: tuple[str, ...], value: Any, default: Any) -> tuple[Any, str | None]:
    """`value` for the key `parts`, fitted to the type of its base `default` and checked against its
    bounds: (value, None), or (None, why not)."""
    fitted, why = coerce_like(value, default)
    if why is None:
        check = BOUNDS.get(parts)
        why = check(fitted) if check is not None else None
    return (None, why) if why is not None else (fitted, None)


def depth(doc: object) -> int:
    """How deep tables and arrays nest in a parsed config (walked without recursion)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(doc, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, level + 1)
        if level + 1 > MAX_DEPTH:
            break  # deep enough to refuse; no need to walk the rest
        stack.extend((child, level + 1) for child in children)
    return deepest
