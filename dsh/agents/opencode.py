"""opencode: `opencode --session <id>`; the id comes from `opencode session list --format json`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from dsh.agents.base import MTIME_SLACK, AgentAdapter, env_home, same_dir

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
    packages = ("opencode-ai",)
    home_var = "XDG_DATA_HOME"

    def valid_session_id(self, session_id: object) -> bool:
        return isinstance(session_id, str) and _ID.fullmatch(session_id) is not None

    def home(self, env: Mapping[str, str]) -> Path:
        data = env.get(self.home_var or "")
        return (Path(data) if data else env_home(env) / ".local" / "share") / "opencode"

    def _resume_args(self, session_id: str) -> list[str]:
        return ["--session", session_id]

    def list_sessions(self, cwd: str, env: Mapping[str, str]) -> list[dict[str, object]]:
        """The CLI's own session list (run in `cwd`, short timeout); [] when it cannot be had."""
        full_env = {**os.environ, **env}
        binary = shutil.which(self.binary, path=full_env.get("PATH"))
        if binary is None:
            return []
        try:
            done = subprocess.run(
                [binary, "session", "list", "--format", "json"],
                cwd=cwd if os.path.isdir(cwd) else None,
                env=full_env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=LIST_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return []
        if done.returncode != 0 or len(done.stdout) > MAX_LIST_BYTES:
            return []
        try:
            data = json.loads(done.stdout)
        except (ValueError, RecursionError):
            return []
        return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []

    def find_session_id(self, cwd: str, started_at: float, env: Mapping[str, str]) -> str | None:
        """The most recently updated session of this cwd, updated since the start."""
        best: tuple[float, str] | None = None
        for item in self.list_sessions(cwd, env):
            session_id, directory = item.get("id"), item.get("directory")
            updated = _epoch(item.get("updated"))
            if not self.valid_session_id(session_id) or not isinstance(directory, str) or updated is None:
                continue
            if updated < started_at - MTIME_SLACK or not same_dir(directory, cwd):
                continue
            assert isinstance(session_id, str)
            if best is None or updated > best[0]:
                best = (updated, session_id)
        return best[1] if best else None
