"""A session's title: its log's lines and its agents' conversations' titles, read off the loop."""

from __future__ import annotations

import io
import time
from typing import TYPE_CHECKING

from dsh.persist.states import PaneState
from dsh.safefile import open_read
from dsh.store.log import LogError, SessionLog, scan_log
from dsh.store.titles import TitleState
from dsh.text import sanitize

if TYPE_CHECKING:
    from dsh.session.session import Session

# How often the agents' stores are read again for the title of a session with an agent.
AGENT_TITLES_SECONDS = 60.0
# Panes restored and not started yet still hold their agent (as the log's open panes do).
_WAITING = (PaneState.RESTORED, PaneState.RESUMABLE)


def seed_titles(log: SessionLog) -> TitleState:
    """What the log says of the title so far (read a batch at a time, never whole)."""
    state = TitleState()
    try:
        with open_read(log.path) as handle:
            scan_log(log.path, handle, state.add_events)
    except (LogError, OSError, AttributeError):
        pass
    return state


def display_title(session: Session) -> str:
    """The title by the rule `dsh sessions` uses: rename, agent conversation, first line worth one."""
    session.titles.explicit = session.title or None
    open_keys = {
        f"{p.agent.kind}:{p.agent.session_id}"
        for p in session.panes.values()
        if p.agent is not None and p.agent.session_id and (p.running or p.state in _WAITING)
    }
    return sanitize(session.titles.title(open_keys, session.agent_titles), max_len=60)


def note_agent(session: Session, pane_id: str, kind: str, session_id: str | None) -> None:
    """A pane's agent holds this conversation now (None: none): in the log, and for the title."""
    session.log_event("agent", pane_id=pane_id, kind=kind, session_id=session_id)
    if session_id:
        session.titles.add_agent(f"{kind}:{session_id}")
        titles_soon(session)


def titles_soon(session: Session) -> None:
    """Read the agents' stores again shortly (an agent's conversation began or changed)."""
    session._agent_titles_due = min(session._agent_titles_due, time.monotonic() + 1.0)


def refresh_in_background(session: Session) -> None:
    """Read what changed in the agents' stores into the index, then the titles of this session's agents."""
    from dsh.resume import picker_hooks

    session._agent_titles_due = time.monotonic() + AGENT_TITLES_SECONDS
    if session._agent_titles_busy or session.closing or not session.titles.learned:
        return
    refresher, _ = picker_hooks.agent_refresher_for(session.config, session.cwd)
    if refresher is None:
        return
    keys = list(session.titles.learned)
    session._agent_titles_busy = True
    db_path, root, loop = session.store.index.db_path, session.store.root, session.loop

    def work() -> None:
        from dsh.resume.agent_rows import conversation_titles
        from dsh.store.index import SessionIndex

        titles: dict[str, str] = {}
        try:
            index = SessionIndex(db_path, root, progress=io.StringIO())
            try:
                if not session._agent_titles_read:  # what the index knows now, before the stores are read
                    known = index.read(lambda conn: conversation_titles(conn, keys))
                    if known and not session.closing:
                        loop.call_soon_threadsafe(_known, session, known)
                refresher(index)
                titles = index.read(lambda conn: conversation_titles(conn, keys))
            finally:
                index.close()
        except Exception:  # a broken index must not break the session; /resume and the listing say so
            pass
        if not session.closing:
            loop.call_soon_threadsafe(_arrived, session, titles)

    loop.run_in_executor(session.worker, work)


def _known(session: Session, titles: dict[str, str]) -> None:
    if not session._agent_titles_read:
        session._agent_titles_read = True
        session.agent_titles = titles
        session.observer.on_changed()


def _arrived(session: Session, titles: dict[str, str]) -> None:
    session._agent_titles_busy = False
    session._agent_titles_read = True
    if titles != session.agent_titles:
        session.agent_titles = titles
        session.observer.on_changed()


def record_input(session: Session, line: str) -> None:
    """A line from the prompt: in the log, and for the title."""
    session.log_event("input", text=line)
    session.titles.add_input(line)
    if session.titles.learned and not session._agent_titles_read:
        # A restored session's agent's title is not read yet (the stores are, off the loop, after the
        # first frame): without it the line just typed would be the title, and `dsh sessions` says
        # the conversation's. One indexed read, once.
        read_now(session)


def read_now(session: Session) -> None:
    """The titles of this session's agents' conversations as the index has them now (on the loop)."""
    import sqlite3

    from dsh.resume.agent_rows import conversation_titles

    keys = list(session.titles.learned)
    try:
        titles = session.store.index.read(lambda conn: conversation_titles(conn, keys))
    except sqlite3.Error:
        return
    session._agent_titles_read = True
    if titles != session.agent_titles:
        session.agent_titles = titles
        session.observer.on_changed()
