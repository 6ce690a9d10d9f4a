"""The app's chrome: its style, the tab bar, pane headers, status and message lines, as fragments."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.styles import Style

from dsh.attention.states import BLOCKED, DONE, EXITED, GLYPHS, IDLE, LABELS, WORKING, age, counts_line, most_urgent
from dsh.commands.keymap import key_display
from dsh.persist.states import PaneState
from dsh.session.attention import state_of
from dsh.session.pane import Pane
from dsh.store.workspace import workspace_label
from dsh.text import sanitize

if TYPE_CHECKING:
    from dsh.ui.state import ViewState

MIN_COLS = 20
# Runs a restored pane's saved command again (in a fresh shell in its directory).
RERUN_KEY = "escape r"
# Starts every pane a restore left waiting (/start-all), while there is one.
START_ALL_KEY = "escape R"
_WAITING = (PaneState.RESTORED, PaneState.RESUMABLE)
MIN_ROWS = 8

STYLE = Style.from_dict(
    {
        "tabbar": "bg:#303030 #d0d0d0",
        "tabbar.active": "bg:#5f87af #ffffff bold",
        "status": "bg:#303030 #d0d0d0",
        "status.mode": "bg:#5f87af #ffffff bold",
        "status.warn": "bg:#af5f00 #ffffff bold",
        "pane.header": "bg:#262626 #a8a8a8",
        "pane.header.active": "bg:#5f87af #ffffff bold",
        "pane.header.inside": "bg:#87af5f #000000 bold",
        "pane.state.live": "",
        "pane.state.restored": "bg:#875f87 #ffffff bold",
        "pane.state.resumable": "bg:#af8700 #000000 bold",
        "pane.state.exited": "bg:#870000 #ffffff bold",
        "pane.status.ok": "bg:#262626 #87d787 bold",
        "pane.status.failed": "bg:#870000 #ffffff bold",
        "pane.border": "#585858",
        "message": "#ffaf00",
        "message.error": "#ff5f5f bold",
        "prompt": "#5fafff bold",
        "suggestion": "#767676",
        "help": "",
        "picker.match": "#ffaf00 bold underline",
        "picker.scope": "bold",
        "picker.dim": "#767676",
        "picker.footer": "#8a8a8a",
        "copy.selection": "reverse",
        "copy.cursor": "reverse bold",
        "attention.blocked": "bg:#d70000 #ffffff bold",
        "attention.done": "bg:#005f00 #ffffff bold",
        "attention.working": "bg:#5f5f00 #ffffff",
        "attention.idle": "#a8a8a8",
        "attention.exited": "#8a8a8a",
        "notification.unread": "#ffaf00 bold",
        "notification.read": "#8a8a8a",
        "status.attention": "bg:#d70000 #ffffff bold",
        "status.agents": "bg:#303030 #ffd75f",
    }
)


def tabbar_fragments(app: ViewState) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for index, tab in enumerate(app.session.tabs.tabs):
        style = "class:tabbar.active" if index == app.session.tabs.active_index else "class:tabbar"
        # An unnamed tab is called after what its active pane runs (its name, else its foreground
        # program), as tmux's automatic-rename names a window.
        active = app.session.panes.get(tab.active_pane)
        label = sanitize(tab.title or (tab_label(active) if active else "tab"), max_len=30)
        panes = [app.session.panes[p] for p in tab.pane_ids() if p in app.session.panes]
        rolled = most_urgent([state_of(pane) for pane in panes])
        attention = rolled is None and any(pane.attention for pane in panes)
        zoomed = " [Z]" if tab.zoomed else ""  # tmux marks a zoomed window with Z
        if tab.id in app.session.synced_tabs:
            zoomed += " [S]"  # typed input goes to every pane of it
        handler = _select_tab(app, index)
        if rolled is not None and rolled != EXITED:
            out.append((f"class:attention.{rolled}", f" {GLYPHS[rolled]}", handler))
        out.append((style, f" {index}:{label}{zoomed}{'!' if attention else ''} ", handler))
        out.append(("class:tabbar", " "))
    return out


def tab_label(pane: Pane) -> str:
    return pane.name or pane.program


def pane_header(app: ViewState, pane_id: str) -> Callable[[], StyleAndTextTuples]:
    def fragments() -> StyleAndTextTuples:
        pane = app.session.panes.get(pane_id)
        if pane is None:
            return []
        active = app.session.tabs.tabs and app.session.tabs.active_pane == pane_id
        if active and app.mode in ("pane", "copy"):
            style = "class:pane.header.inside"
        elif active:
            style = "class:pane.header.active"
        else:
            style = "class:pane.header"
        marker = "▶ " if active else "  "
        out: StyleAndTextTuples = [(style, f"{marker}{pane.id} {pane.header_name}")]
        out += attention_fragments(pane, style)
        state = pane_state_label(pane)
        out.append((style, "  "))
        out.append((f"class:pane.state.{state.lower().split()[0]}", f" {state} "))
        status = command_status(pane)
        if status is not None:
            ok = status == 0
            out.append((style, " "))
            out.append(("class:pane.status.ok" if ok else "class:pane.status.failed", " ✓ " if ok else f" ✗ {status} "))
        hint = pane_hint(pane)
        # (Not beside an agent's resume hint, which says more and would be cut short.)
        if hint and pane.state is PaneState.RESTORED and _waiting_panes(app) > 1:
            hint += f" · {key_display(START_ALL_KEY)}: start all"
        if hint:
            out.append((style, f"  {hint}"))
        if pane.attention:
            out.append((style, "  (!)"))
        if pane.terminal.scroll_offset:
            out.append((style, f"  [history -{pane.terminal.scroll_offset}]"))
        out.append((style, " " * 400))
        return out

    return fragments


def attention_fragments(pane: Pane, style: str) -> StyleAndTextTuples:
    """A pane's agent state in its header: glyph, word and age, then its one-line message."""
    attention = pane.agent_state
    if attention is None or attention.state == EXITED or (attention.state == IDLE and not pane.running):
        return []  # an ended program's pane says so in its state label
    state = attention.state
    if state == EXITED and pane.state in (PaneState.RESTORED, PaneState.RESUMABLE, PaneState.EXITED):
        # A restored pane's own state (RESUMABLE and its Enter hint) says it: "exited 16s" beside it
        # would only push the hint out of a narrow header.
        return []
    out: StyleAndTextTuples = [
        (style, " "),
        (f"class:attention.{state}", f" {GLYPHS[state]} {LABELS[state]} {age(time.time() - attention.since)} "),
    ]
    if attention.message and state in (BLOCKED, DONE, WORKING):
        # Already one sanitized line (dsh.attention.model.one_line).
        out.append((style, f" {attention.message[:120]}"))
    return out


