"""A session's lifetime: its start, its timers, and its end (save, hang up, reap what ignores SIGHUP)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from typing import TYPE_CHECKING

from dsh.session import hook_folders, pane_programs, saving
from dsh.session.observer import NoObserver
from dsh.store.gitinfo import git_branch
from dsh.store.log import LogError

if TYPE_CHECKING:
    from dsh.session.session import Session

# A pane hung up by dsh that ignores SIGHUP is killed this long after.
KILL_GRACE_SECONDS = 2.0


def start(session: Session) -> None:
    """Begin the session's background work on the running loop: snapshots, agent ids, auto-resume."""
    session.loop = asyncio.get_running_loop()
    session.ended = session.loop.create_future()
    session.apply_read_budgets()
    branch = git_branch(session.cwd)
    if branch:
        session.log_event("git", branch=branch)
    if session.auto_resume:
        saving.auto_resume_panes(session)
    session.scheduler.structural_change()
    session.loop.call_later(0.5, session._tick)
    session.loop.call_later(0.1, session._foreground_tick)


def foreground_tick(session: Session) -> None:
    """A program that switches its terminal mode without printing is seen within a tick too."""
    if session.closing:
        return
    pane = session.active_pane
    if pane is not None:
        session.poll_foreground(pane.id)
    session.loop.call_later(0.1, session._foreground_tick)


def tick(session: Session) -> None:
    if session.closing:
        return
    session.scheduler.release()
    # Imported on the first tick, after the first frame: the host's start-up needs no agent code.
    from dsh.session import agents

    for pane in session.panes.values():
        pane_programs.poll_program(session, pane)
    agents.probe_agents(session)
    if not session._hooks_swept:
        _sweep_hook_folders(session)
    if not isinstance(session.observer, NoObserver) and session.machine.due(time.monotonic()):
        session.machine.refresh()
    if time.monotonic() >= session._agent_titles_due:
        session.refresh_agent_titles_in_background()
    try:
        session.scheduler.tick()
    except Exception as exc:
        session.announce(f"snapshot not saved: {exc}", error=True)
    session.loop.call_later(0.5, session._tick)


def _sweep_hook_folders(session: Session) -> None:
    """Once, at the first tick: the hook folders a crashed host left, of this session (but the
    running panes') and, off the loop, of other sessions that are not live."""
    session._hooks_swept = True
    running = [pane.id for pane in session.panes.values() if pane.running]
    hook_folders.sweep_own(session.log.id, running)
    with contextlib.suppress(RuntimeError):  # (a worker already shut down: the session is ending)
        session.worker.submit(hook_folders.sweep_others, session.log.id, hook_folders.session_is_live)


def flush_and_close(session: Session, *, save: bool = True) -> None:
    """Save the snapshot (unless not `save`: a host that never served leaves the one on disk as it
    was), hang up every pane, close the log. Safe to call twice."""
    if session.closing:
        return
    session.closing = True
    try:
        if save:
            session.scheduler.flush()
    except Exception as exc:
        session.announce(f"snapshot not saved: {exc}", error=True)
    session.scheduler.close()
    for pane in session.panes.values():
        pane.terminal.kill()
    hook_folders.remove_session(session.log.id)
    if session.fresh_session and not session.used:
        try:
            session.log.append("archive", archived=True, reason="nothing was done in this session")
        except (LogError, OSError):
            pass
    try:
        session.log.close()
    except (LogError, OSError):
        pass  # the log is append-only: what was written stays, and the snapshot was flushed above


def quit(session: Session) -> None:
    """End the session: save, close, and let whoever waits on `ended` finish."""
    session.flush_and_close()
    session.worker.shutdown(wait=False, cancel_futures=True)
    session.observer.on_ended()
    if session.ended is not None and not session.ended.done():
        session.ended.set_result(None)


async def reap_panes(session: Session, grace: float) -> None:
    """After a close, wait up to `grace` for the panes' programs to end, then SIGKILL what remains.

    A program that ignores SIGHUP (`nohup`, `trap '' HUP`) must not outlive its session: every
    process left in a pane's terminal session (the pane's pid is its session id) is killed.
    """
    sessions = set(session.pane_pids())
    deadline = time.monotonic() + grace
    left = _in_sessions(sessions)
    while left and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        left = _in_sessions(sessions)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in sessions:
        try:
            os.waitpid(pid, os.WNOHANG)
        except OSError:
            pass


def _in_sessions(sessions: set[int]) -> list[int]:
    """Live processes whose session id is one of `sessions` (Linux /proc; nothing found elsewhere)."""
    if not sessions:
        return []
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # fields: state, ppid, pgrp, session, ...
        if len(fields) > 3 and fields[0] != b"Z" and int(fields[3]) in sessions:
            found.append(int(entry))
    return found
