"""Shared parts of the fake agent CLIs: the invocation log, the banner, the echo loop (stdlib only)."""

from __future__ import annotations

import json
import os
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
