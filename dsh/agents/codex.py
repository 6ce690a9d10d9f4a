"""Codex CLI: `codex resume <id>`; the id comes from the session_meta line of a rollout file.

Checked against codex-cli 0.171.0, run offline: the TUI talks to an app-server daemon (one per
CODEX_HOME, started by the first TUI as its child and left running when that TUI exits). A thread is
begun when the TUI starts and again on `/new` (its id and `session_meta.timestamp` a few seconds
later); its rollout `sessions/YYYY/MM/DD/rollout-<thread start, local time>-<id>.jsonl` is written
when its first prompt is sent, the first line's own `timestamp` within moments of that Enter. The first
line is `{"timestamp", "type": "session_meta", "payload": {"id", "session_id", "timestamp", "cwd", ...}}`;
`codex resume <id>` appends to the same file. The daemon holds the rollout of every thread it has
loaded open (other TUIs' threads, the thread before `/new`, threads of TUIs that have exited), so its
open files name no one TUI's thread, and the TUI itself holds none. Run without the daemon
(`--disable daemon_auto_start`), the TUI holds its own rollouts open: the one before `/new` as well.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from dsh.agents.base import (
    UUID_RE,
    AgentAdapter,
    StoreCandidate,
    env_home,
    file_mtime,
    iso_epoch,
    json_lines,
    subfolders,
    uuid_like,
)
from dsh.agents.cli_table import CODEX
from dsh.agents.process import ProcessFacts

_ROLLOUT = re.compile(r"rollout-.*-(" + UUID_RE.pattern + r")\.jsonl")
# A rollout's first line never changes once written: what was read of it is kept, by path and inode.
_HEADS: dict[tuple[str, int], tuple[dict[str, object], float | None] | None] = {}
_HEADS_MAX = 4096


def read_meta(path: Path) -> dict[str, object] | None:
    """The payload of a rollout's first line when it is a session_meta record."""
    head = read_head(path)
    return head[0] if head is not None else None


def read_head(path: Path) -> tuple[dict[str, object], float | None] | None:
    """(session_meta payload, when the line was written: the first prompt) of a rollout, or None."""
    try:
        key = (str(path), path.stat().st_ino)
    except OSError:
        return None
    if key in _HEADS:
        return _HEADS[key]
    first = next(json_lines(path), None)
    head = None
    if first is not None and first.get("type") == "session_meta" and isinstance(first.get("payload"), dict):
        head = (first["payload"], iso_epoch(first.get("timestamp")))
    if first is not None:  # an empty file may still get its first line: ask again then
        if len(_HEADS) >= _HEADS_MAX:
            _HEADS.clear()
        _HEADS[key] = head
    return head


def _numbered(folder: Path) -> list[tuple[int, Path]]:
    try:
        return [(int(child.name), child) for child in folder.iterdir() if child.name.isdigit()]
    except OSError:
        return []


def day_folders(sessions: Path, since: float) -> Iterator[Path]:
    """The `YYYY/MM/DD` folders that can hold a thread begun after `since` (they are named by its local
    start date; a day of slack for clock and zone changes), so a scan skips the months before."""
    day = time.localtime(since - 86400)
    floor = (day.tm_year, day.tm_mon, day.tm_mday)
    for year, year_dir in _numbered(sessions):
        if year < floor[0]:
            continue
        for month, month_dir in _numbered(year_dir):
            if (year, month) < floor[:2]:
                continue
            for mday, day_dir in _numbered(month_dir):
                if (year, month, mday) >= floor:
                    yield day_dir


class CodexAdapter(AgentAdapter):
    kind = "codex"
    binary = "codex"
    cli = CODEX
    packages = ("@openai/codex",)
    home_var = "CODEX_HOME"
    dated_at_launch = True
    keeps_transcripts = True
    follows_new_sessions = True

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

    def own_files(self, facts: ProcessFacts) -> bool:
        """Not the app-server daemon's: it holds every loaded thread of every TUI open."""
        parsed = self.parse(facts.argv) if self.recognize(facts.argv) else None
        return parsed is None or parsed.subcommand != "app-server"

    def current_of(self, named: Sequence[tuple[str, str]]) -> tuple[str, str]:
        """The thread begun last: a TUI keeps the rollout from before `/new` open too."""

        def began(pair: tuple[str, str]) -> float:
            payload = read_meta(Path(pair[1]))
            started = iso_epoch(payload.get("timestamp")) if payload is not None else None
            return started if started is not None else file_mtime(Path(pair[1])) or 0.0

        return max(named, key=began)

    def id_from_file(self, path: str, env: Mapping[str, str]) -> str | None:
        sessions = str(self.home(env) / "sessions") + "/"
        found = _ROLLOUT.fullmatch(os.path.basename(path)) if path.startswith(sessions) else None
        return found[1] if found else None

    def candidates(self, cwd: str, env: Mapping[str, str], since: float) -> list[StoreCandidate]:
        """Rollouts written since `since`, dated by their session_meta (the thread's start)."""
        out: list[StoreCandidate] = []
        for folder in day_folders(self.home(env) / "sessions", since):
            for path in folder.glob("rollout-*.jsonl"):
                mtime = file_mtime(path)
                if mtime is None or mtime < since - 1.0:
                    continue
                head = read_head(path)
                if head is None:
                    continue
                payload, prompted = head
                session_id, where = payload.get("id"), payload.get("cwd")
                if not self.valid_session_id(session_id) or not isinstance(where, str):
                    continue
                assert isinstance(session_id, str)
                started = iso_epoch(payload.get("timestamp"))
                out.append(
                    StoreCandidate(session_id, where, started if started is not None else mtime, str(path), prompted)
                )
        return out

    def transcript(self, session_id: str, cwd: str | None, env: Mapping[str, str]) -> Path | None:
        if not self.valid_session_id(session_id):
            return None
        found = sorted((self.home(env) / "sessions").glob(f"*/*/*/rollout-*-{session_id}.jsonl"))
        return found[0] if found else None

    def transcript_folders(self, env: Mapping[str, str]) -> list[Path]:
        sessions = self.home(env) / "sessions"
        found = level = [sessions]
        for _ in range(3):  # YYYY/MM/DD, as the search's pattern reads them
            level = [folder / name for folder in level for name in subfolders(folder)]
            found = found + level
        return found

    def has_conversation(self, path: Path) -> bool:
        return read_meta(path) is not None