def command_status(pane: Pane) -> int | None:
    """The exit status of the last command the pane's shell ran, while it waits at its next prompt
    (only a shell with dsh's integration says it)."""
    shell = pane.terminal.screen.shell
    return shell.status if pane.running and shell.state in ("prompt", "command") else None


def _waiting_panes(app: ViewState) -> int:
    return sum(1 for pane in app.session.panes.values() if pane.state in _WAITING)


def pane_state_label(pane: Pane) -> str:
    if pane.state is PaneState.LIVE:
        if pane.terminal.exit_status is not None and not pane.terminal.running:
            return f"EXITED {pane.terminal.exit_status}"
        return "LIVE"
    return pane.state.name


def pane_hint(pane: Pane) -> str:
    if pane.state is not PaneState.LIVE:
        # Only a restored pane has a restart hint: the agents' code is imported for one, not for a new
        # session's first frame (start-up).
        from dsh.agents.resumable import restart_hint

        hint = restart_hint(pane.state, pane.agent)
        if hint is not None:
            return hint
    command = pane.rerun_line
    if command is not None:
        # Shown whole before it may run: the saved argv is disk input, its control characters escaped.
        return f"Enter: fresh shell · {key_display(RERUN_KEY)}: run {sanitize(command, max_len=200)}"
    if pane.startable:
        return "Enter: start a shell here"
    return ""


