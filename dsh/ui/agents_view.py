"""`/agents` and `/notifications` in the view: the list drawn over the panes (in the help overlay's
place), its keys, and going to the line's pane: here it is focused; in another live session that
session is attached (the /resume handoff) with that pane focused."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from dsh.attention.agents_list import ListModel, NoteItem, Target, agents_model, next_needing, notifications_model
from dsh.attention.rows import AgentRow
from dsh.machines.config import read_machines
from dsh.session.attention import agent_rows
from dsh.session.machine_agents import focus_in_host
from dsh.session.view_records import Switch
from dsh.store.timefmt import epoch_from_iso
from dsh.ui.state import Mode

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def machine_rows(app: DshApp) -> list[AgentRow]:
    """Every agent this view knows of: this session's now, the other sessions' as last asked, and
    Claude Code sessions outside dsh."""
    session = app.session
    rows = [row for item in agent_rows(session) if (row := AgentRow.from_dict(item)) is not None]
    rows += session.machine.rows
    from dsh.attention.outside import outside_rows

    rows += outside_rows(session.env)
    return rows


def open_agents(app: DshApp) -> None:
    session = app.session
    show(app, agents_model(machine_rows(app), here=session.log.id, now=time.time()))
    task = session.machine.refresh()
    if task is not None:
        # The other hosts' answers, when they come, replace the list (the selection kept by place).
        def arrived(_task: object) -> None:
            overlay = getattr(app, "list_overlay", None)
            if overlay is not None and overlay.title.startswith("agents"):
                fresh = agents_model(machine_rows(app), here=session.log.id, now=time.time())
                fresh.selected = min(overlay.selected, max(0, len(fresh.lines) - 1))
                app.list_overlay = fresh
                app.invalidate()

        task.add_done_callback(arrived)


def go_next(app: DshApp) -> None:
    """C-b g: straight to the next pane that needs you, in this session or another."""
    session = app.session
    current = session.tabs.active_pane if session.tabs.tabs else None
    row = next_needing(machine_rows(app), here=session.log.id, current=current)
    if row is None:
        app.announce("no agent needs you")
        session.machine.refresh()  # the next C-b g sees the other sessions as they are now
        return
    go(app, Target(row.session, row.pane, row.cwd, machine=row.machine))


def open_notifications(app: DshApp) -> None:
    session = app.session
    now = time.time()
    notes = [
        NoteItem(n.at, n.pane_id, n.text, n.read_at is not None, epoch_from_iso(n.at) or 0.0)
        for n in session.notifications
    ]
    show(app, notifications_model(notes, session=session.log.id, cwd=session.cwd, now=now))


def show(app: DshApp, model: ListModel) -> None:
    app.list_overlay = model
    app.help_lines = []
    app.help_scroll = 0
    app.mode = Mode.HELP
    app.layout.focus(app.help_window)
    app.invalidate()


def close(app: DshApp) -> None:
    app.list_overlay = None
    app.close_overlay()


def go(app: DshApp, target: Target | None) -> None:
    """Enter on a line: its pane here, or its session attached with the pane focused."""
    if target is None:
        return
    session = app.session
    if target.outside:
        where = f" on {target.machine}" if target.machine else ""
        app.announce(f"that agent runs outside dsh{where}, in {target.cwd}")
        return
    if target.machine:
        go_to_machine(app, target)
        return
    if target.session in (None, session.log.id):
        app.list_overlay = None
        app.close_overlay()
        if target.pane in session.panes:
            session.focus_pane(target.pane)
        elif target.pane:
            app.announce(f"pane {target.pane} is gone", error=True)
        return

    app.list_overlay = None
    app.close_overlay()
    if target.pane:
        focus_in(target.session, target.pane)
    app.switch_to(Switch(target.session, target.cwd), f"dsh attach {target.session}")


def go_to_machine(app: DshApp, target: Target) -> None:
    """A pane of a session on another machine: the client hands the terminal to ssh running
    `dsh focus` then `dsh attach` there, and comes back to this session when that ssh ends."""
    from dsh.machines.ssh import attach_argv

    config = read_machines(app.config)
    machine = config.find(target.machine or "")
    if machine is None or target.session is None:
        app.announce(f"machine {target.machine} is no longer in config", error=True)
        return
    app.list_overlay = None
    app.close_overlay()
    words = ["attach", target.session]
    before = ["focus", "-t", f"{target.session}:{target.pane}"] if target.pane else None
    argv = attach_argv(config.ssh_command, machine, words, before=before)
    app.switch_to(Switch(None, app.session.cwd, remote=argv), f"run: ssh -t {machine.ssh} {' '.join(words)}")


def focus_in(session_id: str, pane_id: str) -> None:
    """Ask another session's host to focus a pane (its control channel), so the attach shows it."""
    focus_in_host(session_id, pane_id)


def fragments(app: DshApp, model: ListModel) -> StyleAndTextTuples:
    info = app.help_window.render_info
    height = max(3, (info.window_height if info is not None else 20) - 2)
    out: StyleAndTextTuples = [("bold", f" {model.title}\n\n")]
    if not model.lines:
        out.append(("", f"  {model.empty}\n"))
        return out
    picture = getattr(model, "thumbnail", None)  # choose-tree: the selected pane's screen, below
    picture_rows = max(0, min(height // 2, 16)) if picture is not None else 0
    height = max(3, height - picture_rows - 1) if picture_rows else height
    top = max(0, min(model.selected - height + 1, len(model.lines) - height))
    top = min(top, model.selected)
    for index in range(top, min(len(model.lines), top + height)):
        line = model.lines[index]
        chosen = index == model.selected
        out.append(("reverse" if chosen else "", "▶ " if chosen else "  "))
        out.append((f"class:{line.style}", f" {line.glyph} "))
        out.append(("reverse" if chosen else "", f" {line.text}\n"))
    target = model.target
    if picture is not None and picture_rows and target is not None and target.pane:
        out.append(("class:pane.border", f"  ── {target.pane} " + "─" * 40 + "\n"))
        for row in picture(target.pane)[-picture_rows:]:
            out.append(("", f"  │ {row}\n"))
    return out


def list_bindings(app: DshApp, m: Modes) -> KeyBindings:
    """While a list is shown: move, go, close (over the help overlay's pager keys)."""

    listing = Condition(lambda: app.mode == Mode.HELP and getattr(app, "list_overlay", None) is not None)
    kb = KeyBindings()

    @kb.add("up", filter=listing)
    @kb.add("k", filter=listing)
    @kb.add("c-p", filter=listing)
    def _up(event: KeyPressEvent) -> None:
        app.list_overlay.move(-1)

    @kb.add("down", filter=listing)
    @kb.add("j", filter=listing)
    @kb.add("c-n", filter=listing)
    def _down(event: KeyPressEvent) -> None:
        app.list_overlay.move(1)

    @kb.add("pageup", filter=listing)
    def _page_up(event: KeyPressEvent) -> None:
        app.list_overlay.move(-10)

    @kb.add("pagedown", filter=listing)
    def _page_down(event: KeyPressEvent) -> None:
        app.list_overlay.move(10)

    @kb.add("enter", filter=listing)
    def _go(event: KeyPressEvent) -> None:
        go(app, app.list_overlay.target)

    @kb.add("q", filter=listing)
    @kb.add("escape", filter=listing)
    def _close(event: KeyPressEvent) -> None:
        close(app)

    @kb.add(Keys.Any, filter=listing)
    def _other(event: KeyPressEvent) -> None:
        pass

    return kb
