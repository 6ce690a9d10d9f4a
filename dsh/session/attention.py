"""A session's agent attention: each pane's state from its hooks, its terminal and its process; the
notifications it makes (the last 200, read on a visit) and the ones sent out to the user's terminal."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from dsh.attention.model import HOOK, PROCESS, TERMINAL, Attention, Report, one_line
from dsh.attention.rows import MAX_ROWS_PER_HOST
from dsh.attention.states import BLOCKED, DONE, EXITED, IDLE, LABELS, WORKING
from dsh.persist.snapshot import Notification
from dsh.store.timefmt import now_iso

if TYPE_CHECKING:
    from dsh.attention.hooks import HookEvent
    from dsh.session.pane import Pane
    from dsh.session.session import Session

logger = logging.getLogger("dsh.attention")
MAX_NOTIFICATIONS = 200


def state_of(pane: Pane) -> str | None:
    return pane.agent_state.state if pane.agent_state is not None else None


def attend(pane: Pane) -> Attention:
    if pane.agent_state is None:
        pane.agent_state = Attention(IDLE, since=time.time())
    return pane.agent_state


class SessionAttention:
    """The session's side of attention; every call is on the event loop."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._hook_at: dict[str, tuple[float, int]] = {}  # each pane's latest hook report, by its process's start

    # -- sources ---------------------------------------------------------------------------
    def report(self, pane_id: str, report: Report, *, now: float | None = None) -> bool:
        """A source's word on a pane; True when its state or message changed."""
        pane = self.session.panes.get(pane_id)
        if pane is None:
            return False
        now = time.time() if now is None else now
        attention = attend(pane)
        before = attention.state
        outcome = attention.apply(report, now)
        if outcome is None:
            return False
        pane.last_message = attention.message
        looked_at = self.session.observer_looks_at(pane_id)
        if outcome:
            self._notice(pane, attention.state, attention.message, recorded=not looked_at)
        if looked_at and attention.state == DONE:
            attention.seen(now)  # turned done in front of a client: nothing to come back to
        if before != attention.state or outcome:
            self.session.scheduler.mark_dirty()
        self.session.observer.on_changed()
        return True

    def hook(self, pane_id: str, event: HookEvent, at: float | None = None, order: int = 0) -> bool:
        """A hook's report (dsh report --hook KIND): its state, and the conversation it names. `at`: when
        the hook's process started; dsh's Claude hooks run in the background, so two of them may arrive
        out of order, and one that started before the last one taken is old news."""
        pane = self.session.panes.get(pane_id)
        if pane is None:
            return False
        if at is not None:
            # Started within one clock tick of each other (10 ms): the later pid is the later hook.
            last, last_order = self._hook_at.get(pane_id, (0.0, 0))
            older = at < last - 0.005 or (abs(at - last) <= 0.005 and order < last_order)
            if older and last - at < 60:  # (a clock set back an hour is not "older")
                return False
            self._hook_at[pane_id] = (at, order)
        if event.session_id and pane.agent is not None and pane.agent.session_id != event.session_id:
            try:
                self._learn_id(pane, event.session_id, event.transcript)
            except Exception:  # an id the adapter refuses is not the hook's to break anything with
                logger.warning("pane %s: a hook named session %r, not taken", pane.id, event.session_id)
        if event.state is None:
            return False
        quiet = event.state in (IDLE, EXITED) or event.event == "SessionStart"
        return self.report(pane_id, Report(event.state, HOOK, event.message, subagent=event.subagent, quiet=quiet))

    def _learn_id(self, pane: Pane, session_id: str, transcript: str | None) -> None:
        from dsh.agents.registry import adapter_by_kind

        agent = pane.agent
        assert agent is not None
        adapter = adapter_by_kind(agent.kind)
        if adapter is None or not adapter.valid_session_id(session_id):
            return
        pane.agent = replace(
            agent,
            session_id=session_id,
            resume_argv=adapter.resume_argv(session_id, agent.program),
            transcript=transcript or agent.transcript,
        )
        self.session.note_agent(pane.id, agent.kind, session_id)
        self.session.scheduler.structural_change()

    def terminal_notice(self, pane_id: str, text: str) -> None:
        """OSC 9/777/99 from a pane's program: a notification with its text."""
        pane = self.session.panes.get(pane_id)
        if pane is None:
            return
        self._to_onlookers(pane, text)
        if pane.agent is None:
            self._plain_notice(pane, text)
            return
        from dsh.attention.terminal import agent_notice_state

        self.report(pane_id, Report(agent_notice_state(pane.agent.kind, text), TERMINAL, one_line(text)))

    def notice(self, pane_id: str, text: str) -> None:
        """`dsh notify TEXT` about a pane: a notification with its text (none for the pane in view)."""
        pane = self.session.panes.get(pane_id)
        if pane is not None:
            self._plain_notice(pane, text)

    def bell(self, pane_id: str) -> None:
        pane = self.session.panes.get(pane_id)
        if pane is None:
            return
        self._to_onlookers(pane, None)
        if pane.agent is None:
            self._plain_notice(pane, f"bell in {pane.title}")
        else:
            self.report(pane_id, Report(DONE, TERMINAL, None))

    def title_changed(self, pane_id: str, title: str) -> None:
        """Claude Code's title spins (braille) while it works; a spinner that stops is a turn's end."""
        pane = self.session.panes.get(pane_id)
        if pane is None or pane.agent is None:
            return
        from dsh.attention.terminal import title_spins

        spins = title_spins(title)
        current = state_of(pane)
        if spins and current != WORKING:
            self.report(pane_id, Report(WORKING, TERMINAL, None))
        elif not spins and current == WORKING and pane.agent_state is not None:
            if pane.agent_state.source == TERMINAL:
                self.report(pane_id, Report(DONE, TERMINAL, None))

    def started(self, pane: Pane) -> None:
        """An agent pane's program started: idle until its first prompt."""
        if pane.agent is not None:
            pane.agent_state = Attention(IDLE, since=time.time(), message=pane.last_message)

    def exited(self, pane_id: str) -> None:
        pane = self.session.panes.get(pane_id)
        if pane is not None and pane.agent_state is not None:
            self.report(pane_id, Report(EXITED, PROCESS, None, quiet=True))

    def agent_left(self, pane: Pane) -> None:
        """A typed agent's process left its shell's foreground: the pane has no agent state now."""
        if pane.agent_state is not None:
            pane.agent_state = None
            self.session.observer.on_changed()

    # -- the user looks -------------------------------------------------------------------
    def visited(self, pane_id: str) -> None:
        """The user looks at the pane: its done is seen, its notifications read, its flag cleared."""
        pane = self.session.panes.get(pane_id)
        if pane is None:
            return
        changed = pane.attention
        pane.attention = False
        if pane.agent_state is not None and pane.agent_state.seen(time.time()):
            changed = True
        if self._mark_read(pane_id):
            changed = True
        if changed:
            self.session.scheduler.mark_dirty()

    def _mark_read(self, pane_id: str) -> bool:
        now = now_iso()
        notes = self.session.notifications
        changed = False
        for i, note in enumerate(notes):
            if note.pane_id == pane_id and note.read_at is None:
                notes[i] = Notification(note.at, note.pane_id, note.text, now)
                changed = True
        return changed

    # -- notices --------------------------------------------------------------------------
    def _plain_notice(self, pane: Pane, text: str) -> None:
        line = one_line(text)
        # A client looking at the pane saw it happen: nothing to flag or keep; a client whose screen
        # does not show the pane (another's overlay, a window cut short) still hears of it.
        self._outward(pane, f"{pane.title}", line or "")
        if self.session.observer_looks_at(pane.id):
            self.session.observer.on_changed()
            return
        pane.attention = True
        pane.last_message = line
        self._record(pane, line or "notification")
        self.session.scheduler.mark_dirty()
        self.session.observer.on_changed()

    def _notice(self, pane: Pane, state: str, message: str | None, *, recorded: bool = True) -> None:
        """A transition worth telling: out to each client that does not show the pane, and (`recorded`:
        no client looks at it) flagged and kept among the notifications."""
        who = pane.agent.kind if pane.agent is not None else pane.title
        if recorded:
            pane.attention = True
            text = f"{who} {LABELS.get(state, state)}" + (f": {message}" if message else "")
            self._record(pane, one_line(text) or text)
        title = f"{who} needs you" if state == BLOCKED else f"{who} is done"
        self._outward(pane, title, message or pane.title)

    def _record(self, pane: Pane, text: str) -> None:
        notes = self.session.notifications
        notes.append(Notification(at=now_iso(), pane_id=pane.id, text=text, read_at=None))
        del notes[:-MAX_NOTIFICATIONS]

    def _to_onlookers(self, pane: Pane, notice: str | None) -> None:
        """What the pane's program sent its terminal, passed on to each client whose screen shows the
        pane as to a terminal of its own: a BEL (`notice` None) rings, as tmux rings the bell of a
        window in view; a desktop notification (OSC 9/777/99) goes in the form that client's terminal
        takes. A client that does not show the pane is told by dsh's own notice (`_outward`)."""
        for view in list(self.session.views):
            if not view.shows(pane.id):
                continue
            send = getattr(view, "ring_bell" if notice is None else "send_notification", None)
            if send is None:
                continue
            try:
                send() if notice is None else send(pane.title, one_line(notice) or notice)
            except Exception:  # the client's terminal is best effort; never the session's failure
                logger.exception("passing a pane's bell or notification on failed")

    def _outward(self, pane: Pane, title: str, body: str) -> None:
        """To the user's own terminal, for each attached client whose screen does not show this pane
        (each client its own: one looking at the pane is told nothing, another in the picker is)."""
        for view in list(self.session.views):
            if view.shows(pane.id):
                continue
            send = getattr(view, "send_notification", None)
            if send is None:
                continue
            try:
                send(title, body)
            except Exception:  # the client's terminal is best effort; never the session's failure
                logger.exception("outward notification failed")


def agent_rows(session: Session) -> list[dict[str, object]]:
    """This session's agent panes as rows (dsh.attention.rows), for another host's or a CLI's query."""
    rows: list[dict[str, object]] = []
    title = session.display_title
    for pane in session.panes.values():
        attention = pane.agent_state
        if attention is None:
            continue
        rows.append(
            {
                "session": session.log.id,
                "cwd": session.cwd,
                "session_title": title,
                "pane": pane.id,
                "title": pane.title,
                "kind": pane.agent.kind if pane.agent is not None else "",
                "state": attention.state,
                "since": attention.since,
                "message": attention.message,
            }
        )
        if len(rows) >= MAX_ROWS_PER_HOST:
            break
    return rows
