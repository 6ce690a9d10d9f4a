"""The hooks dsh gives an agent it starts, so the agent reports its own state to dsh (`dsh report
--hook KIND`, through the pane's host):

- Claude Code: one `--settings` file whose hooks report to dsh and that already holds the user's own
  hooks from their settings files (how repeated `--settings` combine, and how they combine with the
  user's files, changed between versions; Claude runs an identical hook command once, so the user's
  hooks run once either way; checked with 2.1.197). dsh's hooks are `async`: the agent never waits.
- Codex: `-c notify=[…]` (its turn's end, with the last message) unless the user set a notify of
  their own, and its TUI's own notifications as OSC 9 always (approvals and questions: the only
  word of them Codex gives a program it starts; its hooks need a trust step a launch cannot give:
  0.171.0 ignores a hook's trust given with -c, and its bypass flag would run the user's untrusted
  hooks too).
- opencode: a plugin file, named by OPENCODE_CONFIG for that process.

Which version each was checked against is in dsh.attention.versions.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from dsh.agents.base import program_index
from dsh.safefile import atomic_write, open_foreign

logger = logging.getLogger("dsh.attention")
_SETTINGS_MAX = 1 << 20

# Claude Code hook events dsh listens to, with their matcher ("" for events that take none).
CLAUDE_EVENTS = (
    ("SessionStart", None),
    ("UserPromptSubmit", None),
    ("PreToolUse", "AskUserQuestion"),
    ("PostToolUse", "*"),
    ("PermissionRequest", "*"),
    ("Notification", None),
    ("Stop", None),
    ("SessionEnd", None),
)
MARK = "dsh-hook"  # in every command dsh writes, so `dsh integration` finds its own entries


def report_command(kind: str) -> list[str]:
    """The argv a hook runs: this dsh's `report --hook KIND` (the same interpreter and package). `-P`:
    the hook runs in the agent's folder, and a `dsh/` there (a checkout of dsh itself) must not stand
    in for the installed package."""
    return [sys.executable, "-P", "-m", "dsh", "report", "--hook", kind]


def shell_command(kind: str) -> str:
    """The hook's command line (Claude runs it with a shell): quoted, and marked as dsh's. It does
    nothing outside a dsh pane (no DSH_PANE_ID), and never fails the agent."""

    argv = " ".join(shlex.quote(word) for word in report_command(kind))
    return f'[ -z "$DSH_PANE_ID" ] || {argv} 2>/dev/null || true # {MARK}'


def claude_hooks(kind: str = "claude") -> dict[str, list[dict[str, object]]]:
    """dsh's hook groups, by event, in Claude Code's settings shape."""
    hook = {"type": "command", "command": shell_command(kind), "async": True, "timeout": 10}
    out: dict[str, list[dict[str, object]]] = {}
    for event, matcher in CLAUDE_EVENTS:
        group: dict[str, object] = {"hooks": [dict(hook)]}
        if matcher is not None:
            group["matcher"] = matcher
        out[event] = [group]
    return out


def _read_json(path: Path) -> dict[str, object] | None:
    try:
        with open_foreign(path) as handle:
            raw = handle.read(_SETTINGS_MAX + 1)
    except OSError:
        return None
    if len(raw) > _SETTINGS_MAX:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        logger.warning("%s is not JSON: its hooks are not passed on", path)
        return None
    return data if isinstance(data, dict) else None


def user_settings_files(cwd: str, env: Mapping[str, str]) -> list[Path]:
    """Claude Code's settings files for `cwd`, lowest first: the user's, the project's, the local one."""
    home = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")
    return [
        Path(home) / "settings.json",
        Path(cwd) / ".claude" / "settings.json",
        Path(cwd) / ".claude" / "settings.local.json",
    ]


def merge_hooks(*sources: object) -> dict[str, list[object]]:
    """Hook groups by event from several settings objects, in order, each kept as it was written."""
    merged: dict[str, list[object]] = {}
    for source in sources:
        hooks = source.get("hooks") if isinstance(source, dict) else None
        if not isinstance(hooks, dict):
            continue
        for event, groups in hooks.items():
            if isinstance(event, str) and isinstance(groups, list):
                merged.setdefault(event, []).extend(groups)
    return merged


def claude_settings(cwd: str, env: Mapping[str, str], given: dict[str, object] | None = None) -> dict[str, object]:
    """The one settings object dsh passes: `given` (the user's own --settings) with every hook of the
    user's settings files, theirs and then dsh's."""
    files = [_read_json(path) for path in user_settings_files(cwd, env)]
    settings = dict(given or {})
    settings["hooks"] = merge_hooks(*files, given or {}, {"hooks": claude_hooks()})
    return settings


