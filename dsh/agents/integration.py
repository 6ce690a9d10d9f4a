"""`dsh integration install|remove|status claude|codex`: dsh's hooks in the user's own agent settings,
for an agent typed in a shell pane (one dsh starts gets them per process, dsh.agents.hook_launch).

Every entry dsh writes carries its mark, so install is idempotent (dsh's old entries are replaced)
and remove takes exactly dsh's; the commands do nothing outside a dsh pane (no DSH_PANE_ID). The file
is written atomically, and only if it did not change between the read and the write (an agent that
rewrites its settings meanwhile wins; run it again)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from dsh.agents.hook_launch import MARK, claude_hooks, report_command
from dsh.safefile import atomic_write

KINDS = ("claude", "codex")


class IntegrationError(Exception):
    """The settings could not be changed; the message says why and nothing was written."""


def settings_path(kind: str, env: Mapping[str, str]) -> Path:
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if kind == "claude":
        return Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude") / "settings.json"
    return Path(env.get("CODEX_HOME") or home / ".codex") / "config.toml"


def _read(path: Path) -> tuple[bytes, tuple[int, int, int] | None]:
    try:
        data = path.read_bytes()
        st = path.stat()
    except FileNotFoundError:
        return b"", None
    except OSError as exc:
        raise IntegrationError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return data, (st.st_ino, st.st_size, st.st_mtime_ns)


def _write(path: Path, data: bytes, seen: tuple[int, int, int] | None) -> None:
    _, now = _read(path)
    if now != seen:
        raise IntegrationError(f"{path} changed while dsh was editing it: nothing written, run it again")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data)


def _ours(group: object) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(hooks, list) and any(isinstance(h, dict) and MARK in str(h.get("command", "")) for h in hooks)


def _claude_without_ours(settings: dict[str, object]) -> dict[str, object]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return settings
    kept = {event: [g for g in groups if not _ours(g)] for event, groups in hooks.items() if isinstance(groups, list)}
    out = dict(settings)
    out["hooks"] = {event: groups for event, groups in kept.items() if groups}
    if not out["hooks"]:
        del out["hooks"]
    return out


def _claude_settings(data: bytes, path: Path) -> dict[str, object]:
    if not data.strip():
        return {}
    try:
        settings = json.loads(data)
    except ValueError as exc:
        raise IntegrationError(f"{path} is not JSON ({exc}): nothing written") from exc
    if not isinstance(settings, dict):
        raise IntegrationError(f"{path} is not a JSON object: nothing written")
    return settings


def status(kind: str, env: Mapping[str, str]) -> bool:
    path = settings_path(kind, env)
    data, _ = _read(path)
    return MARK.encode() in data


def install(kind: str, env: Mapping[str, str]) -> str:
    path = settings_path(kind, env)
    data, seen = _read(path)
    if kind == "claude":
        settings = _claude_without_ours(_claude_settings(data, path))
        # A dict or absent: _claude_without_ours keeps anything else as it was, and dict() refuses it here.
        hooks = dict(settings.get("hooks") or {})  # type: ignore[call-overload]
        for event, groups in claude_hooks().items():
            hooks[event] = [*hooks.get(event, []), *groups]
        settings["hooks"] = hooks
        _write(path, (json.dumps(settings, indent=2) + "\n").encode(), seen)
        return f"installed dsh's hooks in {path} (they act only inside a dsh pane)"
    text = data.decode("utf-8", "replace")
    import tomllib

    try:
        config = tomllib.loads(text)
    except ValueError as exc:
        raise IntegrationError(f"{path} is not TOML ({exc}): nothing written") from exc
    if config.get("notify") and MARK not in text:
        raise IntegrationError(f"{path} already sets notify = {config['notify']!r}: dsh does not replace yours")
    lines = [line for line in text.splitlines() if MARK not in line]
    command = ["/bin/sh", "-c", '[ -z "$DSH_PANE_ID" ] || exec "$0" "$@"', *report_command("codex")]
    # A top-level key: before the first table.
    at = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    lines.insert(at, f"notify = {json.dumps(command)}  # {MARK}")
    _write(path, ("\n".join(lines) + "\n").encode(), seen)
    return f"installed dsh's notify in {path} (it acts only inside a dsh pane)"


def remove(kind: str, env: Mapping[str, str]) -> str:
    path = settings_path(kind, env)
    data, seen = _read(path)
    if MARK.encode() not in data:
        return f"dsh's hooks are not in {path}: nothing to remove"
    if kind == "claude":
        settings = _claude_without_ours(_claude_settings(data, path))
        _write(path, (json.dumps(settings, indent=2) + "\n").encode(), seen)
    else:
        lines = [line for line in data.decode("utf-8", "replace").splitlines() if MARK not in line]
        _write(path, ("\n".join(lines) + "\n").encode(), seen)
    return f"removed dsh's hooks from {path}"
