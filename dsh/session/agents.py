"""Learning which agent conversation each pane holds: agents typed into shells, and their session ids."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dsh.agents.base import AgentAdapter
from dsh.agents.registry import adapter_by_kind, adapter_for_argv

if TYPE_CHECKING:
    from dsh.session.session import Session


# Programs that run an agent CLI's script: `node …/claude`, `python …`.
_INTERPRETERS = {"node", "nodejs", "bun", "deno", "python", "python3"}


@dataclass
class AgentProbe:
    """When to look again for a pane's agent session id, and whether a lookup is under way."""

    next_try: float = 0.0
    tries: int = 0
    busy: bool = False


def agent_behind(argv: list[str]) -> AgentAdapter | None:
    """The adapter of an agent CLI in a process's argv, also when an interpreter runs its script."""
    adapter = adapter_for_argv(argv)
    if adapter is None and len(argv) > 1 and os.path.basename(argv[0]) in _INTERPRETERS:
        adapter = adapter_for_argv(argv[1:])
    return adapter


def notice_typed_agents(session: Session) -> None:
    """Notice an agent the user typed into a shell pane (`claude`), so a restore can resume it too.

    dsh launched that pane as a shell, so it only sees the agent as the terminal's foreground program;
    when the shell is back in the foreground, the agent has ended and the pane is a shell again.
    """
    now = time.time()
    for pane in session.panes.values():
        if not pane.running or (pane.agent is not None and pane.agent_pid is None):
            continue  # not running, or an agent dsh launched itself
        found = pane.terminal.foreground_process()
        if found is None or found[0] == pane.terminal.pid:
            if pane.agent_pid is not None:
                pane.agent, pane.agent_pid, pane.agent_seen_at, pane.agent_cwd = None, None, None, None
                session.agent_probes.pop(pane.id, None)
                session.scheduler.mark_dirty()
            continue
        pid, argv, cwd = found
        if pid == pane.agent_pid:
            continue
        adapter = agent_behind(argv)
        if adapter is None:
            continue
        pane.agent = adapter.agent_info(argv, None)
        pane.agent_pid, pane.agent_seen_at, pane.agent_cwd = pid, now, cwd
        session.agent_probes.pop(pane.id, None)
        session.scheduler.mark_dirty()


def probe_agents(session: Session) -> None:
    """Learn agent session ids off the event loop: the lookups scan files or run the agent's CLI."""
    notice_typed_agents(session)
    now = time.time()
    for pane in session.panes.values():
        agent = pane.agent
        if agent is None or agent.session_id or not pane.running or pane.started_at is None:
            continue
        probe = session.agent_probes.setdefault(pane.id, AgentProbe())
        if now < probe.next_try or probe.busy:
            continue
        adapter = adapter_by_kind(agent.kind)
        if adapter is None:
            continue
        probe.tries += 1
        probe.next_try = now + min(30.0, 0.5 * 2**probe.tries)
        probe.busy = True
        terminal = pane.terminal
        # A typed agent was seen up to a tick after it started: look a little further back.
        started = (pane.agent_seen_at - 5.0) if pane.agent_seen_at is not None else pane.started_at - 1.0
        argv, cwd, env = list(pane.argv), pane.agent_cwd or pane.cwd, dict(pane.env)

        def lookup(adapter=adapter, pane=pane, terminal=terminal, argv=argv, cwd=cwd, env=env,
                   started=started, probe=probe, agent=agent) -> None:
            try:
                session_id = adapter.find_session_id(cwd, started, env)
            except Exception:
                session_id = None

            def learned() -> None:
                probe.busy = False
                # Only if the pane still runs the same agent it was asked about.
                if session_id and pane.terminal is terminal and pane.agent is agent:
                    pane.agent = adapter.agent_info(argv, session_id)
                    session.scheduler.mark_dirty()

            session.loop.call_soon_threadsafe(learned)

        session.loop.run_in_executor(None, lookup)


