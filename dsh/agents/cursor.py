"""Cursor agent: `cursor-agent --resume <id>`; the id is the newest chat folder in ~/.cursor/chats."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeGuard

from dsh.agents.base import MTIME_SLACK, AgentAdapter, StoreCandidate, env_home, uuid_like
from dsh.agents.cli_table import CURSOR


def workspace_hash(cwd: str) -> str:
    """The chat folder's workspace key: md5 of the cwd (seen by third parties; undocumented)."""
    return hashlib.md5(cwd.encode("utf-8", "surrogateescape"), usedforsecurity=False).hexdigest()


def _chat_time(folder: Path) -> float | None:
    """When a chat was last written: its folder or its store.db, whichever is newer."""
    times = []
    for path in (folder, folder / "store.db"):
        try:
            times.append(path.stat().st_mtime)
        except OSError:
            continue
    return max(times) if times else None


class CursorAdapter(AgentAdapter):
    kind = "cursor-agent"
    binary = "cursor-agent"
    cli = CURSOR
    home_var = None  # the CLI documents no override; HOME decides

    def valid_session_id(self, session_id: object) -> TypeGuard[str]:
        return uuid_like(session_id)

    def home(self, env: Mapping[str, str]) -> Path:
        return env_home(env) / ".cursor"

    def _resume_args(self, session_id: str) -> list[str]:
        return ["--resume", session_id]

    def _chats(self, workspaces: Iterator[Path]) -> Iterator[Path]:
        for workspace in workspaces:
            try:
                children = list(workspace.iterdir())
            except OSError:
                continue
            yield from (child for child in children if self.valid_session_id(child.name) and child.is_dir())

    def launch_id(self, argv: Sequence[str]) -> str | None:
        parsed = self.parse(argv)
        named = parsed.value("--resume") if parsed is not None else None
        return named if self.valid_session_id(named) else None

    def candidates(self, cwd: str, env: Mapping[str, str], since: float) -> list[StoreCandidate]:
        """Chats written since `since` in `cwd`'s workspace folder.

        When no folder matches the md5 of the cwd (the hashing may differ between versions), every
        workspace is scanned. The folder stands for the cwd, so the candidates carry none.
        """
        chats = self.home(env) / "chats"
        keys = {workspace_hash(cwd)}
        try:
            keys.add(workspace_hash(os.path.realpath(cwd)))
        except (OSError, ValueError):
            pass
        workspaces = [chats / key for key in keys if (chats / key).is_dir()]
        if not workspaces:
            try:
                workspaces = [path for path in chats.iterdir() if path.is_dir()]
            except OSError:
                return []
        out: list[StoreCandidate] = []
        for chat in self._chats(iter(workspaces)):
            written = _chat_time(chat)
            if written is not None and written >= since - MTIME_SLACK:
                out.append(StoreCandidate(chat.name, None, written, str(chat)))
        return out