def claude_argv(argv: Sequence[str], *, cwd: str, env: Mapping[str, str], settings_path: Path) -> list[str]:
    """`argv` with `--settings FILE` for dsh's hooks (an argv that already names settings keeps them,
    inside dsh's file); the file is written here. The argv unchanged if anything is in the way."""

    argv = list(argv)
    i = program_index(argv)
    if i is None:
        return argv
    given: dict[str, object] | None = None
    at = None
    for j in range(i + 1, len(argv)):
        word = argv[j]
        if word == "--":
            break
        if word == "--settings" and j + 1 < len(argv):
            at, value = j, argv[j + 1]
        elif word.startswith("--settings="):
            at, value = j, word.split("=", 1)[1]
        else:
            continue
        given = _given_settings(value, cwd)
        if given is None:
            return argv  # settings dsh cannot read: left as the user gave them, without dsh's hooks
    data = json.dumps(claude_settings(cwd, env, given), indent=1).encode()
    try:
        settings_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(settings_path, data, sync=False)
    except OSError as exc:
        logger.warning("claude hooks not written (%s): states come from the terminal only", exc)
        return argv
    if at is not None:
        width = 1 if argv[at].startswith("--settings=") else 2
        return [*argv[:at], "--settings", str(settings_path), *argv[at + width :]]
    return [*argv[: i + 1], "--settings", str(settings_path), *argv[i + 1 :]]


def _given_settings(value: str, cwd: str) -> dict[str, object] | None:
    text = value.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) else None
    return _read_json(Path(cwd, value))


def codex_argv(argv: Sequence[str], *, env: Mapping[str, str]) -> list[str]:
    """`argv` with `-c` options: notify to dsh (unless the user has a notify), the TUI's notifications
    as OSC 9 always. A subcommand other than a conversation's (login, mcp …) is left alone."""
    argv = list(argv)
    i = program_index(argv)
    if i is None:
        return argv
    extra = [
        "-c",
        "tui.notifications=true",
        "-c",
        'tui.notification_method="osc9"',
        "-c",
        'tui.notification_condition="always"',
    ]
    if not _codex_user_notify(env):
        extra = ["-c", "notify=" + json.dumps(report_command("codex")), *extra]
    return [*argv[: i + 1], *extra, *argv[i + 1 :]]


def _codex_user_notify(env: Mapping[str, str]) -> bool:
    """Whether the user's Codex config sets `notify` (theirs is kept; dsh does not replace it)."""
    home = env.get("CODEX_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".codex")
    try:
        import tomllib  # start-up: see ARCHITECTURE.md, imports inside functions

        with open_foreign(Path(home) / "config.toml") as handle:
            data = tomllib.loads(handle.read(_SETTINGS_MAX).decode("utf-8", "replace"))
    except (OSError, ValueError):
        return False
    return bool(data.get("notify"))


OPENCODE_PLUGIN = """// dsh's opencode plugin: tells the dsh pane's host what this agent is doing (written by dsh).
import { spawn } from "node:child_process"
export const DshAttention = async () => {
  const report = %(argv)s
  const events = new Set(["session.status", "session.idle", "permission.asked", "permission.replied",
    "question.asked", "question.replied"])
  let last = ""
  return {
    event: async ({ event }) => {
      if (!process.env.DSH_PANE_ID || !events.has(event.type)) return
      const line = JSON.stringify({ type: event.type, properties: event.properties ?? {} })
      if (line === last) return  // session.status repeats itself while busy
      last = line
      try {
        const child = spawn(report[0], report.slice(1), { stdio: ["pipe", "ignore", "ignore"] })
        child.on("error", () => {})
        child.stdin.on("error", () => {})
        child.stdin.end(line)
      } catch (e) {}
    },
  }
}
"""


def opencode_env(env: dict[str, str], *, folder: Path) -> dict[str, str]:
    """The pane's environment with OPENCODE_CONFIG naming a config whose one plugin is dsh's (opencode
    merges it over the user's own config). The environment unchanged if the files cannot be written."""

    plugin = folder / "dsh-opencode-plugin.js"
    config = folder / "dsh-opencode.json"
    if env.get("OPENCODE_CONFIG"):
        return env  # the user's own: not replaced
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(plugin, (OPENCODE_PLUGIN % {"argv": json.dumps(report_command("opencode"))}).encode(), sync=False)
        atomic_write(config, json.dumps({"plugin": [plugin.as_uri()]}).encode(), sync=False)
    except OSError as exc:
        logger.warning("opencode plugin not written (%s)", exc)
        return env
    return {**env, "OPENCODE_CONFIG": str(config)}


def with_hooks(
    kind: str, argv: Sequence[str], *, cwd: str, env: dict[str, str], folder: Path
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment to start agent `kind` with, its hooks reporting to dsh; unchanged for
    an agent dsh has no hooks for, or if anything goes wrong (an agent always starts)."""
    try:
        if kind == "claude":
            return claude_argv(argv, cwd=cwd, env=env, settings_path=folder / "claude-settings.json"), env
        if kind == "codex":
            return codex_argv(argv, env=env), env
        if kind == "opencode":
            return list(argv), opencode_env(env, folder=folder)
    except Exception:  # never keep the agent from starting
        logger.exception("%s hooks not set up", kind)
    return list(argv), env
