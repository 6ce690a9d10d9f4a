"""Config keys and values as typed by a user: dotted TOML keys, and VALUE text read as TOML when it parses."""

from __future__ import annotations

import tomllib
from typing import Any

_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")


class ConfigError(Exception):
    """A config change cannot be made; the message says where and why."""


class ConfigKeyError(ConfigError, ValueError):
    """A dotted config key that is not a valid TOML key."""


def split_key(key: str) -> tuple[str, ...]:
    """`a.b."/x.y".c` -> ("a", "b", "/x.y", "c"), following TOML's dotted-key rules."""
    key = key.strip()
    if key and set(key) <= _PLAIN and ".." not in key and not key.startswith(".") and not key.endswith("."):
        return tuple(key.split("."))
    if "\n" in key or "\r" in key:
        raise ConfigKeyError(f"invalid config key {key!r}")
    try:
        doc = tomllib.loads(f"{key} = 0")
    except tomllib.TOMLDecodeError as exc:
        raise ConfigKeyError(f"invalid config key {key!r}") from exc
    parts: list[str] = []
    node: Any = doc
    while isinstance(node, dict):
        if len(node) != 1:
            raise ConfigKeyError(f"invalid config key {key!r}")
        ((name, node),) = node.items()
        parts.append(name)
    return tuple(parts)


def join_key(parts: tuple[str, ...]) -> str:
    """The inverse of split_key: quote the parts that need it."""
    out = []
    for part in parts:
        if part and set(part) <= _PLAIN and "." not in part:
            out.append(part)
        else:
            out.append('"' + part.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return ".".join(out)


def parse_value(text: str) -> Any:
    """VALUE text as a TOML value (int, float, bool, quoted string, array, inline table), else the text."""
    try:
        doc = tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        return text
    if list(doc) != ["v"]:
        return text
    return doc["v"]


_TRUE = {"1", "yes", "on", "true"}
_FALSE = {"0", "no", "off", "false"}


def coerce_like(value: Any, default: Any) -> tuple[Any, str | None]:
    """Fit `value` to the type of the base default it replaces; (value, None) or (None, why not)."""
    if default is None or isinstance(default, dict):
        return value, None
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value, None
        word = str(value).strip().lower()
        if word in _TRUE:
            return True, None
        if word in _FALSE:
            return False, None
        return None, "expected true or false"
    if isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            return value, None
        return None, "expected an integer"
    if isinstance(default, float):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value), None
        return None, "expected a number"
    if isinstance(default, str):
        if isinstance(value, str):
            return value, None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            # `-o ui.prefix=1` means the text "1"; TOML read it as a number.
            return str(value), None
        return None, "expected text"
    if isinstance(default, list):
        return (value, None) if isinstance(value, list) else (None, "expected an array")
    return value, None
