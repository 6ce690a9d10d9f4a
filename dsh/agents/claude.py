"""Claude Code: `claude --resume <id>`; the id is injected at launch or found in ~/.claude/projects."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from dsh.agents.base import (
    AgentAdapter,
    env_home,
    json_lines,
    newest_files,
    option_value,
    program_index,
    same_dir,
    uuid_like,
)

# Flags that already choose a session; dsh must not add its own then.
_SESSION_FLAGS = ("--resume", "-r", "--continue", "-c", "--session-id", "--fork-session", "--from-pr")
# Subcommands that do not start a conversation.
_SUBCOMMANDS = frozenset(
    {"mcp", "config", "doctor", "update", "upgrade", "install", "migrate-installer", "setup-token", "plugin",
     "agents", "auth", "api-key"}
)


class ClaudeAdapter(AgentAdapter):
    kind = "claude"
    binary = "claude"
    packages = ("@anthropic-ai/claude-code",)
    home_var = "CLAUDE_CONFIG_DIR"

    def valid_session_id(self, session_id: object) -> bool:
        return uuid_like(session_id)

    def home(self, env: Mapping[str, str]) -> Path:
        override = env.get(self.home_var or "")
        return Path(override) if override else env_home(env) / ".claude"

    def _resume_args(self, session_id: str) -> list[str]:
        return ["--resume", session_id]

    def prepare_launch(self, argv: Sequence[str], *, env: Mapping[str, str]) -> tuple[list[str], str | None]:
        """Inject `--session-id <uuid4>` unless the argv already picks a session or runs a subcommand."""
        argv = list(argv)
        i = program_index(argv)
        if i is None:
            return argv, None
        args = argv[i + 1 :]
        given = option_value(args, "--session-id")
        if given is not None:
            return argv, given if self.valid_session_id(given) else None
        for arg in args:
            if arg in _SESSION_FLAGS or arg.split("=", 1)[0] in _SESSION_FLAGS:
                return argv, None
        positional = next((arg for arg in args if not arg.startswith("-")), None)
        if positional in _SUBCOMMANDS:
            return argv, None
        session_id = str(uuid.uuid4())
        return [*argv[: i + 1], "--session-id", session_id, *args], session_id

    def find_session_id(self, cwd: str, started_at: float, env: Mapping[str, str]) -> str | None:
        """The newest `projects/*/<uuid>.jsonl` written since the start whose records carry this cwd.

        The cwd is read from inside the file: the folder name is a lossy encoding of it.
        """
        root = self.home(env) / "projects"
        # The folder Claude most likely used comes first (cheap); every folder is the fallback, because
        # long paths are truncated and hashed into the name. Either way the cwd inside the file decides.
        likely = {_encode(cwd), _encode(os.path.realpath(cwd))}
        for folders in ([root / name for name in likely], root.glob("*")):
            for path in newest_files(self._sessions(folders), started_at):
                if self._file_cwd_matches(path, cwd):
                    return path.stem
        return None

    def _sessions(self, folders: Iterator[Path] | list[Path]) -> Iterator[Path]:
        for folder in folders:
            yield from (path for path in folder.glob("*.jsonl") if self.valid_session_id(path.stem))

    @staticmethod
    def _file_cwd_matches(path: Path, cwd: str) -> bool:
        for record in json_lines(path):
            recorded = record.get("cwd")
            if isinstance(recorded, str):
                return same_dir(recorded, cwd)  # one session, one project: the first cwd decides
        return False


def _encode(cwd: str) -> str:
    """Claude's folder name for a cwd (lossy: `_`, `.`, `-` and `/` collide), used only as a hint."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)
