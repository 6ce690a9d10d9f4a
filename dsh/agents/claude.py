"""Claude Code: `claude --resume <id>`; the id is injected at launch, read from the agent's own
`sessions/<pid>.json`, or (for versions without it) found in `projects/*/<id>.jsonl`.

Checked against Claude Code 2.1.197: `sessions/<pid>.json` holds {pid, sessionId, cwd, startedAt,
procStart, version, kind, entrypoint, name, status, ...}; it is written at start, rewritten with the
new `sessionId` on `/clear`, and removed when the CLI exits. A transcript
`projects/<encoded cwd>/<sessionId>.jsonl` appears with the first prompt (or command); an id given
with `--session-id` and never prompted has none, and `--resume` of it fails with "No conversation
found with session ID: <id>".
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeGuard

from dsh.agents.base import (
    AgentAdapter,
    StoreCandidate,
    env_home,
    file_mtime,
    iso_epoch,
    json_lines,
    program_index,
    subfolders,
    uuid_like,
)
from dsh.agents.cli_table import CLAUDE, starts_conversation
from dsh.safefile import open_foreign

# Flags that already choose a session; dsh must not add its own then.
_SESSION_OPTIONS = ("--resume", "--continue", "--session-id", "--fork-session", "--from-pr")
_MAX_PID_FILE = 64 * 1024
# Records that make a transcript a conversation `--resume` can load.
_MESSAGE_TYPES = ("user", "assistant")
_HEAD_BYTES = 256 * 1024


class ClaudeAdapter(AgentAdapter):
    kind = "claude"
    binary = "claude"
    cli = CLAUDE
    packages = ("@anthropic-ai/claude-code",)
    home_var = "CLAUDE_CONFIG_DIR"
    keeps_transcripts = True

    def valid_session_id(self, session_id: object) -> TypeGuard[str]:
        return uuid_like(session_id)

    def home(self, env: Mapping[str, str]) -> Path:
        override = env.get(self.home_var or "")
        return Path(override) if override else env_home(env) / ".claude"

    def _resume_args(self, session_id: str) -> list[str]:
        return ["--resume", session_id]

    def launch_id(self, argv: Sequence[str]) -> str | None:
        parsed = self.parse(argv)
        if parsed is None or not starts_conversation(self.cli, parsed):
            return None
        named = parsed.value("--session-id")
        if named is None and not parsed.has("--fork-session"):
            named = parsed.value("--resume")  # `--resume` continues the same id (a name is not an id)
        return named if self.valid_session_id(named) else None

    def prepare_launch(self, argv: Sequence[str], *, env: Mapping[str, str]) -> tuple[list[str], str | None]:
        """Inject `--session-id <uuid4>` unless the argv already picks a session or runs a subcommand."""
        argv = list(argv)
        i = program_index(argv)
        parsed = self.parse(argv)
        if i is None or parsed is None:
            return argv, None
        if parsed.has("--session-id") or parsed.has("--resume"):
            return argv, self.launch_id(argv)
        if not starts_conversation(self.cli, parsed) or any(parsed.has(name) for name in _SESSION_OPTIONS):
            return argv, None
        session_id = str(uuid.uuid4())
        return [*argv[: i + 1], "--session-id", session_id, *argv[i + 1 :]], session_id

    def id_from_process(
        self, pid: int, start_ticks: int | None, env: Mapping[str, str]
    ) -> tuple[str, str | None] | None:
        """`sessions/<pid>.json`: the session the process runs now (it follows `/clear`).

        A file left by a killed process whose pid was reused names another process: its `procStart`
        (start time in clock ticks) then differs from this process's.
        """
        path = self.home(env) / "sessions" / f"{pid}.json"
        try:
            # The agent's store is not ours: a FIFO or a device there must not hang the probe.
            with open_foreign(path) as handle:
                raw = handle.read(_MAX_PID_FILE + 1)
        except OSError:
            return None
        if len(raw) > _MAX_PID_FILE:
            return None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("pid") != pid:
            return None
        recorded_start = data.get("procStart")
        if start_ticks is not None and recorded_start is not None and str(recorded_start) != str(start_ticks):
            return None
        session_id, cwd = data.get("sessionId"), data.get("cwd")
        if not self.valid_session_id(session_id):
            return None
        return session_id, cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None

    def id_from_file(self, path: str, env: Mapping[str, str]) -> str | None:
        projects = str(self.home(env) / "projects") + "/"
        if not path.startswith(projects) or not path.endswith(".jsonl"):
            return None
        stem = os.path.basename(path)[: -len(".jsonl")]
        return stem if self.valid_session_id(stem) else None

    def candidates(self, cwd: str, env: Mapping[str, str], since: float) -> list[StoreCandidate]:
        """`projects/*/<uuid>.jsonl` written since `since`; the cwd is read from inside each file."""
        out: list[StoreCandidate] = []
        for path in self._sessions((self.home(env) / "projects").glob("*")):
            mtime = file_mtime(path)
            if mtime is None or mtime < since - 1.0:
                continue
            file_cwd, started = _head(path)
            out.append(StoreCandidate(path.stem, file_cwd or "", started if started is not None else mtime, str(path)))
        return out

    def _sessions(self, folders: Iterator[Path] | list[Path]) -> Iterator[Path]:
        for folder in folders:
            yield from (path for path in folder.glob("*.jsonl") if self.valid_session_id(path.stem))

    def transcript(self, session_id: str, cwd: str | None, env: Mapping[str, str]) -> Path | None:
        if not self.valid_session_id(session_id):
            return None
        projects = self.home(env) / "projects"
        name = f"{session_id}.jsonl"
        if cwd:
            # The folder Claude most likely used first (cheap); every folder is the fallback, because long
            # paths are truncated and hashed into the name.
            for folder in {encode_cwd(cwd), encode_cwd(os.path.realpath(cwd))}:
                if (projects / folder / name).is_file():
                    return projects / folder / name
        return next(iter(sorted(projects.glob(f"*/{name}"))), None)

    def transcript_folders(self, env: Mapping[str, str]) -> list[Path]:
        projects = self.home(env) / "projects"
        return [projects, *sorted(projects / name for name in subfolders(projects))]

    def has_conversation(self, path: Path) -> bool:
        for record in json_lines(path):
            if record.get("type") in _MESSAGE_TYPES:
                return True
        return False


def _head(path: Path) -> tuple[str | None, float | None]:
    """The first recorded cwd and timestamp of a transcript (its opening records carry neither)."""
    cwd: str | None = None
    started: float | None = None
    for record in json_lines(path, _HEAD_BYTES):
        if cwd is None and isinstance(record.get("cwd"), str):
            cwd = record["cwd"]
        if started is None:
            started = iso_epoch(record.get("timestamp"))
        if cwd is not None and started is not None:
            break
    return cwd, started


def encode_cwd(cwd: str) -> str:
    """Claude's folder name for a cwd (lossy: `_`, `.`, `-` and `/` collide), used only as a hint."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)
