"""What `/agents` and `/notifications` list, as lines with a selection: every agent pane of every live
session (and Claude Code sessions outside dsh), most urgent first; the last notifications, unread first.
Plain data: the view draws it and acts on the selected line's target."""

from __future__ import annotations

import os

from dsh.attention.model import NOTIFYING
from dsh.attention.rows import AgentRow, sort_rows
from dsh.attention.states import GLYPHS, LABELS, age
from dsh.values import Value


class Target(Value, fields=("session", "pane", "cwd", "outside", "machine")):
    """Where Enter on a line goes: a pane of a session (this one or another, on this machine or the
    configured `machine`), or nowhere (outside)."""

    session: str | None
    pane: str | None
    cwd: str
    outside: bool
    machine: str | None

    def __init__(
        self, session: str | None, pane: str | None, cwd: str, outside: bool = False, machine: str | None = None
    ) -> None:
        self.session = session
        self.pane = pane
        self.cwd = cwd
        self.outside = outside
        self.machine = machine


class Line(Value, fields=("style", "glyph", "text", "target")):
    style: str
    glyph: str
    text: str
    target: Target | None

    def __init__(self, style: str, glyph: str, text: str, target: Target | None) -> None:
        self.style = style
        self.glyph = glyph
        self.text = text
        self.target = target


class ListModel:
    """A titled list of lines and the selected one."""

    def __init__(self, title: str, lines: list[Line], empty: str) -> None:
        self.title = title
        self.lines = lines
        self.empty = empty
        self.selected = 0

    def move(self, delta: int) -> None:
        if self.lines:
            self.selected = max(0, min(len(self.lines) - 1, self.selected + delta))

    @property
    def target(self) -> Target | None:
        return self.lines[self.selected].target if self.lines else None


def _place(cwd: str, home: str) -> str:
    if home and (cwd == home or cwd.startswith(home.rstrip("/") + "/")):
        cwd = "~" + cwd[len(home.rstrip("/")) :]
    return cwd if len(cwd) <= 40 else "…" + cwd[-39:]


def agents_model(rows: list[AgentRow], *, here: str, now: float, home: str | None = None) -> ListModel:
    """/agents: a line per agent, blocked → done → working → idle, the longest waiting first."""
    home = os.path.expanduser("~") if home is None else home
    lines = []
    for row in sort_rows(rows):
        if row.machine:
            title = row.session_title or row.session
            where = f"outside dsh on {row.machine}" if row.outside else f"{row.machine}: {title}"
        elif row.outside:
            where = "outside dsh"
        else:
            where = "this session" if row.session == here else row.session_title or row.session or ""
        who = " ".join(part for part in (row.pane or (f"pid {row.pid}" if row.pid else ""), row.kind) if part)
        text = f"{LABELS[row.state]:<9} {age(now - row.since):>4}  {_place(row.cwd, home)} · {where} · {who}"
        if row.message:
            text += f"  {row.message}"
        target = Target(row.session, row.pane, row.cwd, row.outside, row.machine)
        lines.append(Line(f"attention.{row.state}", GLYPHS[row.state], text, target))
    title = "agents on this machine" if not any(row.machine for row in rows) else "agents on every machine"
    return ListModel(f"{title} — Enter: go there · q: close", lines, "no agent is running in any live session")


def next_needing(rows: list[AgentRow], *, here: str, current: str | None) -> AgentRow | None:
    """The next pane that needs you (blocked, then done, longest first), never the one in view; an
    agent outside dsh cannot be gone to."""
    waiting = [r for r in sort_rows(rows) if r.state in NOTIFYING and not r.outside and r.pane is not None]
    for row in waiting:
        if not (row.session == here and row.pane == current and row.machine is None):
            return row
    return None


class NoteItem(Value, fields=("at", "pane", "text", "read", "since")):
    at: str
    pane: str | None
    text: str
    read: bool
    since: float

    def __init__(self, at: str, pane: str | None, text: str, read: bool, since: float) -> None:
        self.at = at
        self.pane = pane
        self.text = text
        self.read = read
        self.since = since


def notifications_model(notes: list[NoteItem], *, session: str, cwd: str, now: float) -> ListModel:
    """/notifications: unread first, the newest first within each."""
    ordered = sorted(notes, key=lambda n: (n.read, -n.since))
    lines = []
    for note in ordered:
        glyph = "·" if note.read else "●"
        text = f"{age(now - note.since):>4}  {note.pane or '-':<4} {note.text}"
        target = Target(session, note.pane, cwd) if note.pane else None
        lines.append(Line("notification.read" if note.read else "notification.unread", glyph, text, target))
    unread = sum(1 for n in notes if not n.read)
    return ListModel(
        f"notifications — {unread} unread of {len(notes)} · Enter: go there · q: close", lines, "no notifications"
    )
