"""Shared parts of the fake agent CLIs: the invocation log, the banner, the echo loop (stdlib only)."""

from __future__ import annotations

import json
import os
import re
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def new_uuid() -> str:
    return str(uuid.uuid4())


def home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def log_invocation(agent: str) -> None:
    """Append this run's argv and cwd to $FAKE_AGENT_LOG as one JSON line."""
    path = os.environ.get("FAKE_AGENT_LOG")
    if not path:
        return
    line = json.dumps({"agent": agent, "argv": sys.argv, "args": sys.argv[1:], "cwd": os.getcwd(), "pid": os.getpid()})
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def option(args: list[str], *names: str) -> str | None:
    """Value of `--name VALUE` / `--name=VALUE` / `-n VALUE`, or None."""
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                return args[i + 1]
            if name.startswith("--") and arg.startswith(name + "="):
                return arg[len(name) + 1 :]
    return None


def fail(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    sys.exit(1)


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def echo_until_eof(agent: str, on_line: Callable[[str], None] | None = None) -> None:
    """Echo each stdin line back (recording it in the session store), until EOF."""
    while True:
        line = sys.stdin.readline()
        if not line:
            say(f"{agent}: bye")
            return
        text = line.rstrip("\r\n")
        if on_line is not None:
            on_line(text)
        say(f"{agent}> {text}")


def claude_hooks(args: list[str], config: str, cwd: str) -> dict[str, list[dict]]:
    """The hooks Claude Code 2.1.197 runs: the user's settings files' and `--settings FILE`'s, merged."""
    merged: dict[str, list[dict]] = {}
    paths = [
        os.path.join(config, "settings.json"),
        os.path.join(cwd, ".claude", "settings.json"),
        os.path.join(cwd, ".claude", "settings.local.json"),
    ]
    given = option(args, "--settings")
    if given:
        paths.append(given if os.path.isabs(given) else os.path.join(cwd, given))
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            continue
        for event, groups in (data.get("hooks") or {}).items():
            merged.setdefault(event, []).extend(groups)
    return merged


def run_claude_hooks(hooks: dict[str, list[dict]], event: str, payload: dict, tool: str | None = None) -> None:
    """Run an event's hooks as Claude Code does: each matching command once (identical commands are
    deduplicated), through a shell, the event's JSON on stdin; `async` ones in the background."""
    import subprocess

    seen: set[str] = set()
    body = json.dumps({**payload, "hook_event_name": event}).encode()
    for group in hooks.get(event, []):
        matcher = group.get("matcher")
        if tool is not None and matcher not in (None, "", "*") and not re.fullmatch(matcher, tool):
            continue
        for hook in group.get("hooks", []):
            command = hook.get("command")
            if hook.get("type") != "command" or not command or command in seen:
                continue
            seen.add(command)
            child = subprocess.Popen(
                ["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            child.stdin.write(body)
            child.stdin.close()
            if not hook.get("async"):
                child.wait(timeout=hook.get("timeout", 60))
