"""The dsh application: tabs of panes, the REPL prompt, the picker; glue between the models and the screen."""

from __future__ import annotations

import asyncio
import base64
import io
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import BeforeInput, ConditionalProcessor, PasswordProcessor
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.widgets import SearchToolbar

from dsh.agents.registry import adapter_for_argv
from dsh.agents.resumable import plan_pane_start
from dsh.commands.keymap import Keymap, key_display
from dsh.commands.parse import parse_line
from dsh.commands.registry import CommandError, Registry
from dsh.config import Config
from dsh.home import dsh_home_path
from dsh.layout.geometry import Layout as PaneLayout
from dsh.layout.geometry import Rect
from dsh.layout.ids import next_id
from dsh.layout.tabs import TabSet
from dsh.panes import Pane
from dsh.persist.scheduler import SnapshotScheduler
from dsh.persist.snapshot import (
    AgentInfo,
    LoadedSnapshot,
    Notification,
)
from dsh.persist.states import PaneState
from dsh.store.gitinfo import git_branch
from dsh.store.log import LogError, SessionLog, read_log
from dsh.store.store import Store
from dsh.store.timefmt import now_iso
from dsh.store.titles import TitleState
from dsh.store.workspace import workspace_partition
from dsh.term.copymode import CopyMode
from dsh.term.terminal import Terminal
from dsh.text import sanitize
from dsh.ui import chrome, saving
from dsh.ui.completion import RegistryCompleter
from dsh.ui.panes_view import PanesContainer, PaneSlot
from dsh.ui.terminal_control import TerminalControl

# Panes other than the active one redraw at most this often (tmux also paces busy panes).
BACKGROUND_FRAME_SECONDS = 0.1
# Redraws caused by pane output, per second at most.
OUTPUT_FPS = 60
# Bytes a pane's reader takes per loop callback: the active pane's output matters most.
FOREGROUND_READ = 32768
BACKGROUND_READ = 8192
PROMPT_MAX_ROWS = 6


@dataclass
class AppResult:
    """What the app asks its launcher to do when the loop has ended and the terminal is restored."""

    exit_code: int = 0
    exec_argv: list[str] | None = None
    exec_env: dict[str, str] | None = None



@dataclass
class Announcement:
    text: str
    error: bool = False


@dataclass
class DshOptions:
    config: Config
    store: Store
    log: SessionLog
    cwd: str
    loaded: LoadedSnapshot | None = None
    announcements: list[Announcement] = field(default_factory=list)
    open_picker: bool = False
    first_argv: list[str] | None = None  # what the first pane of a new session runs (default: a shell)


