"""Learning which agent conversation each pane holds: agents typed into shells, and their session ids.

The decisions are dsh.agents.probe's (what to ask /proc and the agent's store, and what the answer
changes); these are the session's thin callers, on its loop and its worker threads.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from dsh.agents.probe import AgentProbe, Neighbour, make_request, run_probe, typed_agent, updated_agent
from dsh.agents.registry import adapter_by_kind

if TYPE_CHECKING:
    from dsh.agents.probe import ProbeRequest
    from dsh.persist.records import AgentInfo
    from dsh.session.pane import Pane
    from dsh.session.session import Session
    from dsh.term.terminal import Terminal

__all__ = ["AgentProbe", "agent_argv", "notice_typed_agents", "probe_agents"]


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
                had = pane.agent
                pane.agent, pane.agent_pid, pane.agent_seen_at, pane.agent_cwd = None, None, None, None
                session.agent_probes.pop(pane.id, None)
                if had is not None and had.session_id:
                    session.note_agent(pane.id, had.kind, None)
                session.attention.agent_left(pane)
                session.scheduler.mark_dirty()
            continue
        pid, argv, cwd = found
        if pid == pane.agent_pid:
            continue
        agent = typed_agent(argv, cwd)
        if agent is None:
            continue
        pane.agent = agent
        pane.agent_pid, pane.agent_seen_at, pane.agent_cwd = pid, now, cwd
        if pane.agent_state is None:  # its hooks may have spoken first
            session.attention.started(pane)
        session.agent_probes.pop(pane.id, None)
        session.scheduler.mark_dirty()


def probe_agents(session: Session) -> None:
    """Learn (and keep re-learning) agent session ids off the event loop: see dsh.agents.probe."""
    notice_typed_agents(session)
    now = time.time()
    for pane in session.panes.values():
        agent = pane.agent
        if agent is None or not pane.running or pane.started_at is None:
            continue
        probe = session.agent_probes.setdefault(pane.id, AgentProbe())
        if not probe.due(now, pane.terminal.sent[-1] if pane.terminal.sent else None):
            continue
        adapter = adapter_by_kind(agent.kind)
        if adapter is None:
            continue
        probe.schedule(now, known=agent.session_id is not None)
        probe.busy = True
        others = [
            Neighbour(
                p.agent.kind,
                p.agent.session_id,
                p.agent.cwd or p.agent_cwd or p.cwd,
                p.agent_seen_at or p.started_at or 0.0,
                tuple(p.terminal.sent),
            )
            for p in session.panes.values()
            if p is not pane and p.agent is not None and p.running
        ]
        typed = pane.agent_pid is not None
        request = make_request(
            adapter,
            agent=agent,
            pid=pane.agent_pid if typed else pane.terminal.pid,
            argv=agent_argv(pane),
            env=pane.env,
            cwd=pane.agent_cwd or pane.cwd,
            # A typed agent was seen up to a tick after it started (its /proc start time refines this).
            started_at=(pane.agent_seen_at - 5.0) if pane.agent_seen_at is not None else pane.started_at - 1.0,
            others=others,
            sent=tuple(pane.terminal.sent),
        )
        terminal = pane.terminal

        def lookup(
            request: ProbeRequest = request,
            pane: Pane = pane,
            terminal: Terminal = terminal,
            agent: AgentInfo = agent,
            probe: AgentProbe = probe,
        ) -> None:
            try:
                learned = run_probe(request)
            except Exception:
                learned = None

            def learned_now() -> None:
                probe.busy = False
                # Only if the pane still runs the same agent it was asked about.
                if learned is None or pane.terminal is not terminal or pane.agent is not agent:
                    return
                fresh = updated_agent(request.adapter, request.argv, agent, learned)
                if fresh is None:
                    return
                pane.agent = fresh
                if fresh.session_id != agent.session_id:
                    probe.learned(time.time())
                    session.note_agent(pane.id, fresh.kind, fresh.session_id)
                elif fresh.conversation and not agent.conversation:
                    session.titles_soon()  # its first prompt is its title now
                session.scheduler.mark_dirty()

            session.loop.call_soon_threadsafe(learned_now)

        session.loop.run_in_executor(None, lookup)


def agent_argv(pane: Pane) -> list[str]:
    """The argv the pane's agent ran with: dsh's own for an agent it launched, else what /proc showed."""
    if pane.agent_pid is None:
        return list(pane.argv)
    found = pane.terminal.foreground_process()
    if found is not None and found[0] == pane.agent_pid:
        return found[1]
    return [pane.agent.kind] if pane.agent is not None else []
