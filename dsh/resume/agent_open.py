"""Opening an agent conversation from /resume: which directory, which program, which argv, and whether
it opens as a new tab of the session at hand or as a new session in the conversation's directory.

The decision is a pure function of the conversation and the machine (PATH, directories), so the same
plan serves the picker today (`dsh --open-agent KIND:ID` after a handoff) and a session host later.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from dsh.agents.base import same_dir
from dsh.agents.registry import adapter_by_kind
from dsh.resume.candidates import clean
from dsh.resume.preflight import PreflightError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dsh.store.index import SessionIndex

OPEN_AGENT_OPTION = "--open-agent"


@dataclass(frozen=True)
class AgentOpen:
    """Run `argv` in `cwd`: in a new tab of the current session when `here`, else in a new session there."""

    kind: str
    session_id: str
    cwd: str
    argv: list[str]
    here: bool

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.session_id}"


def plan_agent_open(
    kind: str,
    session_id: str,
    cwd: str | None,
    home: str | None,
    *,
    current_cwd: str | None,
    env: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] | None = None,
    isdir: Callable[[str], bool] = os.path.isdir,
) -> AgentOpen:
    """The plan for one conversation, after the same checks /resume makes for a session (PreflightError
    with the reason otherwise): a known agent, an id in its format, a directory that is there, the CLI
    installed. The store it came from is passed on when it is not the one the CLI finds by itself."""
    env = os.environ if env is None else env
    adapter = adapter_by_kind(kind)
    if adapter is None:
        raise PreflightError(f"unknown agent {clean(kind, 40)!r}")
    if not adapter.valid_session_id(session_id):
        raise PreflightError(f"{kind}: {clean(session_id, 80)!r} is not a valid session id")
    if not cwd or "\x00" in cwd or not os.path.isabs(cwd):
        raise PreflightError(f"the {kind} conversation has no recorded directory")
    if not isdir(cwd):
        raise PreflightError(f"cannot open the {kind} conversation: its directory {clean(cwd)} is gone")
    find = which if which is not None else (lambda name: shutil.which(name, path=env.get("PATH")))
    program = find(adapter.binary)
    if program is None:
        raise PreflightError(f"cannot open the {kind} conversation: {adapter.binary} is not on PATH")
    prefix: list[str] = []
    if home and Path(home) != adapter.home(env):
        prefix = ["env", *(f"{name}={value}" for name, value in adapter.store_env_for(home).items())]
    argv = [*prefix, *adapter.resume_argv(session_id, program)]
    return AgentOpen(kind, session_id, cwd, argv, here=bool(current_cwd) and same_dir(cwd, current_cwd or ""))


def parse_open_agent(value: str) -> tuple[str, str]:
    """`KIND:ID` of `--open-agent`; ValueError for anything else."""
    kind, sep, session_id = value.partition(":")
    if not sep or not kind or not session_id:
        raise ValueError(f"{OPEN_AGENT_OPTION} wants KIND:ID (e.g. claude:0b7e4c1a-…), not {clean(value, 80)!r}")
    return kind, session_id


def plan_from_index(index: SessionIndex, value: str, *, current_cwd: str | None) -> AgentOpen:
    """`dsh --open-agent KIND:ID`: the conversation looked up in the index, then planned as the picker would.
    PreflightError (or ValueError for a malformed value) says why not."""
    import sqlite3

    from dsh.resume.agent_rows import find_conversation

    kind, session_id = parse_open_agent(value)
    try:
        row = index.read(lambda conn: find_conversation(conn, kind, session_id))
    except sqlite3.Error as exc:
        raise PreflightError(f"cannot read the session index: {exc}") from exc
    if row is None:
        raise PreflightError(
            f"no {clean(kind, 40)} conversation {clean(session_id, 80)} in the index"
            " (dsh sessions --agents --all lists them)"
        )
    return plan_agent_open(kind, session_id, row.cwd, row.home, current_cwd=current_cwd)


def describe(argv: list[str]) -> str:
    """`claude --resume ID` for a plan's argv (its `env VAR=…` prefix and the program's folder left out)."""
    rest = list(argv)
    if rest and rest[0] == "env":
        rest = rest[1:]
        while rest and "=" in rest[0]:
            rest = rest[1:]
    if rest:
        rest[0] = os.path.basename(rest[0])
    return " ".join(rest)


def held_elsewhere(index: SessionIndex, kind: str, session_id: str) -> str | None:
    """Where a conversation already runs: the id of the dsh session whose pane holds it (Enter, `--open-agent`
    go there), else None; PreflightError when its agent runs outside dsh, saying how to reach it (two
    writers on one transcript corrupt it, a top complaint about the agents' own resume)."""
    import sqlite3

    from dsh.agents.process import in_dsh_pane, running_with
    from dsh.resume.agent_rows import open_agent_sessions

    try:
        holders = index.read(open_agent_sessions)
    except sqlite3.Error:
        holders = {}
    holder = holders.get(f"{kind}:{session_id}")
    if holder is not None:
        return str(holder)
    outside = [(pid, tty) for pid, tty in running_with(session_id, (kind,)) if not in_dsh_pane(pid)]
    if outside:
        pid, tty = outside[0]
        raise PreflightError(
            f"{clean(kind, 40)} conversation {clean(session_id, 80)} is running outside dsh (pid {pid}"
            f"{f', on {tty}' if tty else ''}): {_reach(tty) or 'go to its terminal'}, or end it and open it here"
        )
    return None


def holding_pane(session_id: str, kind: str, agent_id: str) -> str | None:
    """The pane of dsh session `session_id` whose agent is conversation `kind:agent_id`, as its last
    snapshot records it (a host saves one when it learns a pane's conversation); None when unknown."""
    from dsh.persist.listing import snapshot_panes

    for record in snapshot_panes(session_id) or ():
        agent = record.get("agent")
        if isinstance(agent, dict) and agent.get("kind") == kind and agent.get("session_id") == agent_id:
            pane = record.get("id")
            return pane if isinstance(pane, str) else None
    return None


def go_to_holder(session_id: str, kind: str, agent_id: str) -> str | None:
    """Before attaching the dsh session that holds a conversation: ask its host to focus the pane that
    holds it (its control channel), so the attach shows that pane; the pane's id, when there is one."""
    from dsh.hostquery import focus_in_host

    pane = holding_pane(session_id, kind, agent_id)
    if pane is not None:
        focus_in_host(session_id, pane)
    return pane


def _reach(tty: str | None) -> str | None:
    """The tmux command that shows the pane on `tty`, when a tmux server has one."""
    import subprocess

    if tty is None or shutil.which("tmux") is None:
        return None
    try:
        listed = subprocess.run(
            ["tmux", "list-panes", "-a", "-F", "#{pane_tty} #{session_name}:#{window_index}.#{pane_index}"],
            capture_output=True,
            text=True,
            timeout=2,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in listed.splitlines():
        pane_tty, _, target = line.partition(" ")
        if pane_tty == tty and target:
            return f"tmux switch-client -t {clean(target, 80)}"
    return None
