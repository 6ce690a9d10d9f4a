"""opencode: `opencode --session <id>`; the id comes from its store, `opencode.db` (see opencode_store).

Checked against opencode 1.18.33, run offline: a session is created with the first prompt (and again
at the first prompt after `/new`, in the same process); nothing on disk ties a session to the process
(it holds only the shared database and log open), so which pane began it is told by when its prompt
was sent. `session list --format json` prints [{id, title, updated, created, projectId, directory}]
(times in epoch ms) of the project the command runs in; it is asked only when the database cannot be
read here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TypeGuard

from dsh.agents.base import AgentAdapter, StoreCandidate, env_home
from dsh.agents.cli_table import OPENCODE
from dsh.agents.opencode_store import read_sessions

_ID = re.compile(r"ses_[A-Za-z0-9]{4,64}")
LIST_TIMEOUT = 5.0
MAX_LIST_BYTES = 16 * 1024 * 1024


def _epoch(value: object) -> float | None:
    """opencode's `updated`: epoch milliseconds (or seconds), or an ISO string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value / 1000.0 if value > 1e11 else float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


class OpencodeAdapter(AgentAdapter):
    kind = "opencode"
    binary = "opencode"
    cli = OPENCODE
    packages = ("opencode-ai",)
    home_var = "XDG_DATA_HOME"
    follows_new_sessions = True

    def valid_session_id(self, session_id: object) -> TypeGuard[str]:
        return isinstance(session_id, str) and _ID.fullmatch(session_id) is not None

    def home(self, env: Mapping[str, str]) -> Path:
        data = env.get(self.home_var or "")
        return (Path(data) if data else env_home(env) / ".local" / "share") / "opencode"

    def store_env_for(self, home: str) -> dict[str, str]:
        return {"XDG_DATA_HOME": str(Path(home).parent)}

    def _resume_args(self, session_id: str) -> list[str]:
        return ["--session", session_id]

    def list_sessions(self, cwd: str, env: Mapping[str, str]) -> list[dict[str, object]]:
        """The CLI's own session list (run in `cwd`, short timeout); [] when it cannot be had."""
        return self.list_sessions_or_none(cwd, env) or []

    def list_sessions_or_none(
        self, cwd: str, env: Mapping[str, str], *, timeout: float = LIST_TIMEOUT
    ) -> list[dict[str, object]] | None:
        """The CLI's own session list, or None when the CLI is not there or its answer is not a list."""
        full_env = {**os.environ, **env}
        binary = shutil.which(self.binary, path=full_env.get("PATH"))
        if binary is None:
            return None
        try:
            done = subprocess.run(
                [binary, "session", "list", "--format", "json"],
                cwd=cwd if os.path.isdir(cwd) else None,
                env=full_env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0 or len(done.stdout) > MAX_LIST_BYTES:
            return None
        if not done.stdout.strip():
            return []  # no session yet: opencode 1.18.33 prints nothing at all
        try:
            data = json.loads(done.stdout)
        except (ValueError, RecursionError):
            return None
        return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else None

    def launch_id(self, argv: Sequence[str]) -> str | None:
        parsed = self.parse(argv)
        if parsed is None or parsed.has("--fork"):
            return None
        named = parsed.value("--session")
        return named if self.valid_session_id(named) else None

    def candidates(self, cwd: str, env: Mapping[str, str], since: float) -> list[StoreCandidate]:
        """Sessions updated since `since`, dated (and prompted) by their creation: opencode creates one at
        its first prompt. From the database; from the CLI's list when the database cannot be read."""
        stored = read_sessions(self.home(env), updated_since=since - 1.0)
        if stored is not None:
            return [
                StoreCandidate(found.id, found.directory, found.created, None, found.created)
                for found in stored
                if self.valid_session_id(found.id)
            ]
        out: list[StoreCandidate] = []
        for item in self.list_sessions(cwd, env):
            session_id, directory = item.get("id"), item.get("directory")
            started = _epoch(item.get("created"))
            updated = _epoch(item.get("updated"))
            if not self.valid_session_id(session_id) or not isinstance(directory, str):
                continue
            when = started if started is not None else updated
            if when is None or (updated or when) < since - 1.0:
                continue
            assert isinstance(session_id, str)
            out.append(StoreCandidate(session_id, directory, when, None, started))
        return out
