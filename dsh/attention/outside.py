"""Claude Code sessions running outside dsh: its `sessions/<pid>.json` records (pid, sessionId, cwd,
status) of live processes without a dsh pane around them, and `claude agents --json` where that CLI is
installed (its background agents, with `state`). Listed by /agents, marked outside."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from dsh.agents.process import in_dsh_pane
from dsh.attention.model import one_line
from dsh.attention.rows import AgentRow
from dsh.attention.states import BLOCKED, DONE, IDLE, WORKING
from dsh.safefile import open_foreign

_RECORD_MAX = 64 * 1024
_MAX_RECORDS = 200
AGENTS_TIMEOUT = 10.0
AGENTS_EVERY = 60.0  # `claude agents --json` starts a 200 MB binary: at most once a minute
_agents_cache: tuple[float, list[AgentRow]] = (0.0, [])


def claude_home(env: Mapping[str, str]) -> Path:
    override = env.get("CLAUDE_CONFIG_DIR")
    return Path(override) if override else Path(env.get("HOME") or os.path.expanduser("~")) / ".claude"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _status_state(status: object) -> str:
    text = status.lower() if isinstance(status, str) else ""
    if any(word in text for word in ("input", "wait", "permission", "blocked")):
        return BLOCKED
    if any(word in text for word in ("busy", "work", "run", "think")):
        return WORKING
    if any(word in text for word in ("complet", "done", "finish")):
        return DONE
    return IDLE


def session_records(env: Mapping[str, str]) -> list[AgentRow]:
    """Live Claude Code processes outside dsh, from their `sessions/<pid>.json` records."""
    folder = claude_home(env) / "sessions"
    try:
        names = sorted(os.listdir(folder))[:_MAX_RECORDS]
    except OSError:
        return []
    rows = []
    for name in names:
        if not name.endswith(".json") or not name[:-5].isdigit():
            continue
        pid = int(name[:-5])
        if not _alive(pid) or in_dsh_pane(pid):
            continue
        try:
            with open_foreign(folder / name) as handle:
                data = json.loads(handle.read(_RECORD_MAX))
        except (OSError, ValueError, RecursionError):
            continue
        if not isinstance(data, dict) or data.get("pid") != pid:
            continue
        cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else ""
        started = data.get("startedAt")
        since = started / 1000 if isinstance(started, (int, float)) and started > 1e11 else 0.0
        rows.append(
            AgentRow(
                session=None,
                cwd=one_line(cwd, 300) or "",
                pane=None,
                title=one_line(data.get("name"), 60) or "",
                kind="claude",
                state=_status_state(data.get("status")),
                since=since,
                message=None,
                outside=True,
                pid=pid,
            )
        )
    return rows


def agents_json(env: Mapping[str, str], *, now: float | None = None) -> list[AgentRow]:
    """`claude agents --json` (Claude Code 2.1.145+), at most once a minute; [] where it is not installed,
    fails, or says something else than a list."""
    global _agents_cache
    now = time.monotonic() if now is None else now
    at, rows = _agents_cache
    if at and now - at < AGENTS_EVERY:
        return rows
    rows = []
    program = shutil.which("claude", path=env.get("PATH"))
    if program is not None:
        try:
            out = subprocess.run(
                [program, "agents", "--json"],
                capture_output=True,
                timeout=AGENTS_TIMEOUT,
                env={**env, "DISABLE_AUTOUPDATER": "1"},
                stdin=subprocess.DEVNULL,
            )
            data = json.loads(out.stdout[: 4 << 20]) if out.returncode == 0 else []
        except (OSError, subprocess.SubprocessError, ValueError, RecursionError):
            data = []
        rows = [row for item in (data if isinstance(data, list) else [])[:_MAX_RECORDS] if (row := _agent(item))]
    _agents_cache = (now, rows)
    return rows


def _agent(item: object) -> AgentRow | None:
    if not isinstance(item, dict):
        return None
    cwd = item.get("cwd")
    return AgentRow(
        session=None,
        cwd=one_line(cwd, 300) or "" if isinstance(cwd, str) else "",
        pane=None,
        title=one_line(item.get("name") or item.get("title"), 60) or "",
        kind="claude",
        state=_status_state(item.get("state") or item.get("status")),
        message=one_line(item.get("waitingFor")),
        outside=True,
        pid=item.get("pid") if isinstance(item.get("pid"), int) else None,
    )


def outside_rows(env: Mapping[str, str]) -> list[AgentRow]:
    """What /agents lists of agents outside dsh without waiting: the session records, and the last
    answer of `claude agents --json` (asked for again in the background by the machine's refresh)."""
    return session_records(env) + _agents_cache[1]
