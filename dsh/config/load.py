"""Load the layered config: shipped base < personal $DSH_HOME/config.toml < DSH_* env < -o flags."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dsh.config.env import ENV_KEYS
from dsh.config.key_value import ConfigKeyError, join_key, parse_value, split_key
from dsh.config.model import Config
from dsh.config.schema import MAX_DEPTH, depth, fit_value
from dsh.config.table import OPTIONS, base_doc
from dsh.config.unknown import DONE, INSIDE, look, unknown_name
from dsh.home import dsh_home, dsh_home_path
from dsh.safefile import UnsafePathError, read_bytes

PERSONAL_NAME = "config.toml"
# A config is a page of keys; a file this large is something else (and is not read into memory).
MAX_CONFIG_BYTES = 4 * 1024 * 1024
_AT_LINE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_AT_END = re.compile(r"\s*\(at end of document\)\s*$")


def base_config_path() -> Path:
    """The shipped base config: the table's defaults (dsh.config.table) as TOML, with their docs."""
    from dsh.share import folder

    return Path(folder(), "config.toml")


def personal_config_path() -> Path:
    return dsh_home_path(PERSONAL_NAME)


def parse_toml_file(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(document, None), or (None, a message naming the file and line) when it cannot be used, for
    any reason: unreadable, a FIFO or a device, writable by another user, too big, not UTF-8, not
    TOML, nested too deeply.

    A missing file is an empty document. A symbolic link is followed (dotfile managers make them);
    what it points to must be a regular file only you can write.
    """
    try:
        raw = read_bytes(path, MAX_CONFIG_BYTES + 1, follow=True)
    except FileNotFoundError:
        return {}, None
    except UnsafePathError as exc:
        return None, f"{path}: cannot use: {exc.reason}"
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror or exc}"
    if len(raw) > MAX_CONFIG_BYTES:
        return None, f"{path}: larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB; not a config file"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return None, f"{path}:{line}: not UTF-8 text"
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return None, toml_error_message(path, text, exc)
    except (RecursionError, MemoryError, ValueError) as exc:
        # tomllib recurses into nested arrays and inline tables; a hostile file must not crash dsh.
        reason = "nested too deeply" if isinstance(exc, RecursionError) else type(exc).__name__
        return None, f"{path}: cannot be parsed ({reason})"
    if depth(doc) > MAX_DEPTH:
        return None, f"{path}: tables and arrays nested deeper than {MAX_DEPTH} levels; not a config file"
    return doc, None


def toml_error_message(path: Path | str, text: str, exc: tomllib.TOMLDecodeError) -> str:
    message = str(exc)
    found = _AT_LINE.search(message)
    if found:
        line = int(found.group(1))
        message = message[: found.start()]
    else:
        line = text.count("\n") + 1
        message = _AT_END.sub("", message)
    return f"{path}:{line}: syntax error: {message}"


class _Layers:
    """Deep-merges layers into one dict, recording each leaf's origin and refusing type clashes."""

    def __init__(self, base: dict[str, Any], base_origin: str) -> None:
        self.base = base
        self.data: dict[str, Any] = {}
        self.origins: dict[tuple[str, ...], str] = {}
        self.warnings: list[str] = []
        self._merge(self.data, base, (), base_origin, check=False, names=False)

    def overlay(self, doc: dict[str, Any], origin: str) -> None:
        self._merge(self.data, doc, (), origin, check=True, names=True)

    def set(self, parts: tuple[str, ...], value: Any, origin: str, label: str) -> None:
        problem = unknown_name(parts)
        if problem is not None:
            self.warnings.append(f"{label}: {problem}")
        node = self.data
        for i, part in enumerate(parts[:-1]):
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            elif not isinstance(child, dict):
                self.warnings.append(f"{label}: {join_key(parts[: i + 1])} is not a table; ignored")
                return
            node = child
        fitted = self._fit(parts, value, node.get(parts[-1]), label)
        if fitted is not _SKIP:
            node[parts[-1]] = fitted
            self.origins[parts] = origin

    def _merge(
        self, into: dict[str, Any], doc: dict[str, Any], at: tuple[str, ...], origin: str, check: bool, names: bool
    ) -> None:
        for key, value in doc.items():
            parts = (*at, key)
            current = into.get(key)
            inside = names
            if names:
                verdict = look(parts, isinstance(value, dict))
                inside = verdict == INSIDE
                if verdict not in (INSIDE, DONE):
                    self.warnings.append(f"{origin}: {verdict}")
            if isinstance(value, dict):
                if current is None:
                    current = into[key] = {}
                if not isinstance(current, dict):
                    self.warnings.append(f"{origin}: {join_key(parts)} must be a value, not a table; ignored")
                    continue
                self._merge(current, value, parts, origin, check, inside)
                continue
            fitted = self._fit(parts, value, current, origin) if check else value
            if fitted is not _SKIP:
                into[key] = fitted
                self.origins[parts] = origin

    def _fit(self, parts: tuple[str, ...], value: Any, current: Any, label: str) -> Any:
        if isinstance(current, dict):
            self.warnings.append(f"{label}: {join_key(parts)} is a table, not a value; ignored")
            return _SKIP
        fitted, why = fit_value(parts, value, _lookup(self.base, parts))
        if why is not None:
            kept = "" if current is None else f"; keeping {current!r}"
            self.warnings.append(f"{label}: {join_key(parts)}: {why}, got {_shown(value)}{kept}")
            return _SKIP
        return fitted


_SKIP = object()


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _lookup(doc: dict[str, Any], parts: tuple[str, ...]) -> Any:
    node: Any = doc
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def load_config(flags: Sequence[str] = (), env: Mapping[str, str] | None = None) -> Config:
    """The effective config. Problems in any layer become `Config.warnings`; the other layers still count."""
    env = os.environ if env is None else env
    layers = _Layers(base_doc(), f"base: {base_config_path()}")

    personal = personal_config_path()
    doc, problem = parse_toml_file(personal)
    if problem is not None:
        layers.warnings.append(f"{problem}; using the other layers")
    elif doc:
        layers.overlay(doc, f"personal: {personal}")

    for name, key in ENV_KEYS.items():
        if name in env:
            layers.set(split_key(key), parse_value(env[name]), f"env: {name}", f"{name}={env[name]}")

    for flag in flags:
        key, sep, text = flag.partition("=")
        if not sep or not key.strip():
            layers.warnings.append(f"-o {flag}: expected KEY=VALUE; ignored")
            continue
        try:
            parts = split_key(key)
        except ConfigKeyError as exc:
            layers.warnings.append(f"-o {flag}: {exc}; ignored")
            continue
        layers.set(parts, parse_value(text), f"flag: -o {flag}", f"-o {flag}")

    return Config(data=layers.data, origins=layers.origins, warnings=layers.warnings)


def session_root(config: Config) -> Path:
    """The absolute session root; a relative `store.root` resolves under DSH_HOME."""
    raw = config.text("store.root")
    if not raw.strip():
        raw = str(OPTIONS["store.root"].default)
    path = Path(os.path.expanduser(raw))
    if not path.is_absolute():
        path = dsh_home() / path
    return Path(os.path.normpath(path))


def base_default(dotted_key: str) -> Any:
    """The shipped default of a key (a table's own defaults as a dict), or None."""
    try:
        return _lookup(base_doc(), split_key(dotted_key))
    except ConfigKeyError:
        return None
