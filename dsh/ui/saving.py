"""What the running app saves and how a saved session comes back: snapshot, restore, agent session ids."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dsh.agents.base import AgentAdapter
from dsh.agents.registry import adapter_by_kind, adapter_for_argv, resume_argv_for
from dsh.layout.serialize import tabset_to_dict
from dsh.layout.tabs import TabSet
from dsh.panes import Pane
from dsh.persist.env import filter_env
from dsh.persist.snapshot import SNAPSHOT_VERSION, LoadedSnapshot, PaneRecord, Snapshot, TabRecord
from dsh.persist.states import PaneState, restored_state
from dsh.store.timefmt import now_iso

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


# Programs that run an agent CLI's script: `node …/claude`, `python …`.
_INTERPRETERS = {"node", "nodejs", "bun", "deno", "python", "python3"}


@dataclass
class AgentProbe:
    """When to look again for a pane's agent session id, and whether a lookup is under way."""

    next_try: float = 0.0
    tries: int = 0
    busy: bool = False


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

def agent_behind(argv: list[str]) -> AgentAdapter | None:
    """The adapter of an agent CLI in a process's argv, also when an interpreter runs its script."""
    adapter = adapter_for_argv(argv)
    if adapter is None and len(argv) > 1 and os.path.basename(argv[0]) in _INTERPRETERS:
        adapter = adapter_for_argv(argv[1:])
    return adapter


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
                pane.agent, pane.agent_pid, pane.agent_seen_at, pane.agent_cwd = None, None, None, None
                app.agent_probes.pop(pane.id, None)
                app.scheduler.mark_dirty()
            continue
        pid, argv, cwd = found
        if pid == pane.agent_pid:
            continue
        adapter = agent_behind(argv)
        if adapter is None:
            continue
        pane.agent = adapter.agent_info(argv, None)
        pane.agent_pid, pane.agent_seen_at, pane.agent_cwd = pid, now, cwd
        app.agent_probes.pop(pane.id, None)
        app.scheduler.mark_dirty()


def probe_agents(app: DshApp) -> None:
    """Learn agent session ids off the event loop: the lookups scan files or run the agent's CLI."""
    notice_typed_agents(app)
    now = time.time()
    for pane in app.panes.values():
        agent = pane.agent
        if agent is None or agent.session_id or not pane.running or pane.started_at is None:
            continue
        probe = app.agent_probes.setdefault(pane.id, AgentProbe())
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
                    app.scheduler.mark_dirty()

            app.loop.call_soon_threadsafe(learned)

        app.loop.run_in_executor(None, lookup)


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
