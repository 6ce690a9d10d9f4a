"""Codex CLI: `codex resume <id>`; the id comes from the session_meta line of a rollout file.

Checked against codex-cli 0.171.0: the TUI talks to a shared app-server daemon, which writes
`sessions/YYYY/MM/DD/rollout-<start>-<id>.jsonl` when the first prompt is sent and closes it between
writes, so neither process holds a file that names the session. The first line is
`{"type": "session_meta", "payload": {"id", "session_id", "timestamp", "cwd", ...}}`, dated when the
TUI started its thread (at launch); `codex resume <id>` appends to the same file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from dsh.agents.base import (
    UUID_RE,
    AgentAdapter,
    StoreCandidate,
    env_home,
    file_mtime,
    iso_epoch,
    json_lines,
    uuid_like,
)
from dsh.agents.cli_table import CODEX

_ROLLOUT = re.compile(r"rollout-.*-(" + UUID_RE.pattern + r")\.jsonl")


def read_meta(path: Path) -> dict[str, object] | None:
    """The payload of a rollout's first line when it is a session_meta record."""
    first = next(json_lines(path), None)
    if first is None or first.get("type") != "session_meta":
        return None
    payload = first.get("payload")
    return payload if isinstance(payload, dict) else None


class CodexAdapter(AgentAdapter):
    kind = "codex"
    binary = "codex"
    cli = CODEX
    packages = ("@openai/codex",)
    home_var = "CODEX_HOME"
    dated_at_launch = True
    keeps_transcripts = True

    def valid_session_id(self, session_id: object) -> bool:
        return uuid_like(session_id)

    def home(self, env: Mapping[str, str]) -> Path:
        override = env.get(self.home_var or "")
        return Path(override) if override else env_home(env) / ".codex"

    def _resume_args(self, session_id: str) -> list[str]:
        return ["resume", session_id]

    def launch_id(self, argv: Sequence[str]) -> str | None:
        parsed = self.parse(argv)
        if parsed is None or parsed.subcommand != "resume" or not parsed.positionals:
            return None
        named = parsed.positionals[0]
        return named if self.valid_session_id(named) else None

    def id_from_file(self, path: str, env: Mapping[str, str]) -> str | None:
        sessions = str(self.home(env) / "sessions") + "/"
        found = _ROLLOUT.fullmatch(os.path.basename(path)) if path.startswith(sessions) else None
        return found[1] if found else None

    def candidates(self, cwd: str, env: Mapping[str, str], since: float) -> list[StoreCandidate]:
        """Rollouts written since `since`, dated by their session_meta (the thread's start)."""
        out: list[StoreCandidate] = []
        for path in (self.home(env) / "sessions").glob("*/*/*/rollout-*.jsonl"):
            mtime = file_mtime(path)
            if mtime is None or mtime < since - 1.0:
                continue
            payload = read_meta(path)
            if payload is None:
                continue
            session_id, cwd = payload.get("id"), payload.get("cwd")
            if not self.valid_session_id(session_id) or not isinstance(cwd, str):
                continue
            started = iso_epoch(payload.get("timestamp"))
            assert isinstance(session_id, str)
            out.append(StoreCandidate(session_id, cwd, started if started is not None else mtime, str(path)))
        return out

    def transcript(self, session_id: str, cwd: str | None, env: Mapping[str, str]) -> Path | None:
        if not self.valid_session_id(session_id):
            return None
        found = sorted((self.home(env) / "sessions").glob(f"*/*/*/rollout-*-{session_id}.jsonl"))
        return found[0] if found else None

    def has_conversation(self, path: Path) -> bool:
        return read_meta(path) is not None
