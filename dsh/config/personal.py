"""Change the personal overlay $DSH_HOME/config.toml one key at a time, keeping every other key."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from dsh.config.key_value import ConfigError, join_key, parse_value, split_key
from dsh.config.load import base_default, parse_toml_file, personal_config_path
from dsh.config.schema import fit_value
from dsh.config.unknown import unknown_name
from dsh.safefile import atomic_write

_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


def set_personal(key: str, value: str) -> Path:
    """Set KEY to VALUE (TOML value text, else plain text) in the personal overlay; returns its path.

    The key and value are checked against the schema (a known key, its type and bounds) before anything
    is written. Refuses
    (ConfigError) a file it cannot parse, rather than overwrite what the user wrote, and a link, rather
    than write through it or replace it.
    """
    parts = split_key(key)
    unknown = unknown_name(parts)
    if unknown is not None:
        raise ConfigError(f"{unknown.removesuffix('; ignored')}; not changed")
    path = personal_config_path()
    default = base_default(key)
    if isinstance(default, dict):
        raise ConfigError(f"{join_key(parts)} is a table; set one of its keys instead")
    fitted, why = fit_value(parts, parse_value(value), default)
    if why is not None:
        raise ConfigError(f"{join_key(parts)}: {why}, got {value!r}; not changed")
    doc, problem = parse_toml_file(path)
    if problem is not None or doc is None:
        raise ConfigError(f"{problem}; not changed")
    with_link = _link_target(path)
    if with_link is not None:
        raise ConfigError(
            f"{path} is a symbolic link to {with_link}; dsh does not write through links: "
            f"edit {with_link} yourself, or remove the link"
        )
    node = doc
    for i, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{path}: {join_key(parts[: i + 1])} is a value, not a table; not changed")
        node = child
    if isinstance(node.get(parts[-1]), dict):
        raise ConfigError(f"{path}: {join_key(parts)} is a table; set one of its keys instead")
    node[parts[-1]] = fitted
    import tomli_w  # only `dsh config set` writes: a host's start-up has no use for it

    try:
        atomic_write(path, tomli_w.dumps(doc).encode("utf-8"), tmp_prefix=".config-")
    except OSError as exc:
        raise ConfigError(_write_failure(path, exc)) from exc
    return path


def _link_target(path: Path) -> str | None:
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return os.readlink(path)
    except OSError:
        pass
    return None


def _write_failure(path: Path, exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    if exc.errno in _READ_ONLY:
        return (
            f"cannot write {path}: {reason}. The dsh home {path.parent} is read-only here: make it "
            "writable, point DSH_HOME at a folder you can write, or set the value for one run "
            "with dsh -o KEY=VALUE"
        )
    return f"cannot write {path}: {reason}; not changed"
