"""The panes' programs as they run: read budgets, who has the keyboard, what the shell runs, their exits."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from dsh.persist.states import PaneState
from dsh.session import hook_folders
from dsh.session.shells import runs_shell

if TYPE_CHECKING:
    from dsh.session.pane import Pane
    from dsh.session.session import Session

# Bytes a pane's reader takes per loop callback: the active pane's output matters most.
FOREGROUND_READ = 32768
BACKGROUND_READ = 8192
# A background pane that fills its read budget waits this long before its next read: a flood there
# (still drawn at 10 frames a second) used 80% of the loop, and every key waited behind it. It still
# gets about 6 MB/s; a program's ordinary output never fills a read.
BACKGROUND_READ_PAUSE = 0.001
# Who has the keyboard of a pane (its shell, or a program reading keys) is polled at most this often,
# on its output and on the session's timer: never per key.
FOREGROUND_POLL_SECONDS = 0.05
# Panes whose programs ended kept for `dsh wait --exit` and `dsh capture` after their panes closed.
ENDED_PANES_KEPT = 8


def apply_read_budgets(session: Session) -> None:
    active = session.tabs.active_pane if session.tabs.tabs else None
    for pane in session.panes.values():
        foreground = pane.id == active
        pane.terminal.read_budget = FOREGROUND_READ if foreground else BACKGROUND_READ
        pane.terminal.read_pause = 0.0 if foreground else BACKGROUND_READ_PAUSE


def busy_panes(session: Session) -> list[Pane]:
    """Panes whose program is more than an idle shell: an agent, or anything the shell runs."""
    busy = []
    for pane in session.panes.values():
        if not pane.running:
            continue
        foreground = pane.terminal.foreground_process()
        if pane.agent is not None or (foreground is not None and foreground[0] != pane.terminal.pid):
            busy.append(pane)
    return busy


def on_pane_output(session: Session, pane_id: str) -> None:
    session.scheduler.mark_dirty()
    poll_foreground(session, pane_id)
    session.observer.on_pane_output(pane_id)
    if session.waiters:
        wake_waiters(session)


def wake_waiters(session: Session) -> None:
    """Something changed that a `dsh wait` may be waiting for: let each look again."""
    waiters, session.waiters = session.waiters, []
    for future in waiters:
        if not future.done():
            future.set_result(None)


def poll_foreground(session: Session, pane_id: str, *, now: float | None = None) -> None:
    """See whether a program that reads keys took (or left) the pane's foreground; tell the view."""
    pane = session.panes.get(pane_id)
    if pane is None:
        return
    now = time.monotonic() if now is None else now
    if now - pane.keys_polled_at < FOREGROUND_POLL_SECONDS:
        return
    pane.keys_polled_at = now
    poll_program(session, pane)
    takes = pane.running and pane.terminal.program_takes_keys(own_counts=not runs_shell(pane.argv))
    if takes != pane.takes_keys:
        pane.takes_keys = takes
        session.observer.on_takes_keys(pane_id, takes)


def poll_program(session: Session, pane: Pane) -> None:
    """What the pane's shell runs in the foreground (tab names follow it, as tmux's automatic-rename)."""
    found = pane.terminal.foreground_process() if pane.running else None
    foreground = found[1] if found is not None and found[0] != pane.terminal.pid else None
    if foreground != pane.foreground:
        pane.foreground = foreground
        session.scheduler.mark_dirty()
        session.observer.on_changed()


def on_title(session: Session, pane_id: str, title: str) -> None:
    session.attention.title_changed(pane_id, title)
    session.observer.on_changed()


def on_pane_exit(session: Session, pane_id: str, status: int) -> None:
    pane = session.panes.get(pane_id)
    if pane is None:
        return
    pane.exit_status = status
    session.ended_panes.pop(pane_id, None)
    session.ended_panes[pane_id] = pane
    while len(session.ended_panes) > ENDED_PANES_KEPT:
        del session.ended_panes[next(iter(session.ended_panes))]
    wake_waiters(session)
    session.log_event("pane_exited", pane_id=pane_id, status=status)
    hook_folders.remove_pane(session.log.id, pane_id)  # its agent's hook files are no longer read
    session.attention.exited(pane_id)
    if pane.started_from is not None and status != 0 and pane.state is PaneState.LIVE:
        # A resume that failed leaves the tombstone as it was, so the user can try again.
        pane.state = pane.started_from
        session.announce(f"{pane.id}: {pane.title} ended with status {status}", error=True)
    elif status == 0 and not session.remain_on_exit:
        # As in tmux: a program that ends well takes its pane with it (the last one, the session).
        session.observer.on_pane_exited(pane_id)
        session.close_pane(pane_id)
        return
    session.observer.on_pane_exited(pane_id)
    session.scheduler.structural_change()
    session.observer.on_changed()