class DshApp:
    """One running dsh session: the models, the prompt_toolkit Application, and the glue between."""

    def __init__(self, options: DshOptions) -> None:
        self.config = options.config
        self.store = options.store
        self.log = options.log
        self.cwd = options.cwd
        self.session_title: str | None = None
        self.tabs = TabSet()
        self.panes: dict[str, Pane] = {}
        self.slots: dict[str, PaneSlot] = {}
        self.mode = "prompt"  # prompt | pane | picker | help | copy
        # Where the keyboard goes back to when an overlay, copy mode or a question on the prompt ends.
        self._return_mode = "prompt"
        self._return_auto = False
        self._ask_return_mode = "prompt"
        self.prefix_pending = False
        self.auto_entered = False
        self.message: Announcement | None = None
        self.area = Rect(0, 1, 80, 20)
        self._child_focus: str | None = None
        self._picker_loading = False
        self._pane_ids_used: set[str] = set()
        # A session made by this process in which nothing reached a pane is left archived when it
        # closes, so an idle start (or one that only hosted /resume) does not clutter the listings.
        self.fresh_session = options.loaded is None
        self.used = False
        self.auto_resume = False  # set by a restore in a workspace that opted in
        self.too_small = False
        self.notifications: list[Notification] = []
        self.result = AppResult()
        self.agent_probes: dict[str, saving.AgentProbe] = {}
        self._transcripts: Any = None  # the picker's transcript searcher, made on first use
        # The title's parts (dsh.store.titles): seeded from the log of a resumed session.
        self.titles = _seed_titles(self.log)
        self.agent_titles: dict[str, str] = {}  # `kind:id` -> its conversation's title, from the index
        self._agent_titles_busy = False
        self._agent_titles_due = 0.0
        self._closing = False
        self._pending_prompt_action: Callable[[str], None] | None = None
        self._prompt_label = "dsh› "
        self.scrollback = int(self.config.get("term.scrollback", 10000) or 10000)
        self.tail_bytes = int(self.config.get("term.tail_bytes", 65536) or 65536)
        self.term_name = str(self.config.get("term.term", "xterm-256color") or "xterm-256color")

        from dsh.ui.commands_builtin import build_registry

        self.registry: Registry = build_registry()
        keys_table = self.config.get("keys", {}) or {}
        if not isinstance(keys_table, dict):
            keys_table = {}
        table = dict(keys_table)
        prefix = self.config.get("ui.prefix")
        if prefix and "prefix" not in table:
            table["prefix"] = prefix
        self.keymap, warnings = Keymap.from_config(
            table, known_commands=set(self.registry.names()), source=str(dsh_home_path("config.toml"))
        )
        self.escape_key = str(self.config.get("ui.escape_key", "c-]") or "c-]")

        self.picker: Any = None
        self.picker_view: Any = None
        self.help_lines: list[str] = []
        self.help_scroll = 0

        self.prompt_buffer = Buffer(
            name="prompt",
            multiline=False,
            history=self._make_history(),
            completer=RegistryCompleter(self.registry, self),
            complete_while_typing=Condition(lambda: self.prompt_buffer.text.startswith("/")),
            accept_handler=self._accept_line,
        )
        self._build_layout()
        from dsh.ui.keys import build_key_bindings

        self.application: Application[AppResult] = Application(
            layout=self.layout,
            key_bindings=build_key_bindings(self),
            style=chrome.STYLE,
            full_screen=True,
            mouse_support=Condition(lambda: bool(self.config.get("ui.mouse", True))),
            min_redraw_interval=None,
            max_render_postpone_time=0.005,
            refresh_interval=None,
        )
        self.application.ttimeoutlen = 0.05
        self.loop = asyncio.get_event_loop()
        self._last_key_time = 0.0
        self._last_output_redraw = 0.0
        self._output_redraw_pending = False
        self.application.key_processor.before_key_press += self._on_key_press
        self.application.timeoutlen = 0.05
        self.scheduler = SnapshotScheduler(
            lambda: saving.build_snapshot(self),
            interval=float(self.config.get("snapshot.debounce_seconds", 2.0) or 2.0),
        )
        startup = [Announcement(w, error=True) for w in warnings]
        startup += options.announcements
        if startup:
            # One message line: join them, so a second warning does not hide the first.
            self.announce(" | ".join(a.text for a in startup), error=any(a.error for a in startup))
        if options.loaded is not None and options.loaded.snapshot is not None:
            saving.restore(self, options.loaded)
        if not self.panes:
            self.open_tab(options.first_argv)
        self._open_picker_on_start = options.open_picker

    # -- small helpers ---------------------------------------------------------------
    def _make_history(self) -> History:
        try:
            path = dsh_home_path("history", workspace_partition(self.cwd))
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            return FileHistory(str(path))
        except OSError:
            return InMemoryHistory()

    def log_event(self, type: str, **fields: Any) -> None:
        """Append to this session's log; a log that cannot be written is a message, not a crash."""
        if self._closing:
            return
        try:
            self.log.append(type, **fields)
        except (LogError, OSError) as exc:
            self.announce(f"session log: {exc}", error=True)

    def announce(self, text: str, *, error: bool = False) -> None:
        self.message = Announcement(sanitize(text, max_len=400), error)
        self.invalidate()

    def invalidate(self) -> None:
        app = getattr(self, "application", None)
        if app is not None and app.is_running:
            app.invalidate()

    @property
    def active_pane(self) -> Pane | None:
        pane_id = self.tabs.active_pane if self.tabs.tabs else None
        return self.panes.get(pane_id) if pane_id else None

    def busy_panes(self) -> list[Pane]:
        """Panes whose program is more than an idle shell: an agent, or anything the shell runs."""
        busy = []
        for pane in self.panes.values():
            if not pane.running:
                continue
            foreground = pane.terminal.foreground_process()
            if pane.agent is not None or (foreground is not None and foreground[0] != pane.terminal.pid):
                busy.append(pane)
        return busy

    def pane_wants_secret(self) -> bool:
        """True while the active pane's program reads a line without echo (a password prompt)."""
        pane = self.active_pane
        return bool(pane is not None and pane.running and pane.terminal.reading_secret())

    def default_shell_argv(self) -> list[str]:
        shell = os.environ.get("SHELL") or "/bin/sh"
        return [shell, "-l"]

    # -- layout ------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.tabbar = Window(
            FormattedTextControl(lambda: chrome.tabbar_fragments(self)), height=1, style="class:tabbar"
        )
        self.panes_view = PanesContainer(self._pane_layout, self._visible_slots, on_area=self._set_area)
        self.help_window = Window(
            FormattedTextControl(self._help_fragments, focusable=True, show_cursor=False),
            style="class:help",
        )
        from prompt_toolkit.layout import DynamicContainer

        body = DynamicContainer(self._body)
        self.status = Window(
            FormattedTextControl(lambda: chrome.status_fragments(self)), height=1, style="class:status"
        )
        self.message_window = ConditionalContainer(
            Window(
                FormattedTextControl(lambda: chrome.message_fragments(self)),
                height=Dimension(min=1, max=3),
                wrap_lines=True,
                dont_extend_height=True,
            ),
            filter=Condition(lambda: self.message is not None),
        )
        # C-r on the prompt: reverse incremental search of the workspace's history, as in bash.
        self.history_search = SearchToolbar(text_if_not_searching="", ignore_case=True)
        self.prompt_window = Window(
            _PromptControl(
                self.enter_prompt,
                self.prompt_buffer,
                search_buffer_control=self.history_search.control,
                input_processors=[
                    ConditionalProcessor(PasswordProcessor(), Condition(self.pane_wants_secret)),
                    BeforeInput(lambda: self._prompt_label, style="class:prompt"),
                ],
            ),
            # A long line or a pasted block wraps and grows the prompt (up to a few rows), so the label
            # and everything that Enter will send stay in view.
            height=Dimension(min=1, max=PROMPT_MAX_ROWS),
            wrap_lines=True,
            dont_extend_height=True,
        )
        root = HSplit(
            [self.tabbar, body, self.status, self.message_window, self.prompt_window, self.history_search]
        )
        from prompt_toolkit.layout import CompletionsMenu, Float, FloatContainer

        self.layout = Layout(
            FloatContainer(
                root,
                floats=[Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8))],
            ),
            focused_element=self.prompt_window,
        )

    def _body(self) -> Any:
        if self.mode == "picker" and self.picker_view is not None:
            return self.picker_view.container
        if self.mode == "help":
            return self.help_window
        return self.panes_view

    def _set_area(self, area: Rect) -> None:
        self.area = area

    def _pane_layout(self, area: Rect) -> PaneLayout:
        if not self.tabs.tabs:
            self.too_small = False
            return PaneLayout()
        layout = self.tabs.rects(area)
        self.too_small = layout.too_small
        return layout

    def _visible_slots(self) -> list[PaneSlot]:
        if not self.tabs.tabs:
            return []
        tab = self.tabs.active_tab
        return [self.slots[pid] for pid in tab.pane_ids() if pid in self.slots]

    def _help_fragments(self) -> StyleAndTextTuples:
        return [("", "\n".join(self.help_lines[self.help_scroll :]))]

    def scroll_help(self, delta: int) -> None:
        self.help_scroll = max(0, min(self.help_scroll + delta, max(0, len(self.help_lines) - 3)))
        self.invalidate()

    # -- panes ---------------------------------------------------------------------------
    def _new_pane_id(self) -> str:
        # Never reuse an id in a session: a closed pane's id (and its saved tail) stays its own.
        pane_id = next_id("p", self._pane_ids_used | set(self.panes))
        self._pane_ids_used.add(pane_id)
        return pane_id

    def spawn_env(self, pane_id: str, cwd: str) -> dict[str, str]:
        """A pane's environment: dsh's own, its TERM, which session and pane it is, and PWD = its cwd."""
        env = dict(os.environ)
        env.pop("DSH_HANDOFF_FROM", None)
        env["PWD"] = cwd
        env["TERM"] = self.term_name
        env["DSH_SESSION_ID"] = self.log.id
        env["DSH_PANE_ID"] = pane_id
        return env

    def estimate_size(self) -> tuple[int, int]:
        try:
            size = self.application.output.get_size()
            rows, cols = max(2, size.rows - 5), max(10, size.columns)
        except Exception:
            rows, cols = 24, 80
        return rows, cols

    def make_terminal(self, pane_id: str, argv: list[str], cwd: str, env: dict[str, str],
                       rows: int, cols: int) -> Terminal:
        return Terminal(
            argv,
            cwd=cwd,
            env=env,
            rows=rows,
            cols=cols,
            scrollback=self.scrollback,
            tail_bytes=self.tail_bytes,
            term=self.term_name,
            on_change=lambda: self._on_pane_output(pane_id),
            on_exit=lambda status: self._on_pane_exit(pane_id, status),
            on_title=lambda title: self.invalidate(),
            on_bell=lambda: self._on_bell(pane_id),
            on_alt_screen=lambda on: self._on_alt_screen(pane_id, on),
        )

    def register_slot(self, pane: Pane) -> None:
        control = TerminalControl(
            pane.terminal,
            on_click=lambda: self.click_pane(pane.id),
            refresh_interval=lambda: 0.0 if pane.id == self.tabs.active_pane else BACKGROUND_FRAME_SECONDS,
        )
        body = Window(control, wrap_lines=False)
        header = Window(FormattedTextControl(chrome.pane_header(self, pane.id)), height=1)
        self.slots[pane.id] = PaneSlot(pane.id, header, body)

    def create_pane(self, argv: list[str] | None, cwd: str | None = None) -> Pane:
        pane_id = self._new_pane_id()
        argv = list(argv) if argv else self.default_shell_argv()
        cwd = cwd or self.cwd
        env = self.spawn_env(pane_id, cwd)
        agent: AgentInfo | None = None
        adapter = adapter_for_argv(argv)
        if adapter is not None:
            try:
                argv, session_id = adapter.prepare_launch(argv, env=env)
            except Exception as exc:  # an adapter must never keep a pane from starting
                session_id = None
                self.announce(f"{adapter.kind}: {exc}", error=True)
            agent = adapter.agent_info(argv, session_id)
        rows, cols = self.estimate_size()
        terminal = self.make_terminal(pane_id, argv, cwd, env, rows, cols)
        pane = Pane(id=pane_id, argv=argv, cwd=cwd, env=env, terminal=terminal, agent=agent)
        self.panes[pane_id] = pane
        self.register_slot(pane)
        return pane

    def start_pane(self, pane: Pane) -> None:
        pane.started_at = time.time()
        pane.terminal.start()
        self.log_event("pane_opened", pane_id=pane.id, argv=pane.argv)
        if pane.agent is not None and pane.agent.session_id:
            self.note_agent(pane.id, pane.agent.kind, pane.agent.session_id)
        self.scheduler.structural_change()

    def open_tab(self, argv: list[str] | None) -> Pane:
        pane = self.create_pane(argv)
        self.tabs.new_tab(pane.id)
        self.start_pane(pane)
        self.after_structure_change(pane)
        return pane

    def split(self, orientation: str, argv: list[str] | None) -> Pane | None:
        current = self.active_pane
        cwd = current.terminal.cwd if current is not None and current.terminal.cwd else self.cwd
        pane = self.create_pane(argv, cwd=cwd)
        if not self.tabs.tabs:
            self.tabs.new_tab(pane.id)
        else:
            cramped = self.tabs.rects(self.area).too_small
            self.tabs.split(pane.id, orientation)
            if self.tabs.rects(self.area).too_small and not cramped:
                # Like tmux: refuse rather than make panes too small to use.
                self.tabs.close_pane(pane.id)
                self.panes.pop(pane.id, None)
                self.slots.pop(pane.id, None)
                self.announce("no space for a new pane here: /zoom, /close or a bigger window", error=True)
                return None
        self.start_pane(pane)
        self.after_structure_change(pane)
        return pane

    def close_pane(self, pane_id: str | None = None) -> None:
        pane_id = pane_id or self.tabs.active_pane
        pane = self.panes.get(pane_id) if pane_id else None
        if pane is None:
            return
        result = self.tabs.close_pane(pane.id)
        pane.terminal.kill()
        self.log_event("pane_closed", pane_id=pane.id)
        self.panes.pop(pane.id, None)
        self.slots.pop(pane.id, None)
        if result.last_tab_closed:
            self.quit()
            return
        self.after_structure_change()

    def after_structure_change(self, new_pane: Pane | None = None) -> None:
        if new_pane is not None and new_pane.agent is not None and self.mode == "prompt":
            # An agent is a conversation: the keyboard goes straight to it, as if it were launched in a shell.
            self.enter_pane()
        if self.mode == "pane":
            self._focus_active_body()
        self._apply_read_budgets()
        self.scheduler.structural_change()
        self.invalidate()

    def click_pane(self, pane_id: str) -> None:
        if pane_id not in self.panes:
            return
        self.tabs.focus(pane_id)
        self.enter_pane()

    def focus_direction(self, direction: str) -> None:
        if direction in ("next", "prev"):
            self.tabs.focus_next() if direction == "next" else self.tabs.focus_prev()
        else:
            self.tabs.focus_direction(direction, self.area)
        self.after_focus_change()

    def after_focus_change(self) -> None:
        pane = self.active_pane
        if pane is not None and pane.attention:
            pane.attention = False
            self._mark_notifications_read(pane.id)
        if self.mode == "pane":
            self._focus_active_body()
        self._sync_child_focus()
        self._apply_read_budgets()
        self.invalidate()

    # -- keyboard focus: prompt <-> pane -------------------------------------------------
    def _sync_child_focus(self) -> None:
        """Tell children that asked for focus events (agents do) when the keyboard enters or leaves them."""
        pane = self.active_pane
        focused = pane.id if pane is not None and self.mode == "pane" else None
        if focused == self._child_focus:
            return
        before = self.panes.get(self._child_focus) if self._child_focus else None
        if before is not None and before.running:
            before.terminal.set_focus(False)
        if pane is not None and focused is not None and pane.running:
            pane.terminal.set_focus(True)
        self._child_focus = focused

    def _focus_active_body(self) -> None:
        pane = self.active_pane
        if pane is not None and pane.id in self.slots:
            try:
                self.layout.focus(self.slots[pane.id].body)
            except ValueError:
                pass

    def enter_pane(self, *, auto: bool = False) -> None:
        pane = self.active_pane
        if pane is None:
            return
        self.mode = "pane"
        self.auto_entered = auto
        self._focus_active_body()
        self._sync_child_focus()
        self.invalidate()

    def enter_prompt(self) -> None:
        self.mode = "prompt"
        self.auto_entered = False
        self.layout.focus(self.prompt_window)
        self._sync_child_focus()
        self.invalidate()

    def toggle_prompt_pane(self) -> None:
        if self.mode == "pane":
            self.enter_prompt()
        elif self.mode == "prompt":
            self.enter_pane()

    # -- terminal callbacks ---------------------------------------------------------------
    def _on_key_press(self, _sender: object) -> None:
        self._last_key_time = time.monotonic()

    def _apply_read_budgets(self) -> None:
        active = self.tabs.active_pane if self.tabs.tabs else None
        for pane in self.panes.values():
            pane.terminal.read_budget = FOREGROUND_READ if pane.id == active else BACKGROUND_READ

    def _on_pane_output(self, pane_id: str) -> None:
        """Redraw for output at most OUTPUT_FPS times a second; keys (and their echo) redraw at once.

        prompt_toolkit's own min_redraw_interval would pace keystrokes too, so a key's echo would queue
        behind a flooding pane's frames; this paces only what panes print.
        """
        self.scheduler.mark_dirty()
        now = time.monotonic()
        if pane_id == self.tabs.active_pane and now - self._last_key_time < 0.25:
            self.invalidate()  # most likely the echo of what was just typed
            return
        wait = self._last_output_redraw + 1 / OUTPUT_FPS - now
        if wait <= 0:
            self._last_output_redraw = now
            self.invalidate()
        elif not self._output_redraw_pending:
            self._output_redraw_pending = True
            self.loop.call_later(wait, self._paced_output_redraw)

    def _paced_output_redraw(self) -> None:
        self._output_redraw_pending = False
        self._last_output_redraw = time.monotonic()
        self.invalidate()

    def _on_bell(self, pane_id: str) -> None:
        pane = self.panes.get(pane_id)
        if pane is None:
            return
        if pane_id != self.tabs.active_pane or self.mode not in ("pane",):
            pane.attention = True
            self.notifications.append(
                Notification(at=now_iso(), pane_id=pane_id, text=f"bell in {pane.title}", read_at=None)
            )
            del self.notifications[:-200]
            self.scheduler.mark_dirty()
        self.invalidate()

    def _mark_notifications_read(self, pane_id: str) -> None:
        now = now_iso()
        for i, note in enumerate(self.notifications):
            if note.pane_id == pane_id and note.read_at is None:
                self.notifications[i] = Notification(note.at, note.pane_id, note.text, now)

    def _on_alt_screen(self, pane_id: str, on: bool) -> None:
        if pane_id != self.tabs.active_pane:
            return
        if on and self.mode == "prompt":
            self.enter_pane(auto=True)
        elif not on and self.mode == "pane" and self.auto_entered:
            self.enter_prompt()

    def _on_pane_exit(self, pane_id: str, status: int) -> None:
        pane = self.panes.get(pane_id)
        if pane is None:
            return
        pane.exit_status = status
        self.log_event("pane_exited", pane_id=pane_id, status=status)
        if pane.started_from is not None and status != 0 and pane.state is PaneState.LIVE:
            # A resume that failed leaves the tombstone as it was, so the user can try again.
            pane.state = pane.started_from
            self.announce(f"{pane.id}: {pane.title} ended with status {status}", error=True)
        if self.mode == "pane" and pane_id == self.tabs.active_pane:
            self.enter_prompt()
        self.scheduler.structural_change()
        if not any(p.running or p.is_tombstone for p in self.panes.values()):
            self.quit()
        self.invalidate()

    # -- tombstones ------------------------------------------------------------------------
    def start_tombstone(self, pane: Pane) -> None:
        """Start a restored pane (or one whose program ended) in the same slot, keeping id and tail."""
        if not pane.startable:
            return
        if not pane.is_tombstone:
            pane.state = PaneState.EXITED  # ended in this session: a fresh shell, like a restored one
        # The saved argv is untrusted disk input: the adapter rebuilds the resume command.
        plan = plan_pane_start(
            pane_id=pane.id, state=pane.state, agent=pane.agent, saved_cwd=pane.cwd, session_cwd=self.cwd,
            shell_argv=self.default_shell_argv(),
        )
        if plan.message:
            self.announce(plan.message, error=plan.error)
        if plan.argv is None:
            return
        argv, cwd = plan.argv, plan.cwd
        previous = pane.state
        rows, cols = pane.terminal.rows, pane.terminal.cols
        tail = pane.terminal.tail()
        env = self.spawn_env(pane.id, cwd)
        terminal = self.make_terminal(pane.id, argv, cwd, env, rows, cols)
        if tail:
            terminal.replay(tail)
            terminal.feed(b"\r\n")
        pane.terminal = terminal
        pane.argv = argv
        pane.cwd = cwd
        pane.env = env
        pane.started_from = previous
        pane.state = PaneState.LIVE
        pane.saved_title = None  # the new program names itself
        pane.agent = plan.agent
        self.register_slot(pane)
        self.start_pane(pane)
        if pane.id == self.tabs.active_pane:
            self.enter_pane()
        self.invalidate()

    # -- prompt ------------------------------------------------------------------------------
    def _accept_line(self, buffer: Buffer) -> bool:
        line = buffer.text
        if self._pending_prompt_action is not None:
            action = self._pending_prompt_action
            self.end_ask()  # empties the line, so the answer stays out of the prompt history
            action(line)
            return True
        if self.pane_wants_secret():
            # A password: typed into the pane, never into the history or the session log.
            buffer.set_document(Document(""), bypass_readonly=True)
            pane = self.active_pane
            if pane is not None:
                pane.terminal.write(line.encode("utf-8", "replace") + b"\r")
            return False
        self.handle_line(line)
        return False  # clear the prompt line

    def ask(self, label: str, action: Callable[[str], None], default: str = "") -> None:
        """Use the prompt line to ask for a value (tab rename, search)."""
        self._ask_return_mode = self.mode if self.mode in ("pane", "copy") else "prompt"
        self._remember_mode()
        self._pending_prompt_action = action
        self._prompt_label = label
        self.enter_prompt()
        self.prompt_buffer.set_document(Document(default, len(default)), bypass_readonly=True)

    def end_ask(self) -> None:
        """Drop the question on the prompt line; the keyboard goes back where it was when asked."""
        self._pending_prompt_action = None
        self._prompt_label = "dsh› "
        self.prompt_buffer.reset()
        back, self._ask_return_mode = self._ask_return_mode, "prompt"
        if back == "copy" and self.active_pane is not None:
            self.mode = "copy"
            self._focus_active_body()
            self.invalidate()
        elif back == "pane":
            self.return_keyboard()
        else:
            self.enter_prompt()

    def handle_line(self, line: str) -> None:
        self.message = None
        try:
            parsed = parse_line(line)
        except CommandError as exc:
            self.announce(str(exc), error=True)
            return
        if parsed.kind == "empty":
            pane = self.active_pane
            if pane is not None and pane.startable:
                self.start_tombstone(pane)
            elif pane is not None and pane.running:
                pane.terminal.write(b"\r")
            return
        self.log_event("input", text=line)
        self.titles.add_input(line)
        if parsed.kind == "command":
            self.run_command(parsed.name, parsed.args)
            return
        pane = self.active_pane
        if pane is None:
            self.announce("no pane to send that line to: /new opens one", error=True)
            return
        if pane.startable:
            # Start it (a fresh shell, or the agent's resume) and type the line into it: the terminal
            # holds what is typed until the new program reads it.
            self.start_tombstone(pane)
            if self.mode == "pane":
                self.enter_prompt()  # the line came from the prompt; the keyboard stays there
        if not pane.running:
            self.announce(f"{pane.id} could not start; /close it, or /split to open a new pane", error=True)
            return
        if pane.terminal.scroll_offset:
            pane.terminal.scroll_to_bottom()
        self.used = True
        pane.terminal.write(parsed.text.encode("utf-8", "replace") + b"\r")
        self.scheduler.mark_dirty()

    def run_command_line(self, line: str) -> None:
        try:
            parsed = parse_line(line if line.startswith("/") else "/" + line)
        except CommandError as exc:
            self.announce(str(exc), error=True)
            return
        if parsed.kind == "command":
            self.run_command(parsed.name, parsed.args)

    def run_command(self, name: str, args: list[str]) -> None:
        """Run a command on the loop; the registry turns every failure into one CommandError line."""
        task = asyncio.ensure_future(self.registry.dispatch(self, name, args))

        def done(t: asyncio.Future[Any]) -> None:
            if not t.cancelled() and t.exception() is not None:
                self.announce(str(t.exception()), error=True)
            self.invalidate()

        task.add_done_callback(done)

    # -- help ---------------------------------------------------------------------------------
    def show_help(self, topic: str | None = None) -> None:
        lines: list[str] = []
        if topic in (None, "keys"):
            from dsh.ui.keys import key_help_lines

            lines += key_help_lines(self.keymap, self.registry, self.escape_key)
            lines.append("")
        if topic != "keys":
            lines.append(self.registry.help_text(topic) if topic else self.registry.help_text())
        self.help_lines = "\n".join(lines).splitlines()
        self.help_scroll = 0
        self._remember_mode()
        self.mode = "help"
        self.layout.focus(self.help_window)
        self.invalidate()

    def close_overlay(self) -> None:
        self.picker_view = None
        self.return_keyboard()

    def _remember_mode(self) -> None:
        if self.mode in ("prompt", "pane"):
            self._return_mode, self._return_auto = self.mode, self.auto_entered

    def return_keyboard(self) -> None:
        """Give the keyboard back to the prompt or the pane it was in before an overlay or copy mode."""
        if self._return_mode == "pane" and self.active_pane is not None:
            self.enter_pane(auto=self._return_auto)
        else:
            self.enter_prompt()

    # -- copy mode ------------------------------------------------------------------------------
    def enter_copy_mode(self) -> None:
        pane = self.active_pane
        if pane is None:
            return
        self._remember_mode()
        self.mode = "copy"
        pane.terminal.copy = CopyMode(pane.terminal)
        self._focus_active_body()
        self.invalidate()

    def leave_copy_mode(self) -> None:
        for pane in self.panes.values():
            pane.terminal.copy = None
        pane = self.active_pane
        if pane is not None:
            pane.terminal.scroll_to_bottom()
        self.return_keyboard()

    def copy_selection(self) -> None:
        """Copy mode's selected lines to dsh's clipboard and, through OSC 52, the outer terminal's."""
        pane = self.active_pane
        copy = pane.terminal.copy if pane is not None else None
        if copy is None:
            return
        text = copy.selected_text()
        first, last = copy.selected_range()
        self.application.clipboard.set_text(text)
        encoded = base64.b64encode(text.encode("utf-8", "replace")).decode("ascii")
        self.application.output.write_raw(f"\x1b]52;c;{encoded}\x07")
        self.leave_copy_mode()
        count = last - first + 1
        self.announce(f"copied {count} line{'s' if count != 1 else ''} — {key_display(self.keymap.prefix)} ] pastes")

    def paste_clipboard(self) -> None:
        """Type dsh's clipboard into the active pane (bracketed when the program asked for it)."""
        pane = self.active_pane
        text = self.application.clipboard.get_data().text
        if pane is None or not pane.running:
            raise CommandError("no running program in the active pane to paste into")
        if not text:
            raise CommandError("the clipboard is empty: copy lines in copy mode first (C-b [, Space, Enter)")
        pane.terminal.paste(text)

    def search_history(self, text: str, *, backwards: bool = True) -> None:
        pane = self.active_pane
        if pane is None or not text:
            return
        self._last_search = text
        if not pane.terminal.search(text, backwards=backwards):
            self.announce(f"not found: {text}")
        elif pane.terminal.copy is not None:
            pane.terminal.copy.follow_match()
        self.invalidate()

    # -- sessions and resume ------------------------------------------------------------------------
    def set_session_title(self, title: str) -> None:
        self.session_title = title
        self.titles.explicit = title or None
        self.log_event("title", title=title)
        self.scheduler.structural_change()
        self.invalidate()

    def open_picker(self) -> None:
        """Open /resume on this workspace's rows at once; every workspace's rows follow from a worker."""
        from dsh.resume import picker_hooks
        from dsh.resume.loading import load_rest_and_refresh, open_picker
        from dsh.ui.picker_view import PickerView

        agents = bool(picker_hooks.agent_sources(self.config))
        try:
            model = open_picker(
                self.store.index, cwd=self.cwd, current_session_id=self.log.id, own_pid=os.getpid(), now=time.time(),
                agents=agents,
            )
        except Exception as exc:
            self.announce(f"cannot read the session store: {exc}", error=True)
            return
        if model.selected is not None and model.selected.id == self.log.id:
            model.move(1)  # this session cannot be resumed from itself: start on the one before it
        self.picker = model
        self.picker_view = view = PickerView(
            model,
            on_resume=self._resume_candidate,
            on_close=self.close_overlay,
            on_rename=self._rename_candidate,
            on_archive=self._archive_candidate,
            on_message=lambda text: self.announce(text, error=True),
            on_unarchive=self._unarchive_candidate,
            load_archived=self._load_archived,
            search_transcripts=self._search_transcripts,
        )
        self._remember_mode()
        self.mode = "picker"
        self.layout.focus(view.container)
        self.invalidate()
        if self._picker_loading:
            return  # the worker from an earlier open is still going; its rows reach whichever view is open
        self._picker_loading = True
        loop, index, cwd, sid, pid = self.loop, self.store.index, self.cwd, self.log.id, os.getpid()
        refresher, notes = picker_hooks.agent_refresher_for(self.config, cwd)

        def deliver(rows: Any) -> None:  # on the worker
            if not self._closing:
                loop.call_soon_threadsafe(self._picker_rows_arrived, rows)

        def work() -> None:
            try:
                warnings = load_rest_and_refresh(
                    index, cwd=cwd, current_session_id=sid, own_pid=pid, deliver=deliver, refresh_agents=refresher
                )
            except Exception as exc:  # a broken index is a message, never a crash
                warnings = [f"session index: {exc}"]
            if not self._closing:
                loop.call_soon_threadsafe(self._picker_refreshed, warnings, list(notes))

        loop.run_in_executor(None, work)

    def _picker_rows_arrived(self, rows: Any) -> None:
        if self.mode == "picker" and self.picker_view is not None:
            self.picker_view.add_all(rows)

    def _picker_refreshed(self, warnings: list[str], notes: list[str] | None = None) -> None:
        self._picker_loading = False
        for warning in warnings[:1]:
            self.announce(warning, error=True)
        # An agent store that cannot be read is one line in the picker, not a message over the app.
        if notes and self.mode == "picker" and self.picker is not None:
            self.picker.set_note(notes[0])
            self.invalidate()

    def _search_transcripts(self, query: str, deliver: Callable[[str, dict[str, str]], None], owners: Any) -> bool:
        if self._transcripts is None:
            from dsh.resume.transcripts import TranscriptSearcher

            self._transcripts = TranscriptSearcher(self.store.index.db_path, self.store.root)
        return self._transcripts.ask(query, deliver, owners)

    def _load_archived(self, deliver: Callable[[list[Any]], None]) -> None:
        from dsh.resume.loading import load_archived

        loop, index, cwd, sid, pid = self.loop, self.store.index, self.cwd, self.log.id, os.getpid()

        def work() -> None:
            try:
                rows = load_archived(index, cwd=cwd, current_session_id=sid, own_pid=pid)
            except Exception as exc:  # a broken index is a message, never a crash
                loop.call_soon_threadsafe(self.announce, f"session index: {exc}", True)
                rows = []
            if not self._closing:
                loop.call_soon_threadsafe(deliver, rows)

        loop.run_in_executor(None, work)

    def note_agent(self, pane_id: str, kind: str, session_id: str | None) -> None:
        """A pane's agent holds this conversation now (None: none): in the log, and for the title."""
        self.log_event("agent", pane_id=pane_id, kind=kind, session_id=session_id)
        if session_id:
            self.titles.add_agent(f"{kind}:{session_id}")
            self.titles_soon()

    def titles_soon(self) -> None:
        """Read the agents' stores again shortly (an agent's conversation began or changed)."""
        self._agent_titles_due = min(self._agent_titles_due, time.monotonic() + 1.0)

    def display_title(self) -> str:
        """The session's title by the rule `dsh sessions` uses: rename, agent conversation, first line typed."""
        self.titles.explicit = self.session_title or None
        open_keys = {
            f"{p.agent.kind}:{p.agent.session_id}" for p in self.panes.values()
            if p.agent is not None and p.agent.session_id and (p.running or p.state in _WAITING)
        }
        return self.titles.title(open_keys, self.agent_titles)

    def refresh_agent_titles_in_background(self) -> None:
        """Read what changed in the agents' stores into the index, then the titles of this session's agents."""
        from dsh.resume import picker_hooks

        self._agent_titles_due = time.monotonic() + AGENT_TITLES_SECONDS
        if self._agent_titles_busy or self._closing:
            return
        refresher, _ = picker_hooks.agent_refresher_for(self.config, self.cwd)
        keys = list(self.titles.learned)
        if refresher is None:
            return
        self._agent_titles_busy = True
        db_path, root, loop = self.store.index.db_path, self.store.root, self.loop

        def work() -> None:
            from dsh.resume.agent_rows import conversation_titles
            from dsh.store.index import SessionIndex

            titles: dict[str, str] = {}
            try:
                index = SessionIndex(db_path, root, progress=io.StringIO())
                try:
                    refresher(index)
                    titles = index.read(lambda conn: conversation_titles(conn, keys))
                finally:
                    index.close()
            except Exception:  # a broken index must not break the app; /resume and the listing say so
                pass
            if not self._closing:
                loop.call_soon_threadsafe(self._agent_titles_arrived, titles)

        loop.run_in_executor(None, work)

    def _agent_titles_arrived(self, titles: dict[str, str]) -> None:
        self._agent_titles_busy = False
        if titles != self.agent_titles:
            self.agent_titles = titles
            self.invalidate()

    def refresh_index_in_background(self) -> None:
        """Bring the query index up to date on a worker thread (SQLite connections stay per thread)."""
        from dsh.store.index import SessionIndex

        db_path, root = self.store.index.db_path, self.store.root

        def work() -> None:
            try:
                index = SessionIndex(db_path, root, progress=io.StringIO())
                try:
                    index.refresh(sync_search=False)
                    index.sync_search()
                finally:
                    index.close()
            except Exception:  # a broken index must not break the app; /resume and the listing say so
                pass

        self.loop.run_in_executor(None, work)

    def _rename_candidate(self, candidate: Any, title: str) -> bool:
        """Rename a listed session in its own log; False (and a message) when that cannot be saved."""
        if candidate.id == self.log.id:
            self.set_session_title(title)
            return True
        return self._append_to_listed(candidate, "cannot rename", "title", title=title)

    def _unarchive_candidate(self, candidate: Any) -> bool:
        """Bring an archived session back into the listings (its log gets `archive: false`)."""
        return self._append_to_listed(candidate, "cannot bring back", "archive", archived=False)

    def _archive_candidate(self, candidate: Any) -> bool:
        """Archive (hide, never delete) a listed session; False (and a message) when that cannot be saved."""
        if not self._append_to_listed(candidate, "cannot archive", "archive", archived=True):
            return False
        self.announce(f"archived {candidate.id} (dsh sessions --archived lists it)")
        return True

    def _append_to_listed(self, candidate: Any, failure: str, event: str, **fields: Any) -> bool:
        """Append an event to another session's log (logs are append-only; this is how they change)."""
        from dsh.store.log import LogError, append_event

        path = self.store.find_log(candidate.id)
        if path is None:
            self.announce(f"session {candidate.id} is gone", error=True)
            return False
        try:
            append_event(path, event, **fields)
        except (LogError, OSError) as exc:
            self.announce(f"{failure}: {exc}", error=True)
            return False
        return True

    def _resume_candidate(self, candidate: Any) -> None:
        from dsh.resume.handoff import HandoffError, handoff
        from dsh.resume.preflight import PreflightError, preflight
        from dsh.store.log import read_header

        if candidate.is_agent:
            self._open_agent_candidate(candidate)
            return
        try:
            resolved = preflight(
                candidate, find_log=lambda sid: self.store.find_log(sid), read_header=read_header
            )
            handoff(resolved, _Host(self))
        except (PreflightError, HandoffError) as exc:
            self.announce(str(exc), error=True)

    def _open_agent_candidate(self, candidate: Any) -> None:
        """An agent conversation from /resume: a new tab here when it is this workspace's, else a new dsh
        session in its directory (through the same handoff as /resume), with a pane running its resume."""
        from dsh.resume.agent_open import plan_agent_open
        from dsh.resume.handoff import HandoffError, Resolved, handoff
        from dsh.resume.preflight import PreflightError

        try:
            plan = plan_agent_open(
                candidate.kind, candidate.id, candidate.cwd, candidate.home, current_cwd=self.cwd
            )
            if plan.here:
                self.close_overlay()
                self.open_tab(plan.argv)
                self.announce(f"{plan.kind} conversation {plan.session_id} opened in a new tab")
                return
            handoff(Resolved(session_id=plan.key, cwd=plan.cwd), _Host(self, open_agent=True))
        except (PreflightError, HandoffError) as exc:
            self.announce(str(exc), error=True)

    # -- snapshot -------------------------------------------------------------------------------------
    def flush_and_close(self) -> None:
        if self._closing:
            return
        self._closing = True
        try:
            self.scheduler.flush()
        except Exception as exc:
            self.announce(f"snapshot not saved: {exc}", error=True)
        self.scheduler.close()
        if self._transcripts is not None:
            self._transcripts.close()
        for pane in self.panes.values():
            pane.terminal.kill()
        if self.fresh_session and not self.used:
            try:
                self.log.append("archive", archived=True, reason="nothing was done in this session")
            except (LogError, OSError):
                pass
        try:
            self.log.close()
        except (LogError, OSError):
            pass  # the log is append-only: what was written stays, and the snapshot was flushed above

    def quit(self, exit_code: int = 0) -> None:
        self.flush_and_close()
        self.result.exit_code = exit_code
        if self.application.is_running and not self.application.future.done():
            self.application.exit(result=self.result)

    def _on_signal(self, signum: int) -> None:
        self.quit(128 + signum)

    async def run_async(self) -> AppResult:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):
            try:
                loop.add_signal_handler(signum, self._on_signal, signum)
            except (NotImplementedError, RuntimeError):
                pass

        self.loop = loop
        # Warm the index while the user works, so /resume opens on fresh data.
        self.refresh_index_in_background()

        def ticker() -> None:
            if self._closing:
                return
            saving.probe_agents(self)
            if time.monotonic() >= self._agent_titles_due:
                self.refresh_agent_titles_in_background()
            try:
                self.scheduler.tick()
            except Exception as exc:
                self.announce(f"snapshot not saved: {exc}", error=True)
            loop.call_later(0.5, ticker)

        def pre_run() -> None:
            branch = git_branch(self.cwd)
            if branch:
                self.log_event("git", branch=branch)
            self._apply_read_budgets()
            if self.auto_resume:
                saving.auto_resume_panes(self)
            self.scheduler.structural_change()
            if self._open_picker_on_start:
                self.open_picker()
            loop.call_later(0.5, ticker)

        try:
            result = await self.application.run_async(pre_run=pre_run)
        finally:
            self.flush_and_close()
            for signum in (signal.SIGTERM, signal.SIGHUP):
                try:
                    loop.remove_signal_handler(signum)
                except (NotImplementedError, RuntimeError):
                    pass
        return result or self.result


