"""How a saved agent comes back: the command that resumes it (the same program, in its own directory,
with its own store), whether there is a conversation to resume at all, and what one key starts."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace

from dsh.agents.base import AgentAdapter
from dsh.agents.evidence import conversation_state
from dsh.agents.lookups import RecheckReads
from dsh.persist.records import AgentInfo
from dsh.persist.states import PaneState


def _adapter(agent: AgentInfo | None) -> AgentAdapter | None:
    from dsh.agents.registry import adapter_by_kind

    return adapter_by_kind(agent.kind) if agent is not None else None


def _env_prefix(adapter: AgentAdapter, agent: AgentInfo) -> list[str]:
    """`env CLAUDE_CONFIG_DIR=…` when the agent kept its store elsewhere; only its own store variable is
    taken from the (untrusted) snapshot, and only as an absolute path."""
    value = agent.env.get(adapter.home_var or "") if adapter.home_var else None
    if not value or not os.path.isabs(value) or "\x00" in value:
        return []
    return ["env", f"{adapter.home_var}={value}"]


def program_for(adapter: AgentAdapter, agent: AgentInfo, which: Callable[[str], str | None] = shutil.which) -> str:
    """The program that ran (when it is still there and named like the CLI), else the CLI on PATH."""
    if agent.program and adapter.valid_program(agent.program):
        return agent.program
    return which(adapter.binary) or adapter.binary


def resume_argv(agent: AgentInfo | None, which: Callable[[str], str | None] = shutil.which) -> list[str] | None:
    """The argv that resumes a saved agent's conversation, rebuilt from kind and id (a snapshot is untrusted
    input: its stored argv is never run). None when the kind is unknown, the id is not in the agent's
    format, or the agent is known to have no conversation to resume (an id dsh gave it, never prompted)."""
    adapter = _adapter(agent)
    if adapter is None or agent is None or agent.session_id is None:
        return None
    if not adapter.valid_session_id(agent.session_id) or agent.conversation is False:
        return None
    return [*_env_prefix(adapter, agent), *adapter.resume_argv(agent.session_id, program_for(adapter, agent, which))]


def fresh_argv(agent: AgentInfo | None, which: Callable[[str], str | None] = shutil.which) -> list[str] | None:
    """The argv that starts a saved agent afresh (same program, same store), for one with no conversation."""
    adapter = _adapter(agent)
    if adapter is None or agent is None:
        return None
    return [*_env_prefix(adapter, agent), program_for(adapter, agent, which)]


def recheck(agent: AgentInfo | None, looked: RecheckReads | None = None) -> AgentInfo | None:
    """The agent with `conversation` read from its store now (blocking file reads; a restore calls it
    once per pane). An agent whose store cannot be checked here keeps what was saved. `looked` is told
    what was read (a listing keeps the answer while that is unchanged)."""
    adapter = _adapter(agent)
    if adapter is None or agent is None or agent.session_id is None or not adapter.valid_session_id(agent.session_id):
        return agent
    env = {**os.environ, **agent.env} if agent.env else dict(os.environ)
    transcript, conversation = conversation_state(
        adapter, agent.session_id, agent.cwd, env, known=agent.transcript, looked=looked
    )
    if conversation is None:
        return agent
    return replace(agent, transcript=transcript, conversation=conversation)


def starts_afresh(agent: AgentInfo | None) -> bool:
    """A restored agent whose session never held a conversation: one key starts the agent anew."""
    if agent is None or agent.session_id is None or agent.conversation is not False:
        return False
    return _adapter(agent) is not None


@dataclass(frozen=True)
class PaneStart:
    """What one key on a restored pane runs: `argv` in `cwd`, or nothing (`argv` None) and why."""

    argv: list[str] | None
    cwd: str
    message: str | None = None
    error: bool = False
    # The pane's agent once started: kept for a resume, without the old id for a fresh start, none
    # for a shell.
    agent: AgentInfo | None = None


def plan_pane_start(
    *,
    pane_id: str,
    state: PaneState,
    agent: AgentInfo | None,
    saved_cwd: str,
    session_cwd: str,
    shell_argv: list[str],
    isdir: Callable[[str], bool] = os.path.isdir,
    which: Callable[[str], str | None] = shutil.which,
) -> PaneStart:
    """The agent's resume in the directory it worked in, a fresh agent for one with no conversation, or a
    shell. An agent's directory that is gone is not swapped for another: Claude and Codex find a
    conversation by its directory, so the resume would only fail there; the pane waits instead."""
    resume = resume_argv(agent, which) if state is PaneState.RESUMABLE else None
    if resume is not None and agent is not None:
        cwd = agent.cwd or saved_cwd
        if not isdir(cwd):
            return PaneStart(
                None,
                cwd,
                f"{pane_id}: {agent.kind} worked in {cwd}, which is gone, so its conversation cannot be resumed"
                " there; recreate it and press Enter, or /close the pane",
                error=True,
            )
        return PaneStart(resume, cwd, agent=agent)
    if state is PaneState.RESTORED and starts_afresh(agent):
        assert agent is not None
        cwd = agent.cwd or saved_cwd
        note = (
            f"{pane_id}: {agent.kind} session {agent.session_id} had no conversation to resume;"
            f" started {agent.kind} afresh"
        )
        if not isdir(cwd):
            note += f" in {session_cwd} ({cwd} is gone)"
            cwd = session_cwd
        fresh = replace(agent, session_id=None, resume_argv=None, transcript=None, conversation=None, cwd=cwd)
        return PaneStart(fresh_argv(agent, which), cwd, note, agent=fresh)
    if isdir(saved_cwd):
        return PaneStart(shell_argv, saved_cwd)
    gone = f"{pane_id}: saved directory {saved_cwd} is gone; starting in {session_cwd}"
    return PaneStart(shell_argv, session_cwd, gone, error=True)


def restart_hint(state: PaneState, agent: AgentInfo | None) -> str | None:
    """The one-key hint a restored pane shows; None for the plain `Enter: start a shell here`."""
    if state is PaneState.RESUMABLE and agent is not None:
        return f"Enter: resume {agent.kind}"
    if state is PaneState.RESTORED and starts_afresh(agent):
        assert agent is not None
        return f"Enter: start {agent.kind} afresh (its session had no conversation)"
    return None
