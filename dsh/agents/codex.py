"""Codex CLI: `codex resume <id>`; the id comes from the session_meta line of its newest rollout file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dsh.agents.base import AgentAdapter, env_home, json_lines, newest_files, same_dir, uuid_like


class CodexAdapter(AgentAdapter):
    kind = "codex"
    binary = "codex"
    packages = ("@openai/codex",)
    home_var = "CODEX_HOME"

    def valid_session_id(self, session_id: object) -> bool:
        return uuid_like(session_id)

    def home(self, env: Mapping[str, str]) -> Path:
        override = env.get(self.home_var or "")
        return Path(override) if override else env_home(env) / ".codex"

    def _resume_args(self, session_id: str) -> list[str]:
        return ["resume", session_id]

    def find_session_id(self, cwd: str, started_at: float, env: Mapping[str, str]) -> str | None:
        """The newest `sessions/YYYY/MM/DD/rollout-*.jsonl` written since the start for this cwd."""
        root = self.home(env) / "sessions"
        for path in newest_files(root.glob("*/*/*/rollout-*.jsonl"), started_at):
            first = next(json_lines(path), None)
            if first is None or first.get("type") != "session_meta":
                continue
            payload = first.get("payload")
            if not isinstance(payload, dict):
                continue
            session_id, recorded = payload.get("id"), payload.get("cwd")
            if self.valid_session_id(session_id) and isinstance(recorded, str) and same_dir(recorded, cwd):
                return session_id
        return None
