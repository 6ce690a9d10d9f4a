"""The merged config: values by dotted key, the layer each came from, and the warnings met loading it."""

from __future__ import annotations

import os
from typing import Any

from dsh.config.key_value import ConfigKeyError, split_key
from dsh.config.table import OPTIONS, Scalar
from dsh.values import Value


class Config(Value, fields=("data", "origins", "warnings")):
    data: dict[str, Any]
    origins: dict[tuple[str, ...], str]
    warnings: list[str]

    def __init__(
        self,
        data: dict[str, Any],
        origins: dict[tuple[str, ...], str] | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.data = data
        self.origins = {} if origins is None else origins
        self.warnings = [] if warnings is None else warnings

    def get(self, dotted_key: str, default: Any = None) -> Any:
        try:
            parts = split_key(dotted_key)
        except ConfigKeyError:
            return default
        node: Any = self.data
        for part in parts:
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    # -- typed reads of the table's keys: the value, else (missing, or not of the key's type) its default --
    def flag(self, key: str) -> bool:
        value = self._typed(key, bool)
        assert isinstance(value, bool)
        return value

    def integer(self, key: str) -> int:
        value = self._typed(key, int)
        assert isinstance(value, int)
        return value

    def number(self, key: str) -> float:
        value = self._typed(key, float)
        assert isinstance(value, float)
        return value

    def text(self, key: str) -> str:
        value = self._typed(key, str)
        assert isinstance(value, str)
        return value

    def _typed(self, key: str, kind: type) -> Scalar:
        option = OPTIONS[key]  # a KeyError here is a key missing from dsh.config.table
        if type(option.default) is not kind:
            raise TypeError(f"{key} holds {type(option.default).__name__}, not {kind.__name__}")
        value = self.get(key)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        return value if type(value) is kind else option.default

    def origin(self, dotted_key: str) -> str:
        """The layer a value came from (`base: <file>`, `personal: <file>`, `env: DSH_X`, `flag: -o ...`).

        For a table, the highest layer among its values; `unset` when the key has no value.
        """
        try:
            parts = split_key(dotted_key)
        except ConfigKeyError:
            return "unset"
        if parts in self.origins:
            return self.origins[parts]
        found = [origin for key, origin in self.origins.items() if key[: len(parts)] == parts]
        if not found:
            return "unset" if self.get(dotted_key) is None else "base"
        return max(found, key=_layer_rank)

    def workspace(self, cwd: str) -> dict[str, Any]:
        """The `[workspace."<abs path>"]` table for `cwd` (keys may use `~`, a trailing slash); {} if none."""
        tables = self.data.get("workspace")
        if not isinstance(tables, dict):
            return {}
        want = os.path.normpath(os.path.abspath(cwd))
        merged: dict[str, Any] = {}
        for key, table in tables.items():
            if not isinstance(table, dict) or not isinstance(key, str):
                continue
            if os.path.normpath(os.path.expanduser(key)) == want:
                merged.update(table)
        return merged


_RANKS = ("base", "personal", "env", "flag")


def _layer_rank(origin: str) -> int:
    layer = origin.split(":", 1)[0]
    return _RANKS.index(layer) if layer in _RANKS else -1
