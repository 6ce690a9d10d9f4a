"""The agent adapter interface, and the argv and file helpers every adapter shares."""

from __future__ import annotations

import contextlib
import json
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dsh.persist.records import AgentInfo
from dsh.safefile import open_foreign

UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# File times and the pane's start time come from different clocks (filesystem vs time.time()).
MTIME_SLACK = 1.0
# Session files can hold megabytes of tool output; the fields we need sit near the top.
MAX_SCAN_BYTES = 4 * 1024 * 1024

_ENV_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_ENV_OPTS_WITH_VALUE = {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}
_NPX = {"npx", "bunx", "pnpx"}
_NPX_OPTS_WITH_VALUE = {"-p", "--package", "--cache", "--registry", "--userconfig"}


class AgentError(ValueError):
    """An adapter refused a value (for example a session id that is not in the agent's format)."""


def _basename(arg: str) -> str:
    return arg.rstrip("/").rsplit("/", 1)[-1]


def _package_name(spec: str) -> str:
    """`@scope/name@1.2` -> `@scope/name`, `name@latest` -> `name`."""
    at = spec.find("@", 1)
    return spec[:at] if at > 0 else spec


def _locate(argv: Sequence[str]) -> tuple[int, bool] | None:
    """(index of the program that runs, whether it is an npm package run by npx), or None."""
    i = 0
    while i < len(argv):
        name = _basename(argv[i])
        if name == "env":
            i += 1
            while i < len(argv):
                arg = argv[i]
                if arg == "--":
                    i += 1
                    break
                if arg in _ENV_OPTS_WITH_VALUE:
                    i += 2
                elif arg.startswith("-") or _ENV_ASSIGN.fullmatch(arg):
                    i += 1
                else:
                    break
            continue
        if name in _NPX:
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                arg = argv[i]
                i += 2 if arg in _NPX_OPTS_WITH_VALUE else 1
                if arg == "--":
                    break
            return (i, True) if i < len(argv) else None
        return i, False
    return None


def program_index(argv: Sequence[str]) -> int | None:
    """Index of the program that actually runs, looking through `env [opts] [VAR=x...]` and `npx [-y] pkg`.

    Behind npx-style launchers it is the index of the package argument.
    """
    found = _locate(argv)
    return found[0] if found else None


def program_name(argv: Sequence[str]) -> str | None:
    """The name of the program that runs: a basename, or an npm package name (no version) behind npx."""
    if isinstance(argv, str) or not argv or not all(isinstance(arg, str) for arg in argv):
        return None
    found = _locate(argv)
    if found is None:
        return None
    i, via_npx = found
    return _package_name(argv[i]) if via_npx else _basename(argv[i])


def same_dir(a: str, b: str) -> bool:
    """True when two paths name the same folder (agents record the resolved cwd, panes the logical one)."""
    if not a or not b:
        return False
    if os.path.normpath(a) == os.path.normpath(b):
        return True
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def option_value(args: Sequence[str], *names: str) -> str | None:
    """The value of `--name VALUE` or `--name=VALUE` in `args`, the last one winning."""
    value = None
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                value = args[i + 1]
            elif name.startswith("--") and arg.startswith(name + "="):
                value = arg[len(name) + 1 :]
    return value


def env_home(env: Mapping[str, str]) -> Path:
    """The user's home for an agent: the pane's HOME, else this process's."""
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def newest_files(paths: Iterator[Path], started_at: float) -> list[Path]:
    """`paths` modified after `started_at` (with slack), newest first; unreadable ones skipped."""
    found: list[tuple[float, Path]] = []
    for path in paths:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        if mtime >= started_at - MTIME_SLACK:
            found.append((mtime, path))
    found.sort(key=lambda item: item[0], reverse=True)
    return [path for _, path in found]


def json_lines(path: Path, limit: int = MAX_SCAN_BYTES) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL file's first `limit` bytes; malformed lines are skipped."""
    # An agent's store is not ours: links are fine, but a FIFO there must not hang a probe or the picker.
    with contextlib.suppress(OSError), open_foreign(path) as handle:
        read = 0
        while read < limit:
            line = handle.readline(limit - read)
            if not line:
                return
            read += len(line)
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict):
                yield obj


class AgentAdapter(ABC):
    """One agent CLI: recognize it in an argv, learn its session id, build its official resume argv.

    `started_at` is wall-clock time (time.time()) of the pane's start.
    """

    kind: str
    binary: str
    packages: tuple[str, ...] = ()  # npm package names that run this CLI through npx
    home_var: str | None = None  # the agent's own override of where it keeps its state

    def recognize(self, argv: Sequence[str]) -> bool:
        """True when `argv` runs this agent (directly, by absolute path, behind `env` or `npx`)."""
        name = program_name(argv)
        return name is not None and (name == self.binary or name in self.packages)

    def prepare_launch(self, argv: Sequence[str], *, env: Mapping[str, str]) -> tuple[list[str], str | None]:
        """The argv to spawn when dsh launches this agent, and the session id if known up front."""
        return list(argv), None

    @abstractmethod
    def valid_session_id(self, session_id: object) -> bool:
        """True when `session_id` has this agent's id format (and so is safe to put in an argv)."""

    @abstractmethod
    def find_session_id(self, cwd: str, started_at: float, env: Mapping[str, str]) -> str | None:
        """The id of the session this agent runs in `cwd`, started (or written) after `started_at`."""

    @abstractmethod
    def _resume_args(self, session_id: str) -> list[str]:
        """The arguments after the binary that resume `session_id`."""

    @abstractmethod
    def home(self, env: Mapping[str, str]) -> Path:
        """Where the agent keeps its state, honouring its override variable."""

    def resume_argv(self, session_id: str) -> list[str]:
        """The official resume command as a list; AgentError for an id not in the agent's format."""
        if not self.valid_session_id(session_id):
            raise AgentError(f"{self.kind}: {session_id!r} is not a valid session id")
        return [self.binary, *self._resume_args(session_id)]

    def model_from_argv(self, argv: Sequence[str]) -> str | None:
        """The model named on the command line (`--model X` or `-m X`), if any."""
        i = program_index(argv)
        return option_value(argv[i + 1 :], "--model", "-m") if i is not None else None

    def agent_info(self, argv: Sequence[str], session_id: str | None) -> AgentInfo:
        """What a snapshot records for this agent; a malformed id is dropped, never saved."""
        sid = session_id if session_id is not None and self.valid_session_id(session_id) else None
        return AgentInfo(
            kind=self.kind,
            session_id=sid,
            resume_argv=self.resume_argv(sid) if sid else None,
            model=self.model_from_argv(argv),
        )


def uuid_like(value: object) -> bool:
    """True for a canonical 8-4-4-4-12 hex UUID string."""
    return isinstance(value, str) and UUID_RE.fullmatch(value) is not None