def status_fragments(app: ViewState) -> StyleAndTextTuples:
    pane = app.active_pane
    mode_label = {
        "prompt": "PROMPT",
        "pane": "IN PANE",
        "picker": "RESUME",
        "help": "HELP",
        "copy": "COPY",
    }.get(app.mode, app.mode.upper())
    if app.mode == "pane" and pane is not None:
        mode_label = f"IN PANE {pane.id} {pane.program}"  # where the keys go, by name (the rule moves them)
    if getattr(app, "read_only", False):
        mode_label = "READ-ONLY"  # never PROMPT: its keys go nowhere
    if app.prefix_pending:
        mode_label = f"{key_display(app.keymap.prefix)}…"
    title = sanitize(app.session.display_title, max_len=40)
    state = pane_state_label(pane) if pane else "-"
    hint = key_hint(app)
    place = sanitize(workspace_label(app.session.cwd))
    if len(place) > 50:
        place = "…" + place[-49:]  # the end of a path says most about where you are
    text = f" {place} · {title} · {state} "
    out: StyleAndTextTuples = []
    if app.too_small or app.session.area.width < MIN_COLS or app.session.area.height < MIN_ROWS - 4:
        # First on the line, so even a very narrow terminal shows why the panes are cramped.
        out.append(("class:status.warn", "too small "))
    failure = app.session.scheduler.failure
    if failure:
        # Stays until a snapshot write succeeds (the scheduler retries): the saved layout is behind.
        out.append(("class:status.warn", f" layout not saved: {sanitize(failure, max_len=40)} "))
    out.append(("class:status.mode", f" {mode_label} "))
    # Right after the mode, so it survives an 80-column window: every live session's agents.
    blocked, counts = agent_counts(app)
    if counts:
        out.append(("class:status.attention" if blocked else "class:status.agents", f" {counts} "))
    out += [("class:status", text), ("class:status", f" {hint}")]
    return out


def agent_counts(app: ViewState) -> tuple[bool, str]:
    """Whether any agent on the machine needs you, and the counts line ("2 need you · 3 working"):
    this session's panes as they are now, the other live sessions' as last asked."""
    states = [state_of(pane) for pane in app.session.panes.values()]
    states += app.session.machine.states()
    return BLOCKED in states, counts_line(states)


def key_hint(app: ViewState) -> str:
    esc = key_display(app.escape_key)
    prefix = key_display(app.keymap.prefix)
    if getattr(app, "read_only", False):
        return f"keys are not sent · {prefix} d: detach"
    if app.mode == "pane":
        return f"{esc}: back to prompt · {prefix} ?: keys"
    if app.mode == "copy":
        if app.copy_keys == "emacs":
            return "C-Space select · M-w copy · C-s C-r search · q leave"
        return "v V C-v select · y copy · / ? search · [ ] prompts · q leave"
    if app.mode == "help":
        return "↑↓ PgUp PgDn scroll · q/Esc close"
    return f"{esc}: into pane · {prefix} ?: keys · /help"


def message_fragments(app: ViewState) -> StyleAndTextTuples:
    if app.message is None:
        return []
    style = "class:message.error" if app.message.error else "class:message"
    return [(style, " " + app.message.text)]


def _select_tab(app: ViewState, index: int) -> Callable[[MouseEvent], object]:
    """A click on a tab's name shows that tab."""

    def handler(event: MouseEvent) -> object:
        if event.event_type != MouseEventType.MOUSE_UP:
            return NotImplemented
        if index < len(app.session.tabs.tabs):
            app.session.select_tab(index)  # the verb /tab select uses: saved and told alike
        return None

    return handler