# Panes restored and not started yet still hold their agent (as the log's open panes do).
_WAITING = (PaneState.RESTORED, PaneState.RESUMABLE)
# How often the agents' stores are read again for this session's title (and a warm /resume).
AGENT_TITLES_SECONDS = 60.0


def _seed_titles(log: SessionLog) -> TitleState:
    try:
        return TitleState.from_events(read_log(log.path).events)
    except (LogError, OSError, AttributeError):
        return TitleState()


class _PromptControl(BufferControl):
    """The prompt line; a click on it puts the keyboard back on the prompt (as a click on a pane enters it)."""

    def __init__(self, on_click: Callable[[], None], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_click = on_click

    def mouse_handler(self, mouse_event: MouseEvent) -> Any:
        if mouse_event.event_type == MouseEventType.MOUSE_UP:
            self._on_click()
        return super().mouse_handler(mouse_event)


class _Host:
    """The handoff host: the running app, torn down only after the directory change succeeded."""

    def __init__(self, app: DshApp, *, open_agent: bool = False) -> None:
        self.app = app
        self.from_cwd = app.cwd
        self.open_agent = open_agent  # the handoff opens an agent conversation (KIND:ID), not a session

    def flush_and_close(self) -> None:
        self.app.flush_and_close()

    def restore_terminal(self) -> None:
        # prompt_toolkit restores the terminal when the Application returns; exec happens after that.
        pass

    def exec_resume(self, session_id: str, from_cwd: str | None = None) -> None:
        from dsh.resume.handoff import exec_argv, open_agent_argv

        env = dict(os.environ)
        env["DSH_HANDOFF_FROM"] = from_cwd or self.from_cwd
        env["PWD"] = os.getcwd()  # the handoff already entered the target workspace
        self.app.result.exec_argv = open_agent_argv(session_id) if self.open_agent else exec_argv(session_id)
        self.app.result.exec_env = env
        if self.app.application.is_running and not self.app.application.future.done():
            self.app.application.exit(result=self.app.result)


__all__ = ["Announcement", "AppResult", "DshApp", "DshOptions", "Path"]
