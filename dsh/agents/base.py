"""The agent adapter interface, and the argv and file helpers every adapter shares."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from dsh.agents.cli_table import CliSpec, ParsedArgs, parse_args, starts_conversation
from dsh.agents.process import ProcessFacts
from dsh.agents.programs import program_index, program_name
from dsh.persist.records import AgentInfo
from dsh.safefile import open_foreign
from dsh.store.timefmt import epoch_from_iso

UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# File times and the pane's start time come from different clocks (filesystem vs time.time()).
MTIME_SLACK = 1.0
# Session files can hold megabytes of tool output; the fields we need sit near the top.
MAX_SCAN_BYTES = 4 * 1024 * 1024
# An agent that begins a session with a prompt records it soon after the Enter that sent it: Codex 0.171
# 30-50 ms after a prompt in a thread begun by `/new`, but 1.4-2.6 s after the first prompt of a TUI just
# started (three runs, with and without its daemon); opencode 1.18 5 ms after. A line a pane sent up to
# this long before (or, for clock slack, a little after) the record is the one that began it.
PROMPT_BEFORE = 3.0
PROMPT_AFTER = 0.2
# A pane that sent no line for this long began no session since its last looks (every few seconds):
# its store is not scanned for one.
FOLLOW_SECONDS = 60.0


class AgentError(ValueError):
    """An adapter refused a value (for example a session id that is not in the agent's format)."""


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


def env_home(env: Mapping[str, str]) -> Path:
    """The user's home for an agent: the pane's HOME, else this process's."""
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def subfolders(folder: Path) -> list[str]:
    """The names of the folders in `folder` (links to folders too, and hidden ones: Path.glob's `*`
    matches both); none when it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return [e.name for e in entries if _is_dir(e)]
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


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


@dataclass(frozen=True)
class StoreCandidate:
    """A session found in an agent's store by scanning it (no process tied to it)."""

    session_id: str
    cwd: str | None  # None when the store is keyed by the directory already (cursor-agent)
    started: float  # when the session began, as the store says (else the file's mtime)
    path: str | None = None
    # When the store says the session's first prompt was sent (it was written then), where it says so.
    prompted: float | None = None


@dataclass(frozen=True)
class Sent:
    """When lines were sent (an Enter written to the PTY) to this pane and to the other panes running the
    same agent in the same folder: a session an agent begins at a prompt belongs to the pane that sent it."""

    mine: tuple[float, ...] = ()
    theirs: tuple[float, ...] = ()

    def lately(self) -> bool:
        """Whether this pane sent a line within FOLLOW_SECONDS (see there)."""
        return bool(self.mine) and max(self.mine) >= time.time() - FOLLOW_SECONDS


NOTHING_SENT = Sent()


def _near(when: float, times: Sequence[float]) -> bool:
    return any(when - PROMPT_BEFORE <= sent <= when + PROMPT_AFTER for sent in times)


def _last_before(when: float, times: Sequence[float]) -> float | None:
    """The last of `times` at or before `when` (a millisecond of slack: stores write milliseconds) and
    not longer than PROMPT_BEFORE before it."""
    found = [sent for sent in times if when - PROMPT_BEFORE <= sent <= when + 0.001]
    return max(found) if found else None


def prompted_here(found: StoreCandidate, sent: Sent) -> bool | None:
    """True when this pane sent the prompt that began `found`, False when another pane did, None when the
    store does not date the prompt, neither sent a line just then, or there is no telling which did."""
    if found.prompted is None:
        return None
    mine, theirs = _near(found.prompted, sent.mine), _near(found.prompted, sent.theirs)
    if mine != theirs:
        return mine
    if not mine:
        return None
    # Both sent a line just then (Enter pressed in two panes within the same second). The agent writes
    # its record moments after the Enter that began it, before any later one, so it is the pane whose
    # last line before the record is the later one, when the record followed that line sooner than that
    # line followed the other pane's; two Enters closer together than that cannot be told apart.
    last_mine, last_theirs = _last_before(found.prompted, sent.mine), _last_before(found.prompted, sent.theirs)
    if last_mine is None or last_theirs is None:
        return None if last_mine is None and last_theirs is None else last_mine is not None
    later, earlier = max(last_mine, last_theirs), min(last_mine, last_theirs)
    if found.prompted - later >= later - earlier:
        return None
    return last_mine > last_theirs


def _eligible(found: StoreCandidate, *, cwd: str, since: float, taken: Collection[str]) -> bool:
    if found.session_id in taken or found.started < since - MTIME_SLACK:
        return False
    return found.cwd is None or same_dir(found.cwd, cwd)


def choose_candidate(
    candidates: Sequence[StoreCandidate],
    *,
    cwd: str,
    since: float,
    taken: Collection[str] = (),
    rivals: Sequence[float] = (),
    sent: Sent = NOTHING_SENT,
) -> StoreCandidate | None:
    """The session a pane started at `since` in `cwd` most likely runs, when nothing ties one to its process.

    A session another pane holds (`taken`) is never chosen, so two panes never get one id. A session whose
    first prompt this pane sent (see `prompted_here`) is the pane's, the latest of them its current one; a
    session another pane's prompt began is never this pane's. Of the rest, the first one begun after the
    start wins: a later one is more likely another agent's. `rivals` are the start times of other panes
    running the same agent in the same folder; where the store dates a session from the agent's own start
    (Codex), a session begun after a rival started is the rival's.
    """
    best: StoreCandidate | None = None
    owned: StoreCandidate | None = None
    for found in candidates:
        if not _eligible(found, cwd=cwd, since=since, taken=taken):
            continue
        here = prompted_here(found, sent)
        if here is False:
            continue
        if here:
            if owned is None or found.started > owned.started:
                owned = found
            continue
        if any(since < rival <= found.started for rival in rivals):
            continue
        if best is None or found.started < best.started:
            best = found
    return owned or best


def moved_on(
    candidates: Sequence[StoreCandidate],
    *,
    current: str,
    cwd: str,
    since: float,
    taken: Collection[str] = (),
    sent: Sent = NOTHING_SENT,
) -> StoreCandidate | None:
    """The session a running agent moved on to from `current` (Codex's and opencode's `/new` begin one in the
    same process, and nothing on disk ties it to the process): begun after `current` and after the pane
    started, in its folder, held by no other pane, and begun by a prompt this pane sent. The latest wins."""
    floor = since - MTIME_SLACK
    for found in candidates:
        if found.session_id == current:
            floor = max(floor, found.started)
    best: StoreCandidate | None = None
    for found in candidates:
        if found.session_id == current or not _eligible(found, cwd=cwd, since=since, taken=taken):
            continue
        if found.started <= floor or not prompted_here(found, sent):
            continue
        if best is None or found.started > best.started:
            best = found
    return best


def iso_epoch(value: object) -> float | None:
    return epoch_from_iso(value) if isinstance(value, str) else None


def file_mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


class AgentAdapter(ABC):
    """One agent CLI: recognize it in an argv, learn its session id, build its official resume argv.

    `started_at` is wall-clock time (time.time()) of the pane's start.
    """

    kind: str
    binary: str
    cli: CliSpec
    packages: tuple[str, ...] = ()  # npm package names that run this CLI through npx
    home_var: str | None = None  # the agent's own override of where it keeps its state
    # Whether the store dates a session from the agent's start (so a rival's start bounds it).
    dated_at_launch: bool = False
    # Whether `transcript` can find a session's file: then a session without one has no conversation.
    keeps_transcripts: bool = False
    # Whether the running CLI begins new sessions in the same process with nothing on disk naming its
    # process (Codex's and opencode's `/new`): then its store is watched for the next one.
    follows_new_sessions: bool = False

    def recognize(self, argv: Sequence[str]) -> bool:
        """True when `argv` runs this agent (directly, by absolute path, behind `env` or `npx`)."""
        name = program_name(argv)
        return name is not None and (name == self.binary or name in self.packages)

    def parse(self, argv: Sequence[str]) -> ParsedArgs | None:
        """The agent's own arguments in `argv` (after the program), read with its CLI table."""
        i = program_index(argv)
        return parse_args(self.cli, argv[i + 1 :]) if i is not None else None

    def starts_conversation(self, argv: Sequence[str]) -> bool:
        """False for a subcommand that keeps no conversation (`claude mcp list`, `codex login`)."""
        parsed = self.parse(argv)
        return parsed is not None and starts_conversation(self.cli, parsed)

    def launch_id(self, argv: Sequence[str]) -> str | None:
        """The session the command line itself names (`--session-id X`, `--resume X`), if any."""
        return None

    def work_dir(self, argv: Sequence[str], cwd: str) -> str:
        """The directory the agent works in: its own option (`codex -C DIR`, `opencode DIR`), else `cwd`."""
        parsed = self.parse(argv)
        if parsed is None:
            return cwd
        named = next((parsed.value(name) for name in self.cli.dir_options if parsed.value(name)), None)
        if named is None and self.cli.positional_dir and parsed.subcommand is None and parsed.positionals:
            named = parsed.positionals[0]
        if not named:
            return cwd
        return os.path.normpath(os.path.join(cwd, os.path.expanduser(named)))

    def prepare_launch(self, argv: Sequence[str], *, env: Mapping[str, str]) -> tuple[list[str], str | None]:
        """The argv to spawn when dsh launches this agent, and the session id if known up front."""
        return list(argv), self.launch_id(argv)

    @abstractmethod
    def valid_session_id(self, session_id: object) -> TypeGuard[str]:
        """True when `session_id` has this agent's id format (and so is safe to put in an argv)."""

    def candidates(self, cwd: str, env: Mapping[str, str], since: float) -> list[StoreCandidate]:
        """Sessions in the agent's store written since `since` (with slack), for `find_session_id`."""
        return []

    def find_session_id(
        self,
        cwd: str,
        started_at: float,
        env: Mapping[str, str],
        *,
        taken: Collection[str] = (),
        rivals: Sequence[float] = (),
        sent: Sent = NOTHING_SENT,
    ) -> str | None:
        """The session this agent most likely runs in `cwd`, begun after `started_at` (see choose_candidate)."""
        found = choose_candidate(
            self.candidates(cwd, env, started_at),
            cwd=cwd,
            since=started_at,
            taken=taken,
            rivals=rivals if self.dated_at_launch else (),
            sent=sent,
        )
        return found.session_id if found is not None else None

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
        """The session the agent moved on to from `current` while it runs (see moved_on), for a CLI that
        begins one in the same process and ties none to it on disk; None when it has not."""
        if not self.follows_new_sessions or not sent.lately():
            return None
        found = moved_on(
            self.candidates(cwd, env, started_at), current=current, cwd=cwd, since=started_at, taken=taken, sent=sent
        )
        return found.session_id if found is not None else None

    def own_files(self, facts: ProcessFacts) -> bool:
        """Whether the files `facts` holds open are that process's own sessions (not a server's that many
        agent processes share)."""
        return True

    def current_of(self, named: Sequence[tuple[str, str]]) -> tuple[str, str]:
        """Of the (session id, transcript) pairs one process holds open, the one it runs now."""
        return named[0]

    def id_from_process(
        self, pid: int, start_ticks: int | None, env: Mapping[str, str]
    ) -> tuple[str, str | None] | None:
        """(session id, cwd) that the agent itself records for its process `pid`, or None."""
        return None

    def id_from_file(self, path: str, env: Mapping[str, str]) -> str | None:
        """The session whose transcript `path` is (a file the agent holds open), or None."""
        return None

    def transcript(self, session_id: str, cwd: str | None, env: Mapping[str, str]) -> Path | None:
        """Where the agent keeps this session's conversation, if it is on disk and this dsh knows where."""
        return None

    def has_conversation(self, path: Path) -> bool:
        """Whether a transcript holds a conversation the CLI can resume (not just its opening records)."""
        return True

    def transcript_folders(self, env: Mapping[str, str]) -> list[Path]:
        """The folders whose entries `transcript` depends on (it lists them or looks a name up in them),
        so a listing can tell by their mtimes that a search would find what it found before."""
        return []

    @abstractmethod
    def _resume_args(self, session_id: str) -> list[str]:
        """The arguments after the binary that resume `session_id`."""

    @abstractmethod
    def home(self, env: Mapping[str, str]) -> Path:
        """Where the agent keeps its state, honouring its override variable."""

    def store_env(self, env: Mapping[str, str]) -> dict[str, str]:
        """The agent's store override from `env` (`CLAUDE_CONFIG_DIR=…`), which a resume must run with too."""
        if self.home_var and env.get(self.home_var):
            return {self.home_var: env[self.home_var]}
        return {}

    def store_env_for(self, home: str) -> dict[str, str]:
        """The environment that makes the CLI use the store at `home` (where `home(env)` would say so)."""
        return {self.home_var: home} if self.home_var else {}

    def resume_argv(self, session_id: str, program: str | None = None) -> list[str]:
        """The official resume command as a list; AgentError for an id not in the agent's format."""
        if not self.valid_session_id(session_id):
            raise AgentError(f"{self.kind}: {session_id!r} is not a valid session id")
        return [program or self.binary, *self._resume_args(session_id)]

    def valid_program(self, path: object) -> bool:
        """Whether a saved program path may run this agent: absolute, executable, and named like it.

        A snapshot is untrusted: a path there only ever runs a file named after this CLI.
        """
        if not isinstance(path, str) or not os.path.isabs(path) or "\x00" in path:
            return False
        name = os.path.basename(path)
        if name not in (self.binary, *self.packages) and not name.startswith(self.binary + "."):
            return False
        return os.path.isfile(path) and os.access(path, os.X_OK)

    def model_from_argv(self, argv: Sequence[str]) -> str | None:
        """The model named on the command line (`--model X` or `-m X`), if any."""
        parsed = self.parse(argv)
        return parsed.value("--model") if parsed is not None else None

    def agent_info(self, argv: Sequence[str], session_id: str | None, **learned: Any) -> AgentInfo:
        """What a snapshot records for this agent; a malformed id is dropped, never saved."""
        sid = session_id if session_id is not None and self.valid_session_id(session_id) else None
        program = learned.pop("program", None)
        program = program if self.valid_program(program) else None
        return AgentInfo(
            kind=self.kind,
            session_id=sid,
            resume_argv=self.resume_argv(sid, program) if sid else None,
            model=self.model_from_argv(argv),
            program=program,
            **learned,
        )


def uuid_like(value: object) -> TypeGuard[str]:
    """True for a canonical 8-4-4-4-12 hex UUID string."""
    return isinstance(value, str) and UUID_RE.fullmatch(value) is not None
