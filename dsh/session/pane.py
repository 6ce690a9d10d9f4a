"""Pane records of a running session: what each pane runs, where, its terminal and its restore state."""

from __future__ import annotations

import os
import re
import shlex

from dsh.attention.model import Attention
from dsh.persist.snapshot import AgentInfo
from dsh.persist.states import PaneState
from dsh.store.timefmt import now_iso
from dsh.term.terminal import Terminal
from dsh.text import sanitize, strip_format
from dsh.values import Value

# The glyphs agents animate at the front of their titles while they work (Claude Code's braille
# dots and its ✳ ✶ ✻ ✽ ✢ · stars; Codex's and opencode's braille), and the space after them.
_SPINNER = re.compile(r"^[\u2800-\u28ff\u2722\u2733\u2736\u273b\u273d\u00b7\u2022\u25cf\u25d0-\u25d3]+\s*")


class Pane(
    Value,
    fields=(
        "id",
        "argv",
        "cwd",
        "env",
        "terminal",
        "state",
        "created_at",
        "agent",
        "started_at",
        "saved_title",
        "attention",
        "last_message",
        "exit_status",
        "started_from",
        "agent_pid",
        "agent_seen_at",
        "agent_cwd",
        "takes_keys",
        "keys_polled_at",
        "name",
        "foreground",
        "saved_command",
        "agent_state",
    ),
):
    """One pane slot. Its terminal always exists: a tombstone's terminal holds the saved tail, unstarted."""

    id: str
    argv: list[str]
    cwd: str
    env: dict[str, str]
    terminal: Terminal
    state: PaneState
    created_at: str
    agent: AgentInfo | None
    started_at: float | None
    saved_title: str | None
    attention: bool
    last_message: str | None
    exit_status: int | None
    # Set when a key press started this pane from a tombstone: the state to fall back to if it fails.
    started_from: PaneState | None
    # An agent the user started inside this pane's shell (typed `claude`), seen as the foreground
    # program: its pid, when it was seen, and its directory. None for agents dsh launched itself.
    agent_pid: int | None
    agent_seen_at: float | None
    agent_cwd: str | None
    # Whether a program other than the pane's shell has the foreground and reads keys itself (so the
    # keyboard belongs in the pane), as last polled; and when it was polled (monotonic seconds).
    takes_keys: bool
    keys_polled_at: float
    # A name given with /name: it beats any title the program sets.
    name: str | None
    # The argv of the program the pane's shell runs in the foreground now (None: the shell itself).
    foreground: list[str] | None
    # What a restored pane's shell was running when saved: offered to run again, never run by itself.
    saved_command: list[str] | None
    # The agent's attention state (dsh.attention.model): working, blocked, done, idle, exited; None for
    # a pane that has never had an agent or a hook report.
    agent_state: Attention | None

    def __init__(
        self,
        id: str,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        terminal: Terminal,
        state: PaneState = PaneState.LIVE,
        created_at: str | None = None,
        agent: AgentInfo | None = None,
        started_at: float | None = None,
        saved_title: str | None = None,
        attention: bool = False,
        last_message: str | None = None,
        exit_status: int | None = None,
        started_from: PaneState | None = None,
        agent_pid: int | None = None,
        agent_seen_at: float | None = None,
        agent_cwd: str | None = None,
        takes_keys: bool = False,
        keys_polled_at: float = 0.0,
        name: str | None = None,
        foreground: list[str] | None = None,
        saved_command: list[str] | None = None,
        agent_state: Attention | None = None,
    ) -> None:
        self.id = id
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.terminal = terminal
        self.state = state
        self.created_at = now_iso() if created_at is None else created_at
        self.agent = agent
        self.started_at = started_at
        self.saved_title = saved_title
        self.attention = attention
        self.last_message = last_message
        self.exit_status = exit_status
        self.started_from = started_from
        self.agent_pid = agent_pid
        self.agent_seen_at = agent_seen_at
        self.agent_cwd = agent_cwd
        self.takes_keys = takes_keys
        self.keys_polled_at = keys_polled_at
        self.name = name
        self.foreground = foreground
        self.saved_command = saved_command
        self.agent_state = agent_state

    @property
    def program(self) -> str:
        """The name of what runs in the pane now, as tmux names a window: the foreground program, else
        the pane's own (its shell, an agent)."""
        argv = self.foreground or self.argv
        return sanitize(strip_format(os.path.basename(argv[0])), max_len=40) if argv else "pane"

    @property
    def header_name(self) -> str:
        """What a pane's header calls it: its /name, else what runs in it now (the foreground program,
        as the tab says: `less`, not the shell running it), then the title the program set, if it
        says more."""
        if self.name:
            return sanitize(strip_format(self.name), max_len=120)
        program, title = self.program, self.title
        own = os.path.basename(self.argv[0]) if self.argv else ""
        if title in (program, own):
            return program  # no title of its own: `p1 less` while the shell runs less
        return title if title.startswith(program) else f"{program} {title}"

    @property
    def title(self) -> str:
        if self.name:
            return sanitize(strip_format(self.name), max_len=120)
        title = self.terminal.title if self.state is PaneState.LIVE or self.terminal.title else None
        if not title:
            title = self.saved_title
        if not title:
            title = os.path.basename(self.argv[0]) if self.argv else "pane"
        # A saved title is disk input: format characters go, as they do from a live child's title.
        title = sanitize(strip_format(title), max_len=120)
        if self.is_tombstone:
            # Nothing runs here: an agent's spinner frame, frozen at the save, would say it works.
            title = _SPINNER.sub("", title) or title
        return title

    @property
    def rerun_line(self) -> str | None:
        """The command line (the saved argv, shell-quoted) a restored pane offers to run again; None when
        there is none: it is not waiting to start, or its program was an agent (those resume their own
        way) or its shell."""
        if not self.saved_command or self.agent is not None or not self.startable:
            return None
        return shlex.join(self.saved_command)

    @property
    def is_tombstone(self) -> bool:
        return self.state in (PaneState.RESTORED, PaneState.RESUMABLE, PaneState.EXITED)

    @property
    def startable(self) -> bool:
        """A key may start something here: a restored pane, or one whose program has ended."""
        return self.is_tombstone or (not self.terminal.running and self.terminal.exit_status is not None)

    @property
    def running(self) -> bool:
        return self.state is PaneState.LIVE and self.terminal.running
