"""Change the personal overlay $DSH_HOME/config.toml one key at a time, keeping every other key."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import tomli_w

from dsh.config.keys import ConfigError, coerce_like, join_key, parse_value, split_key
from dsh.config.load import base_default, parse_toml_file, personal_config_path


def set_personal(key: str, value: str) -> Path:
    """Set KEY to VALUE (TOML value text, else plain text) in the personal overlay; returns its path.

    Refuses (ConfigError) a file it cannot parse, rather than overwrite what the user wrote.
    """
    parts = split_key(key)
    path = personal_config_path()
    doc, problem = parse_toml_file(path)
    if problem is not None or doc is None:
        raise ConfigError(f"{problem}; not changed")
    parsed: Any = parse_value(value)
    default = base_default(key)
    if isinstance(default, dict):
        raise ConfigError(f"{join_key(parts)} is a table; set one of its keys instead")
    fitted, why = coerce_like(parsed, default)
    if why is not None:
        raise ConfigError(f"{join_key(parts)}: {why}, got {value!r}")
    node = doc
    for i, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{path}: {join_key(parts[: i + 1])} is a value, not a table; not changed")
        node = child
    if isinstance(node.get(parts[-1]), dict):
        raise ConfigError(f"{path}: {join_key(parts)} is a table; set one of its keys instead")
    node[parts[-1]] = fitted
    _write_atomically(path, tomli_w.dumps(doc))
    return path


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
