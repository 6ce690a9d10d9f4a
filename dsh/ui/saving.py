"""What the running app saves and how a saved session comes back: snapshot, restore, agent session ids."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from dsh.agents.probe import AgentProbe, Neighbour, make_request, run_probe, typed_agent, updated_agent
from dsh.agents.registry import adapter_by_kind, resume_argv_for
from dsh.agents.resumable import recheck
from dsh.layout.serialize import tabset_to_dict
from dsh.layout.tabs import TabSet
from dsh.panes import Pane
from dsh.persist.env import filter_env
from dsh.persist.snapshot import SNAPSHOT_VERSION, LoadedSnapshot, PaneRecord, Snapshot, TabRecord
from dsh.persist.states import PaneState, restored_state
from dsh.store.timefmt import now_iso

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


def pane_cwd(pane: Pane) -> str:
    """Where a fresh shell for this pane should start: the directory its shell is in now.

    A shell that reports OSC 7 says so itself; otherwise (plain sh, bash without a hook) the kernel
    knows the process's directory. The pane's start directory is the last resort.
    """
    terminal = pane.terminal
    if terminal.screen.cwd:
        return terminal.screen.cwd
    return terminal.process_cwd() or terminal.cwd or pane.cwd


def build_snapshot(app: DshApp) -> tuple[Snapshot, dict[str, bytes]]:
    tabs = [
        TabRecord(
            id=tab.id,
            title=tab.title or "",
            layout=layout,
            active_pane=tab.active_pane,
            zoomed=tab.zoomed,
        )
        for tab, layout in zip(app.tabs.tabs, tabset_to_dict(app.tabs)["tabs"], strict=True)
    ]
    panes: list[PaneRecord] = []
    tails: dict[str, bytes] = {}
    for pane in app.panes.values():
        tab = app.tabs.tab_of(pane.id)
        running = pane.running
        waiting = pane.state in (PaneState.RESTORED, PaneState.RESUMABLE)
        lifecycle = "running" if running else "waiting" if waiting else "exited"
        panes.append(
            PaneRecord(
                id=pane.id,
                tab=tab.id if tab is not None else "",
                title=pane.title,
                cwd=pane_cwd(pane),
                argv=list(pane.argv),
                env=filter_env(pane.env),
                rows=pane.terminal.rows,
                cols=pane.terminal.cols,
                agent=pane.agent,
                lifecycle=lifecycle,
                exit_status=pane.terminal.exit_status if not running else None,
                attention=pane.attention,
                last_message=pane.last_message,
                created_at=pane.created_at,
            )
        )
        tails[pane.id] = pane.terminal.tail()
    snapshot = Snapshot(
        version=SNAPSHOT_VERSION,
        saved_at=now_iso(),
        session_id=app.log.id,
        tabs=tabs,
        active_tab=app.tabs.active_index,
        panes=panes,
        notifications=list(app.notifications[-200:]),
    )
    return snapshot, tails

def notice_typed_agents(app: DshApp) -> None:
    """Notice an agent the user typed into a shell pane (`claude`), so a restore can resume it too.

    dsh launched that pane as a shell, so it only sees the agent as the terminal's foreground program;
    when the shell is back in the foreground, the agent has ended and the pane is a shell again.
    """
    now = time.time()
    for pane in app.panes.values():
        if not pane.running or (pane.agent is not None and pane.agent_pid is None):
            continue  # not running, or an agent dsh launched itself
        found = pane.terminal.foreground_process()
        if found is None or found[0] == pane.terminal.pid:
            if pane.agent_pid is not None:
                had = pane.agent
                pane.agent, pane.agent_pid, pane.agent_seen_at, pane.agent_cwd = None, None, None, None
                app.agent_probes.pop(pane.id, None)
                if had is not None and had.session_id:
                    app.note_agent(pane.id, had.kind, None)
                app.scheduler.mark_dirty()
            continue
        pid, argv, cwd = found
        if pid == pane.agent_pid:
            continue
        agent = typed_agent(argv, cwd)
        if agent is None:
            continue
        pane.agent = agent
        pane.agent_pid, pane.agent_seen_at, pane.agent_cwd = pid, now, cwd
        app.agent_probes.pop(pane.id, None)
        app.scheduler.mark_dirty()


def probe_agents(app: DshApp) -> None:
    """Learn (and keep re-learning) agent session ids off the event loop: see dsh.agents.probe."""
    notice_typed_agents(app)
    now = time.time()
    for pane in app.panes.values():
        agent = pane.agent
        if agent is None or not pane.running or pane.started_at is None:
            continue
        probe = app.agent_probes.setdefault(pane.id, AgentProbe())
        if not probe.due(now):
            continue
        adapter = adapter_by_kind(agent.kind)
        if adapter is None:
            continue
        probe.schedule(now, known=agent.session_id is not None)
        probe.busy = True
        others = [
            Neighbour(p.agent.kind, p.agent.session_id, p.agent.cwd or p.agent_cwd or p.cwd,
                      p.agent_seen_at or p.started_at or 0.0)
            for p in app.panes.values()
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
        )
        terminal = pane.terminal

        def lookup(request=request, pane=pane, terminal=terminal, agent=agent, probe=probe) -> None:
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
                    app.note_agent(pane.id, fresh.kind, fresh.session_id)
                elif fresh.conversation and not agent.conversation:
                    app.titles_soon()  # its first prompt is its title now
                app.scheduler.mark_dirty()

            app.loop.call_soon_threadsafe(learned_now)

        app.loop.run_in_executor(None, lookup)


def agent_argv(pane: Pane) -> list[str]:
    """The argv the pane's agent ran with: dsh's own for an agent it launched, else what /proc showed."""
    if pane.agent_pid is None:
        return list(pane.argv)
    found = pane.terminal.foreground_process()
    if found is not None and found[0] == pane.agent_pid:
        return found[1]
    return [pane.agent.kind] if pane.agent is not None else []


def restore(app: DshApp, loaded: LoadedSnapshot) -> None:
    snapshot = loaded.snapshot
    assert snapshot is not None
    records = {record.id: record for record in snapshot.panes}
    try:
        app.tabs = TabSet.from_dict(
            {"version": 1, "active_index": snapshot.active_tab, "tabs": [t.layout for t in snapshot.tabs]}
        )
    except Exception as exc:
        app.announce(f"saved layout could not be restored ({exc}); starting fresh", error=True)
        app.tabs = TabSet()
        return
    app.notifications = list(snapshot.notifications)
    auto = bool(app.config.workspace(app.cwd).get("auto_resume", False))
    rows, cols = app.estimate_size()
    for pane_id in app.tabs.pane_ids():
        record = records.get(pane_id)
        if record is None:
            continue
        # The store says now whether the agent's session holds a conversation (an id dsh gave it that was
        # never prompted does not, and restores as a fresh start of the agent).
        record.agent = recheck(record.agent)
        state = restored_state(record, resume_argv_for)
        argv = list(record.argv) or app.default_shell_argv()
        terminal = app.make_terminal(
            pane_id, argv, record.cwd, app.spawn_env(pane_id, record.cwd), record.rows or rows, record.cols or cols
        )
        tail = loaded.tails.get(pane_id, b"")
        if tail:
            terminal.replay(tail)
        pane = Pane(
            id=pane_id,
            argv=argv,
            cwd=record.cwd,
            env=dict(record.env),
            terminal=terminal,
            state=state,
            created_at=record.created_at,
            agent=record.agent,
            saved_title=record.title,
            attention=record.attention,
            last_message=record.last_message,
            exit_status=record.exit_status,
        )
        app.panes[pane_id] = pane
        app.register_slot(pane)
    # Drop layout leaves whose pane record is missing, so the tree only holds real panes.
    for pane_id in list(app.tabs.pane_ids()):
        if pane_id not in app.panes:
            result = app.tabs.close_pane(pane_id)
            if result.last_tab_closed:
                app.tabs = TabSet()
                break
    app.auto_resume = auto

def auto_resume_panes(app: DshApp) -> None:
    for pane in list(app.panes.values()):
        if pane.state is PaneState.RESUMABLE and resume_argv_for(pane.agent):
            app.start_tombstone(pane)
    app.enter_prompt()

# -- lifetime ---------------------------------------------------------------------------------------
