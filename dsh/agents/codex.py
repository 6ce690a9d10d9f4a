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

Going back to an older thread inside the running TUI (its `/resume` picker, Enter on a row; seen here
2026-12-01 11:57-12:03 UTC, threads A, then `/new` B, then `/resume` A): Codex treats the older thread
as current from then on (on exit it prints `codex resume <A>`), and nothing begins a new rollout.
- With the daemon: the Enter on the picker row changes no rollout and no `threads` row of
  `state_5.sqlite`; about 3 s after it (the thread is loaded) the daemon re-creates
  `thread-writer-locks/<A>.lock` (a new mtime) and `shell_snapshots/<A>.<ns>.sh`;
  `tui-thread-reference-capabilities/<A>` keeps its mtime. The daemon holds both rollouts and both
  locks open, the TUI none. A prompt sent then (Enter 11:58:24.756) appends to A's own rollout
  (`thread_settings_applied`, `task_started`, `turn_context`, then the `response_item` user message
  dated 11:58:24.808; the file's mtime 24.827), sets A's `recency_at_ms` (24.787) and appends
  `{"session_id": A, "ts": <seconds>, "text"}` to `history.jsonl` (24.847); B's rollout is untouched.
  (Again at 12:02:39: the user message 53 ms after the Enter.) `app-server-daemon/loaded-threads.json`
  does not appear while the daemon runs: it lists loaded threads and interrupted turns when the daemon
  shuts down (a SIGTERM here, its TUIs gone, wrote `[]`), and says nothing of a running TUI.
- Without the daemon: once A is loaded (about 3 s after the Enter) the TUI holds A's rollout and lock
  open beside those of the thread it left; each switch, also back to a thread it already holds,
  re-creates that thread's `thread-writer-locks/<id>.lock` (a new mtime). Locks are gone once no
  process holds their thread.
So a TUI that holds several rollouts runs the one whose lock changed last; with the daemon a pane's
thread is the one its latest prompt went to (history.jsonl names the threads prompted lately, the
rollout's own user message dates that prompt to the Enter that sent it). A switch with no prompt after
it is not followed with the daemon: only the daemon's lock, seconds later, shows it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeGuard

from dsh.agents.base import (
    FOLLOW_SECONDS,
    NOTHING_SENT,
    UUID_RE,
    AgentAdapter,
    Sent,
    StoreCandidate,
    env_home,
    file_mtime,
    iso_epoch,
    json_lines,
    prompted_here,
    same_dir,
    subfolders,
    uuid_like,
)
from dsh.agents.cli_table import CODEX
from dsh.agents.process import ProcessFacts
from dsh.safefile import open_foreign

_ROLLOUT = re.compile(r"rollout-.*-(" + UUID_RE.pattern + r")\.jsonl")
# A rollout's first line never changes once written: what was read of it is kept, by path and inode.
_HEADS: dict[tuple[str, int], tuple[dict[str, object], float | None] | None] = {}
_HEADS_MAX = 4096
# A prompt is looked for in a rollout's last bytes only (tool output can follow it; then the first prompt
# stands for it), and history.jsonl's last bytes name the threads prompted lately.
TAIL_BYTES = 1024 * 1024
HISTORY_TAIL_BYTES = 64 * 1024
# What was read of a rollout's tail, by (path, inode, size, mtime_ns): it is read again only once appended.
_PROMPTS: dict[tuple[str, int, int, int], float | None] = {}
# Where a thread's rollout is, by (CODEX_HOME, id).
_PATHS: dict[tuple[str, str], str] = {}


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


def _tail_lines(path: Path, limit: int) -> list[bytes]:
    """The whole lines among a file's last `limit` bytes, oldest first; none when it cannot be read."""
    with contextlib.suppress(OSError), open_foreign(path) as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - limit)
        handle.seek(start)
        data = handle.read(limit)
        lines = data.split(b"\n")
        return lines[1:] if start > 0 else lines
    return []


def last_prompt(path: Path) -> float | None:
    """When the last user message in a rollout's tail was written: within moments of the Enter that sent
    it (codex-cli 0.171.0 wrote it 52 ms after). None when the tail holds none."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _PROMPTS:
        return _PROMPTS[key]
    found = None
    for line in reversed(_tail_lines(path, TAIL_BYTES)):
        if b'"user"' not in line:  # most lines are tool output: parse only the likely ones
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        payload = record.get("payload") if isinstance(record, dict) else None
        if record.get("type") == "response_item" and isinstance(payload, dict) and payload.get("role") == "user":
            found = iso_epoch(record.get("timestamp"))
            if found is not None:
                break
    if len(_PROMPTS) >= _HEADS_MAX:
        _PROMPTS.clear()
    _PROMPTS[key] = found
    return found


def prompted_threads(home: Path, since: float) -> list[str]:
    """The threads `history.jsonl` says a prompt went to at or after `since` (it dates them by the second),
    latest last; none when Codex keeps no history (`history.persistence = "none"`) or it cannot be read."""
    found: list[str] = []
    for line in reversed(_tail_lines(home / "history.jsonl", HISTORY_TAIL_BYTES)):
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(entry, dict):
            continue
        when, thread = entry.get("ts"), entry.get("session_id")
        if not isinstance(when, int | float):
            continue
        if when < int(since):
            break  # appended as prompts are sent: the lines before are older still
        if uuid_like(thread) and thread not in found:
            found.append(thread)
    return found[::-1]


def lock_mtime(rollout: Path) -> float | None:
    """When the thread of a rollout was last loaded (`thread-writer-locks/<id>.lock` is re-created then,
    also on a switch back to a thread already loaded); None when no lock is there."""
    named = _ROLLOUT.fullmatch(rollout.name)
    if named is None or len(rollout.parents) < 5:
        return None
    return file_mtime(rollout.parents[4] / "thread-writer-locks" / f"{named[1]}.lock")


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

    def valid_session_id(self, session_id: object) -> TypeGuard[str]:
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
        """The thread loaded last (its lock re-created last): a TUI keeps the rollouts of the threads it left,
        by `/new` or by going back to an older one, open too. Without locks, the thread begun last."""

        def loaded(pair: tuple[str, str]) -> float:
            locked = lock_mtime(Path(pair[1]))
            if locked is not None:
                return locked
            payload = read_meta(Path(pair[1]))
            started = iso_epoch(payload.get("timestamp")) if payload is not None else None
            return started if started is not None else file_mtime(Path(pair[1])) or 0.0

        return max(named, key=loaded)

    def follow_session_id(
        self,
        current: str,
        cwd: str,
        started_at: float,
        env: Mapping[str, str],
        *,
        taken: Collection[str] = (),
        sent: Sent = NOTHING_SENT,
    ) -> str | None:
        """The thread this pane's latest prompt went to, when it is not `current`: one `/new` began, or an
        older one the TUI went back to (`/resume` inside it appends to that thread's own rollout). Of the
        threads begun since the pane started, the ones history.jsonl says were prompted lately and the
        current one, in the pane's folder and held by no other pane, the one whose last prompt this pane
        sent (see prompted_here) latest; None when that is `current` or there is none."""
        if not sent.lately():
            return None
        found = {one.session_id: one for one in self.candidates(cwd, env, started_at)}
        home = self.home(env)
        for thread in [current, *prompted_threads(home, max(sent.mine) - FOLLOW_SECONDS - 1.0)]:
            if thread in found or not self.valid_session_id(thread):
                continue
            path = self._rollout_of(thread, env)
            head = read_head(path) if path is not None else None
            if path is None or head is None:
                continue
            meta, first_prompt = head
            thread_cwd = meta.get("cwd")
            if not isinstance(thread_cwd, str):
                continue
            started = iso_epoch(meta.get("timestamp"))
            found[thread] = StoreCandidate(thread, thread_cwd, started or 0.0, str(path), first_prompt)
        best: StoreCandidate | None = None
        for one in found.values():
            if one.session_id in taken or one.path is None or (one.cwd is not None and not same_dir(one.cwd, cwd)):
                continue
            dated = replace(one, prompted=last_prompt(Path(one.path)) or one.prompted)
            if dated.prompted is None or not prompted_here(dated, sent):
                continue
            if best is None or dated.prompted > (best.prompted or 0.0):
                best = dated
        return best.session_id if best is not None and best.session_id != current else None

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

    def _rollout_of(self, thread: str, env: Mapping[str, str]) -> Path | None:
        """`transcript`, remembered: a rollout keeps its path, and a follow asks every few seconds (a search
        lists every day folder of the store)."""
        key = (str(self.home(env)), thread)
        known = _PATHS.get(key)
        if known is not None and os.path.isfile(known):
            return Path(known)
        path = self.transcript(thread, None, env)
        if path is not None:
            if len(_PATHS) >= _HEADS_MAX:
                _PATHS.clear()
            _PATHS[key] = str(path)
        return path

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
