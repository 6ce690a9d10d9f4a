"""What a session saves and how a saved session comes back: the snapshot it builds, and restore."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.attention.model import Attention
from dsh.attention.states import DONE
from dsh.layout.serialize import tabset_to_dict
from dsh.layout.tabs import TabSet
from dsh.persist.env import filter_env
from dsh.persist.snapshot import SNAPSHOT_VERSION, LoadedSnapshot, PaneRecord, Snapshot, TabRecord
from dsh.persist.states import PaneState, restored_state
from dsh.session.pane import Pane
from dsh.store.timefmt import epoch_from_iso, iso_from_epoch, now_iso

if TYPE_CHECKING:
    from dsh.session.session import Session


def pane_cwd(pane: Pane) -> str:
    """Where a fresh shell for this pane should start: the directory its shell is in now.

    A shell that reports OSC 7 says so itself; otherwise (plain sh, bash without a hook) the kernel
    knows the process's directory. The pane's start directory is the last resort.
    """
    terminal = pane.terminal
    if terminal.screen.cwd:
        return terminal.screen.cwd
    return terminal.process_cwd() or terminal.cwd or pane.cwd


def build_snapshot(session: Session) -> tuple[Snapshot, dict[str, bytes]]:
    tabs = [
        TabRecord(
            id=tab.id,
            title=tab.title or "",
            layout=layout,
            active_pane=tab.active_pane,
            zoomed=tab.zoomed,
        )
        for tab, layout in zip(session.tabs.tabs, tabset_to_dict(session.tabs)["tabs"], strict=True)
    ]
    panes: list[PaneRecord] = []
    tails: dict[str, bytes] = {}
    for pane in session.panes.values():
        tab = session.tabs.tab_of(pane.id)
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
                name=pane.name,
                command=_plain_command(pane),
                agent_state=pane.agent_state.state if pane.agent_state is not None else None,
                state_since=iso_from_epoch(pane.agent_state.since) if pane.agent_state is not None else None,
            )
        )
        tails[pane.id] = pane.terminal.tail()
    snapshot = Snapshot(
        version=SNAPSHOT_VERSION,
        saved_at=now_iso(),
        session_id=session.log.id,
        tabs=tabs,
        active_tab=session.tabs.active_index,
        panes=panes,
        notifications=list(session.notifications[-200:]),
    )
    return snapshot, tails


def _plain_command(pane: Pane) -> list[str] | None:
    """The program the pane's shell was running (`make test`, `tail -f log`), to offer to run again
    after a restore; not an agent (those resume their own way) and not a shell."""
    if not pane.running or pane.foreground is None or pane.agent is not None:
        return None
    return list(pane.foreground)


def restore(session: Session, loaded: LoadedSnapshot) -> None:
    # The agents' code is imported by the sessions that need it: a new session's start-up does without.
    from dsh.agents.registry import resume_argv_for
    from dsh.agents.resumable import recheck

    snapshot = loaded.snapshot
    assert snapshot is not None
    records = {record.id: record for record in snapshot.panes}
    try:
        session.tabs = TabSet.from_dict(
            {"version": 1, "active_index": snapshot.active_tab, "tabs": [t.layout for t in snapshot.tabs]}
        )
    except Exception as exc:
        session.announce(f"saved layout could not be restored ({exc}); starting fresh", error=True)
        session.tabs = TabSet()
        return
    session.notifications = list(snapshot.notifications)
    auto = bool(session.config.workspace(session.cwd).get("auto_resume", False))
    rows, cols = session.estimate_size()
    for pane_id in session.tabs.pane_ids():
        record = records.get(pane_id)
        if record is None:
            continue
        # The store says now whether the agent's session holds a conversation (an id dsh gave it that was
        # never prompted does not, and restores as a fresh start of the agent).
        record.agent = recheck(record.agent)
        state = restored_state(record, resume_argv_for)
        argv = list(record.argv) or session.default_shell_argv()
        env = session.spawn_env(pane_id, record.cwd)
        terminal = session.make_terminal(pane_id, argv, record.cwd, env, record.rows or rows, record.cols or cols)
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
            name=record.name,
            saved_command=record.command,
            agent_state=restored_attention(record),
        )
        session.panes[pane_id] = pane
    # Drop layout leaves whose pane record is missing, so the tree only holds real panes.
    for pane_id in list(session.tabs.pane_ids()):
        if pane_id not in session.panes:
            result = session.tabs.close_pane(pane_id)
            if result.last_tab_closed:
                session.tabs = TabSet()
                break
    session.auto_resume = auto


def auto_resume_panes(session: Session) -> None:
    """In a workspace that opted in (auto_resume = true): agents resume, and a plain command a pane ran
    runs again, by themselves."""
    from dsh.agents.registry import resume_argv_for

    for pane in list(session.panes.values()):
        if pane.state is PaneState.RESUMABLE and resume_argv_for(pane.agent):
            session.start_tombstone(pane)
        elif pane.rerun_line is not None:
            session.rerun_command(pane)


def restored_attention(record: PaneRecord) -> Attention | None:
    """A saved pane's attention: a turn that ended unseen stays done (and its notice unread); its
    process is gone, so anything else it was doing has ended, and the pane's state label says so."""
    if record.agent_state != DONE:
        return None
    since = epoch_from_iso(record.state_since or "") or 0.0
    return Attention(DONE, since=since, message=record.last_message)
