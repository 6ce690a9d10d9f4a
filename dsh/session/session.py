"""The headless session: tabs, panes and their terminals, the log, the snapshot; what commands act on."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

from dsh.agents.programs import runs_agent
from dsh.config import Config
from dsh.layout.geometry import Rect
from dsh.layout.ids import next_id
from dsh.layout.tabs import TabSet
from dsh.persist.scheduler import SnapshotScheduler
from dsh.persist.snapshot import AgentInfo, LoadedSnapshot, Notification
from dsh.persist.states import PaneState
from dsh.safefile import open_read
from dsh.session import hook_folders, saving, structure
from dsh.session.attention import SessionAttention
from dsh.session.machine_agents import MachineAgents
from dsh.session.observer import NoObserver, Observers, SessionObserver
from dsh.session.pane import Pane
from dsh.session.pane_env import drop_outer_multiplexer
from dsh.session.reload_hosts import reload_other_hosts
from dsh.session.shells import runs_shell, shell_launch
from dsh.store.gitinfo import git_branch
from dsh.store.log import LogError, SessionLog, scan_log
from dsh.store.store import Store
from dsh.store.titles import TitleState
from dsh.term import widths
from dsh.term.terminal import Terminal
from dsh.text import sanitize
from dsh.values import Value

if TYPE_CHECKING:
    from collections.abc import Callable

    from dsh.agents.probe import AgentProbe
    from dsh.layout.geometry import Direction
    from dsh.layout.tree import Orientation
    from dsh.session.structure import SwapTarget

# Bytes a pane's reader takes per loop callback: the active pane's output matters most.
FOREGROUND_READ = 32768
BACKGROUND_READ = 8192
# A background pane that fills its read budget waits this long before its next read: a flood there
# (still drawn at 10 frames a second) used 80% of the loop, and every key waited behind it. It still
# gets about 6 MB/s; a program's ordinary output never fills a read.
BACKGROUND_READ_PAUSE = 0.001
# Rows the chrome takes from the window: the tab bar, the status line and the prompt line.
CHROME_ROWS = 3
# A pane hung up by dsh that ignores SIGHUP is killed this long after.
KILL_GRACE_SECONDS = 2.0
# Variables an attaching client brings for panes started after it (tmux's update-environment).
CLIENT_ENV = ("DISPLAY", "SSH_AUTH_SOCK", "SSH_CONNECTION", "WAYLAND_DISPLAY")
# Panes whose programs ended kept for `dsh wait --exit` and `dsh capture` after their panes closed.
ENDED_PANES_KEPT = 8
# Messages kept while no client is attached, shown on the next attach.
PENDING_MESSAGES = 5
# Who has the keyboard of a pane (its shell, or a program reading keys) is polled at most this often,
# on its output and on the session's timer: never per key.
FOREGROUND_POLL_SECONDS = 0.05
# How often the agents' stores are read again for the title of a session with an agent.
AGENT_TITLES_SECONDS = 60.0
# Panes restored and not started yet still hold their agent (as the log's open panes do).
_WAITING = (PaneState.RESTORED, PaneState.RESUMABLE)


class Message(Value, fields=("text", "error")):
    text: str
    error: bool

    def __init__(self, text: str, error: bool = False) -> None:
        self.text = text
        self.error = error


class Session:
    """One dsh session, independent of any screen. A view attaches as its `observer`; none may be."""

    def __init__(
        self,
        *,
        config: Config,
        store: Store,
        log: SessionLog,
        cwd: str,
        loaded: LoadedSnapshot | None = None,
        title: str | None = None,
        size: tuple[int, int] = (24, 80),
        env: dict[str, str] | None = None,
        first_argv: list[str] | None = None,
        options: list[str] | None = None,
        socket: str | None = None,
    ) -> None:
        self.config = config
        self.socket = socket  # the host's socket: DSH_SOCKET in every pane, for `dsh send` and hooks
        self.options = list(options or [])  # the -o flags the session started with (kept on /reload)
        self.store = store
        self.log = log
        self.cwd = cwd
        self.title: str | None = title
        self.env = dict(os.environ if env is None else env)
        self.tabs = TabSet()
        self.panes: dict[str, Pane] = {}
        self.observer: SessionObserver = NoObserver()
        self.views: list[SessionObserver] = []  # every attached client's view; `observer` speaks to all
        self._client_areas: dict[int, Rect] = {}  # each view's own pane area, by id(view)
        self._latest_area: Rect | None = None
        self._focus_holders: dict[str, set[int]] = {}  # the views whose keyboard is in each pane
        self.pending: list[Message] = []
        self.synced_tabs: set[str] = set()  # tabs whose typed input goes to each of their panes
        rows, cols = size
        # The pane area of the last client that drew this session (its window less the chrome).
        self.area = Rect(0, 1, max(10, cols), max(2, rows - CHROME_ROWS))
        self._pane_ids_used: set[str] = set()
        # A session made by this process in which nothing reached a pane is left archived when it
        # closes, so an idle start (or one that only hosted /resume) does not clutter the listings.
        self.fresh_session = loaded is None
        self.used = False
        self.auto_resume = False  # set by a restore in a workspace that opted in
        self.notifications: list[Notification] = []
        self.attention = SessionAttention(self)  # agents' states, notifications in and out
        self.machine = MachineAgents(self)  # the other live sessions' agents, as last asked
        self.agent_probes: dict[str, AgentProbe] = {}
        # The title's parts (dsh.store.titles), seeded from the log of a resumed session, and the titles
        # of this session's agent conversations as the index knows them.
        self.titles = _seed_titles(log)
        self.agent_titles: dict[str, str] = {}
        self._agent_titles_read = False  # asked of the index at least once
        self._agent_titles_busy = False
        # The agents' stores are read for the title only once the session has an agent.
        self._agent_titles_due = 0.0 if self.titles.learned else float("inf")
        self.closing = False
        self._reloading: asyncio.Task[None] | None = None  # /reload asking the other hosts
        # Called after each /reload has been taken (the host: each client's detach keys, sent anew).
        self.after_reload: list[Callable[[], object]] = []
        # `dsh wait` (dsh.host.verbs): futures woken by any pane's output, exit or report, each then
        # checking its own condition; and the last panes whose programs ended, kept after their panes
        # closed, so that a script can still read a helper pane's exit status and output.
        self.waiters: list[asyncio.Future[None]] = []
        self.ended_panes: dict[str, Pane] = {}
        # Background reads for the views (index refreshes, the picker's rows): one thread, whatever
        # the number of attaches, so a host's threads never grow with its clients.
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dsh-session")
        # An index refresh waits on that worker: one queued is enough for every attach meanwhile.
        self.index_refresh_queued = False
        self.ended: asyncio.Future[None] | None = None
        self.loop: asyncio.AbstractEventLoop = asyncio.get_event_loop()
        widths.configure(config.text("term.emoji_width"))  # before any pane draws
        self.scheduler = SnapshotScheduler(
            lambda: saving.build_snapshot(self),
            interval=config.number("snapshot.debounce_seconds"),
            # From the writer thread: the view's status line shows (or stops showing) scheduler.failure.
            on_error=lambda _exc: self.loop.call_soon_threadsafe(lambda: self.observer.on_changed()),
        )
        # The start-up's snapshot (three structural changes: the tab, its pane, start()) is written once,
        # on the first tick after start(), after the first frame rather than three times before it.
        self.scheduler.hold()
        self._take_config(config)
        if loaded is not None and loaded.snapshot is not None:
            saving.restore(self, loaded)
        if not self.panes or first_argv:
            self.open_tab(first_argv)

    # -- messages and the log --------------------------------------------------------------
    def announce(self, text: str, *, error: bool = False) -> None:
        """A message for the user: shown by the attached view, or kept for the next one."""
        text = sanitize(text, max_len=400)
        if isinstance(self.observer, NoObserver):
            self.pending.append(Message(text, error))
            del self.pending[:-PENDING_MESSAGES]
        else:
            self.observer.on_message(text, error)

    def take_pending(self) -> list[Message]:
        pending, self.pending = self.pending, []
        return pending

    def log_event(self, type: str, **fields: Any) -> None:
        """Append to this session's log; a log that cannot be written is a message, not a crash."""
        if self.closing:
            return
        try:
            self.log.append(type, **fields)
        except (LogError, OSError) as exc:
            self.announce(f"session log: {exc}", error=True)
        if getattr(self.log, "notices", None):  # found removed, replaced or truncated by this append, and put right
            from dsh.session.file_watch import take_log_notices

            take_log_notices(self)

    def set_title(self, title: str) -> None:
        structure.set_title(self, title)

    @property
    def display_title(self) -> str:
        """The title by the rule `dsh sessions` uses: rename, agent conversation, first line worth one."""
        self.titles.explicit = self.title or None
        open_keys = {
            f"{p.agent.kind}:{p.agent.session_id}"
            for p in self.panes.values()
            if p.agent is not None and p.agent.session_id and (p.running or p.state in _WAITING)
        }
        return sanitize(self.titles.title(open_keys, self.agent_titles), max_len=60)

    # -- agents and their conversations' titles ----------------------------------------------
    def note_agent(self, pane_id: str, kind: str, session_id: str | None) -> None:
        """A pane's agent holds this conversation now (None: none): in the log, and for the title."""
        self.log_event("agent", pane_id=pane_id, kind=kind, session_id=session_id)
        if session_id:
            self.titles.add_agent(f"{kind}:{session_id}")
            self.titles_soon()

    def titles_soon(self) -> None:
        """Read the agents' stores again shortly (an agent's conversation began or changed)."""
        self._agent_titles_due = min(self._agent_titles_due, time.monotonic() + 1.0)

    def refresh_agent_titles_in_background(self) -> None:
        """Read what changed in the agents' stores into the index, then the titles of this session's agents."""
        from dsh.resume import picker_hooks

        self._agent_titles_due = time.monotonic() + AGENT_TITLES_SECONDS
        if self._agent_titles_busy or self.closing or not self.titles.learned:
            return
        refresher, _ = picker_hooks.agent_refresher_for(self.config, self.cwd)
        if refresher is None:
            return
        keys = list(self.titles.learned)
        self._agent_titles_busy = True
        db_path, root, loop = self.store.index.db_path, self.store.root, self.loop

        def work() -> None:
            import io

            from dsh.resume.agent_rows import conversation_titles
            from dsh.store.index import SessionIndex

            titles: dict[str, str] = {}
            try:
                index = SessionIndex(db_path, root, progress=io.StringIO())
                try:
                    if not self._agent_titles_read:  # what the index knows now, before the stores are read
                        known = index.read(lambda conn: conversation_titles(conn, keys))
                        if known and not self.closing:
                            loop.call_soon_threadsafe(self._agent_titles_known, known)
                    refresher(index)
                    titles = index.read(lambda conn: conversation_titles(conn, keys))
                finally:
                    index.close()
            except Exception:  # a broken index must not break the session; /resume and the listing say so
                pass
            if not self.closing:
                loop.call_soon_threadsafe(self._agent_titles_arrived, titles)

        loop.run_in_executor(self.worker, work)

    def _agent_titles_known(self, titles: dict[str, str]) -> None:
        if not self._agent_titles_read:
            self._agent_titles_read = True
            self.agent_titles = titles
            self.observer.on_changed()

    def _agent_titles_arrived(self, titles: dict[str, str]) -> None:
        self._agent_titles_busy = False
        self._agent_titles_read = True
        if titles != self.agent_titles:
            self.agent_titles = titles
            self.observer.on_changed()

    def reload_config(self, *, by: str | None = None) -> list[str]:
        """Read the config again (the same -o flags on top), and tell every attached client (each takes
        its keys and says so); its warnings. `by`: the session whose /reload asked (None: this one's).
        Panes started from now on use the new values; running ones keep theirs."""
        from dsh.config import load_config

        config = load_config(self.options)
        self._take_config(config)
        warnings = list(config.warnings)
        self.observer.on_config_reloaded(warnings, by)
        self.observer.on_changed()
        for callback in self.after_reload:
            callback()
        return warnings

    def reload_everywhere(self, on_spread: Callable[[int], object] | None = None) -> list[str]:
        """/reload: this session's config now, then every other live host's of this user, asked in the
        background (two sessions must not run with different prefixes: keys meant for a shell went to
        an agent as a prompt); `on_spread` hears how many did. This session's warnings."""
        warnings = self.reload_config()
        self._reloading = self.loop.create_task(self._reload_others(on_spread))
        return warnings

    async def _reload_others(self, on_spread: Callable[[int], object] | None) -> None:
        count = await reload_other_hosts(self.log.id)
        if on_spread is not None and not self.closing:
            on_spread(count)

    def _take_config(self, config: Config) -> None:
        """The values the session keeps of its config, at its start and on /reload. (term.emoji_width is
        taken at the start only: the panes on screen were measured with it.)"""
        self.config = config
        self.scrollback = config.integer("term.scrollback")
        self.tail_bytes = config.integer("term.tail_bytes")
        self.term_name = config.text("term.term")
        self.scheduler.interval = config.number("snapshot.debounce_seconds")

    # -- clients ---------------------------------------------------------------------------
    def attach(self, observer: SessionObserver) -> None:
        if observer not in self.views:
            self.views.append(observer)
        self._speak_to_views()
        self.client_looks(observer)  # a client attaching sees the focused pane: what it flagged is read

    def detach(self, observer: SessionObserver) -> None:
        if observer in self.views:
            self.views.remove(observer)
        self._speak_to_views()
        if self._client_areas.pop(id(observer), None) is not None:
            self._area_changed()
        for pane_id in list(self._focus_holders):
            self.hold_child_focus(observer, pane_id, False)

    def _speak_to_views(self) -> None:
        views = self.views
        self.observer = NoObserver() if not views else views[0] if len(views) == 1 else Observers(views)

    # -- several clients: one size for the panes, one focus report per pane --------------------------
    def set_client_area(self, view: object, area: Rect) -> None:
        """A client's view drew its pane area at this size; the panes take the smallest attached (tmux's
        window-size smallest), or with `ui.window_size = "latest"` that of the client that drew last."""
        key = id(view)
        if self._client_areas.get(key) == area and self._latest_area is not None:
            return
        self._client_areas[key] = area
        self._latest_area = area
        self._area_changed()

    def _area_changed(self) -> None:
        areas = list(self._client_areas.values())
        if not areas:
            return
        if self.config.text("ui.window_size") == "latest" and self._latest_area is not None:
            width, height = self._latest_area.width, self._latest_area.height
        else:
            width, height = min(a.width for a in areas), min(a.height for a in areas)
        first = areas[0]
        area = Rect(first.x, first.y, width, height)
        if area != self.area:
            self.area = area
            if len(self.views) > 1:
                self.observer.on_changed()  # the others lay out again at the new size

    def client_active(self, view: object) -> None:
        """A client pressed a key: with `ui.window_size = "latest"` the panes take its size (tmux's
        latest: the client with the most recent activity, not only the last to attach or resize)."""
        if len(self._client_areas) < 2:
            return
        area = self._client_areas.get(id(view))
        if area is None or area == self._latest_area:
            return
        self._latest_area = area
        self._area_changed()

    def client_looks(self, view: SessionObserver) -> None:
        """A client's screen shows the panes again (an overlay closed): the focused pane is visited."""
        pane = self.active_pane
        if pane is not None and view in self.views and view.looks_at(pane.id):
            self.attention.visited(pane.id)

    def on_screen_of(self, view: object, pane_id: str) -> bool:
        """True unless the panes, laid out larger than this client's window (`ui.window_size = "latest"`
        and a smaller client), put the pane wholly past its right or bottom edge."""
        own = self._client_areas.get(id(view))
        if own is None or (own.width >= self.area.width and own.height >= self.area.height):
            return True
        rect = self.tabs.rects(self.view_area(own)).rects.get(pane_id)
        return rect is None or (rect.x < own.x + own.width and rect.y < own.y + own.height)

    def view_area(self, own: Rect) -> Rect:
        """Where a view lays the panes out in its own pane area `own`: at the session's size, so every
        client's panes are the same size (the cells past it stay empty)."""
        if len(self._client_areas) < 2:
            return own
        return Rect(own.x, own.y, self.area.width, self.area.height)

    def hold_child_focus(self, view: object, pane_id: str, held: bool) -> None:
        """A view's keyboard entered (or left) a pane: its program hears focus-in when the first view
        enters and focus-out when the last leaves, never once per client."""
        holders = self._focus_holders.setdefault(pane_id, set())
        before = bool(holders)
        (holders.add if held else holders.discard)(id(view))
        if not holders:
            del self._focus_holders[pane_id]
        pane = self.panes.get(pane_id)
        if before != bool(holders) and pane is not None and pane.running:
            pane.terminal.set_focus(bool(holders))

    def update_environment(self, client_env: dict[str, str]) -> None:
        """Take the attaching client's DISPLAY, SSH_AUTH_SOCK… for panes started from now on."""
        for name in CLIENT_ENV:
            value = client_env.get(name)
            if value:
                self.env[name] = value
            else:
                self.env.pop(name, None)

    # -- panes -------------------------------------------------------------------------------
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

    def input_panes(self) -> list[Pane]:
        """Where typed input goes: the active pane, or every running pane of its tab when the tab is
        synchronized (/sync, tmux's synchronize-panes)."""
        pane = self.active_pane
        if pane is None:
            return []
        if self.tabs.active_tab.id in self.synced_tabs:
            return [p for pid in self.tabs.active_tab.pane_ids() if (p := self.panes.get(pid)) and p.running]
        return [pane] if pane.running else []

    def set_sync(self, on: bool) -> None:
        tab_id = self.tabs.active_tab.id
        if on:
            self.synced_tabs.add(tab_id)
        else:
            self.synced_tabs.discard(tab_id)
        self.observer.on_changed()

    def default_shell_argv(self) -> list[str]:
        return self.shell_launch()[0]

    def shell_launch(self) -> tuple[list[str], dict[str, str]]:
        """The user's shell as a login shell, with dsh's integration unless config turns it off."""
        shell = self.env.get("SHELL") or "/bin/sh"
        integration = self.config.flag("term.shell_integration")
        return shell_launch(shell, self.env, integration=integration)

    def _new_pane_id(self) -> str:
        # Never reuse an id in a session: a closed pane's id (and its saved tail) stays its own.
        pane_id = next_id("p", self._pane_ids_used | set(self.panes))
        self._pane_ids_used.add(pane_id)
        return pane_id

    def spawn_env(self, pane_id: str, cwd: str) -> dict[str, str]:
        """A pane's environment: the session's, its TERM, which session and pane it is, and PWD = its cwd."""
        env = dict(self.env)
        env.pop("DSH_HANDOFF_FROM", None)
        drop_outer_multiplexer(env)  # TMUX, TMUX_PANE, ZELLIJ*, STY ... of a multiplexer outside dsh
        env.update(self.shell_launch()[1])
        env["PWD"] = cwd
        env["TERM"] = self.term_name
        env["COLORTERM"] = "truecolor"  # the pane's screen keeps 24-bit colour; a view maps it down
        env["DSH_SESSION_ID"] = self.log.id
        env["DSH_PANE_ID"] = pane_id
        if self.socket:
            env["DSH_SOCKET"] = self.socket
        else:
            env.pop("DSH_SOCKET", None)  # an outer session's, from the host's own environment
        return env

    def estimate_size(self) -> tuple[int, int]:
        """Rows and columns for a new pane before a view lays it out: the area less the pane header."""
        return max(2, self.area.height - 1), max(10, self.area.width)

    def make_terminal(
        self, pane_id: str, argv: list[str], cwd: str, env: dict[str, str], rows: int, cols: int
    ) -> Terminal:
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
            on_title=lambda title: self._on_title(pane_id, title),
            on_bell=lambda: self.attention.bell(pane_id),
            on_notice=lambda text: self.attention.terminal_notice(pane_id, text),
            on_alt_screen=lambda on: self.observer.on_alt_screen(pane_id, on),
            on_clipboard=lambda selections, data: self.observer.on_clipboard(pane_id, selections, data),
        )

    def create_pane(self, argv: list[str] | None, cwd: str | None = None) -> Pane:
        pane_id = self._new_pane_id()
        argv = list(argv) if argv else self.default_shell_argv()
        cwd = cwd or self.cwd
        env = self.spawn_env(pane_id, cwd)
        agent: AgentInfo | None = None
        adapter = None
        if runs_agent(argv):
            # Imported here: a shell's pane needs no adapter, and the adapters were 15-20 ms of a cold start.
            from dsh.agents.registry import adapter_for_argv

            adapter = adapter_for_argv(argv)
        if adapter is not None:
            try:
                argv, session_id = adapter.prepare_launch(argv, env=env)
            except Exception as exc:  # an adapter must never keep a pane from starting
                session_id = None
                self.announce(f"{adapter.kind}: {exc}", error=True)
            agent = adapter.agent_info(argv, session_id)
            argv, env = self.agent_hooks(pane_id, adapter.kind, argv, cwd, env)
        rows, cols = self.estimate_size()
        terminal = self.make_terminal(pane_id, argv, cwd, env, rows, cols)
        pane = Pane(id=pane_id, argv=argv, cwd=cwd, env=env, terminal=terminal, agent=agent)
        self.panes[pane_id] = pane
        return pane

    def agent_hooks(
        self, pane_id: str, kind: str, argv: list[str], cwd: str, env: dict[str, str]
    ) -> tuple[list[str], dict[str, str]]:
        """The argv and environment of an agent dsh starts, with its hooks reporting to this pane."""
        if not self.config.flag("attention.hooks"):
            return argv, env
        from dsh.agents.hook_launch import with_hooks
        from dsh.home import ensure_home_dir

        try:
            # Made as every folder under the home is (0700, no link followed), parents included.
            folder = ensure_home_dir("state", self.log.id, "hooks", pane_id)
        except Exception as exc:  # the agent starts without dsh's hooks; the terminal still tells
            self.announce(f"{kind}: its hooks were not set up ({exc})", error=True)
            return argv, env
        return with_hooks(kind, argv, cwd=cwd, env=env, folder=folder)

    def start_pane(self, pane: Pane) -> None:
        pane.started_at = time.time()
        self.attention.started(pane)
        pane.terminal.start()
        self.log_event("pane_opened", pane_id=pane.id, argv=pane.argv)
        if pane.agent is not None and pane.agent.session_id:
            self.note_agent(pane.id, pane.agent.kind, pane.agent.session_id)

    # -- the structural verbs (dsh.session.structure): commands, keys, clicks and `dsh` verbs call these
    def open_tab(self, argv: list[str] | None, cwd: str | None = None) -> Pane:
        return structure.open_tab(self, argv, cwd)

    def follow_cwd(self) -> str:
        """Where a new split or tab starts: the directory the active pane's shell is in now (its OSC 7,
        else what the kernel says), as zellij does and tmux users set up with pane_current_path."""
        pane = self.active_pane
        if pane is None:
            return self.cwd
        cwd = saving.pane_cwd(pane)
        return cwd if cwd and os.path.isdir(cwd) else self.cwd

    def split(
        self,
        orientation: Orientation,
        argv: list[str] | None,
        cwd: str | None = None,
        *,
        at: str | None = None,
        percent: float | None = None,
    ) -> Pane | None:
        return structure.split(self, orientation, argv, cwd, at=at, percent=percent)

    def close_pane(self, pane_id: str | None = None) -> None:
        structure.close_pane(self, pane_id)

    def drag_border(self, x: int, y: int, to: int) -> int | None:
        return structure.drag_border(self, x, y, to)

    def border_dropped(self) -> None:
        structure.border_dropped(self)

    def focus(self, target: str) -> None:
        structure.focus(self, target)

    def focus_pane(self, pane_id: str) -> None:
        structure.focus_pane(self, pane_id)

    def zoom(self) -> bool:
        return structure.zoom(self)

    def resize(self, direction: Direction, cells: int) -> int:
        return structure.resize(self, direction, cells)

    def swap(self, target: SwapTarget) -> bool:
        return structure.swap(self, target)

    def select_tab(self, index: int) -> None:
        structure.select_tab(self, index)

    def step_tab(self, step: Literal[1, -1]) -> None:
        structure.step_tab(self, step)

    def rename_tab(self, title: str | None) -> None:
        structure.rename_tab(self, title)

    def apply_read_budgets(self) -> None:
        active = self.tabs.active_pane if self.tabs.tabs else None
        for pane in self.panes.values():
            foreground = pane.id == active
            pane.terminal.read_budget = FOREGROUND_READ if foreground else BACKGROUND_READ
            pane.terminal.read_pause = 0.0 if foreground else BACKGROUND_READ_PAUSE

    # -- terminal callbacks ---------------------------------------------------------------------
    def _on_pane_output(self, pane_id: str) -> None:
        self.scheduler.mark_dirty()
        self.poll_foreground(pane_id)
        self.observer.on_pane_output(pane_id)
        if self.waiters:
            self.wake_waiters()

    def wake_waiters(self) -> None:
        """Something changed that a `dsh wait` may be waiting for: let each look again."""
        waiters, self.waiters = self.waiters, []
        for future in waiters:
            if not future.done():
                future.set_result(None)

    def poll_foreground(self, pane_id: str, *, now: float | None = None) -> None:
        """See whether a program that reads keys took (or left) the pane's foreground; tell the view."""
        pane = self.panes.get(pane_id)
        if pane is None:
            return
        now = time.monotonic() if now is None else now
        if now - pane.keys_polled_at < FOREGROUND_POLL_SECONDS:
            return
        pane.keys_polled_at = now
        self._poll_program(pane)
        takes = pane.running and pane.terminal.program_takes_keys(own_counts=not runs_shell(pane.argv))
        if takes != pane.takes_keys:
            pane.takes_keys = takes
            self.observer.on_takes_keys(pane_id, takes)

    def _on_title(self, pane_id: str, title: str) -> None:
        self.attention.title_changed(pane_id, title)
        self.observer.on_changed()

    def observer_looks_at(self, pane_id: str) -> bool:
        """True when some attached client looks at this pane: its screen shows the panes (no overlay over
        them) and this is the focused one (a notice there tells nobody anything new)."""
        return any(view.looks_at(pane_id) for view in self.views)

    def observer_shows(self, pane_id: str) -> bool:
        """True when this pane is on some attached client's screen (`SessionObserver.shows`)."""
        return any(view.shows(pane_id) for view in self.views)

    def _on_pane_exit(self, pane_id: str, status: int) -> None:
        pane = self.panes.get(pane_id)
        if pane is None:
            return
        pane.exit_status = status
        self.ended_panes.pop(pane_id, None)
        self.ended_panes[pane_id] = pane
        while len(self.ended_panes) > ENDED_PANES_KEPT:
            del self.ended_panes[next(iter(self.ended_panes))]
        self.wake_waiters()
        self.log_event("pane_exited", pane_id=pane_id, status=status)
        hook_folders.remove_pane(self.log.id, pane_id)  # its agent's hook files are no longer read
        self.attention.exited(pane_id)
        if pane.started_from is not None and status != 0 and pane.state is PaneState.LIVE:
            # A resume that failed leaves the tombstone as it was, so the user can try again.
            pane.state = pane.started_from
            self.announce(f"{pane.id}: {pane.title} ended with status {status}", error=True)
        elif status == 0 and not self.remain_on_exit:
            # As in tmux: a program that ends well takes its pane with it (the last one, the session).
            self.observer.on_pane_exited(pane_id)
            self.close_pane(pane_id)
            return
        self.observer.on_pane_exited(pane_id)
        self.scheduler.structural_change()
        self.observer.on_changed()

    @property
    def remain_on_exit(self) -> bool:
        """tmux's remain-on-exit: keep every pane whose program ended, with its status and screen."""
        return self.config.flag("term.remain_on_exit")

    # -- tombstones ------------------------------------------------------------------------
    def start_tombstone(self, pane: Pane) -> None:
        """Start a restored pane (or one whose program ended) in the same slot, keeping id and tail."""
        if not pane.startable:
            return
        if not pane.is_tombstone:
            pane.state = PaneState.EXITED  # ended in this session: a fresh shell, like a restored one
        # The saved argv is untrusted disk input: the adapter rebuilds the resume command, which runs the
        # program that ran, in the directory the agent worked in (dsh.agents.resumable).
        from dsh.agents.resumable import plan_pane_start

        plan = plan_pane_start(
            pane_id=pane.id,
            state=pane.state,
            agent=pane.agent,
            saved_cwd=pane.cwd,
            session_cwd=self.cwd,
            shell_argv=self.default_shell_argv(),
        )
        if plan.message:
            self.announce(plan.message, error=plan.error)
        if plan.argv is None:
            return
        argv, cwd = plan.argv, plan.cwd
        previous = pane.state
        rows, cols = pane.terminal.rows, pane.terminal.cols
        env = self.spawn_env(pane.id, cwd)
        if plan.agent is not None:
            argv, env = self.agent_hooks(pane.id, plan.agent.kind, argv, cwd, env)
        terminal = self.make_terminal(pane.id, argv, cwd, env, rows, cols)
        # The new program starts on a clean screen; what the pane showed is history above it, at the
        # pane's width (the modes its program set stay behind with it).
        terminal.continue_below(pane.terminal)
        pane.terminal = terminal
        pane.saved_command = None  # the offer to run it again is used, or passed over
        pane.argv = argv
        pane.cwd = cwd
        pane.env = env
        pane.started_from = previous
        pane.state = PaneState.LIVE
        pane.saved_title = None  # the new program names itself
        pane.agent = plan.agent
        self.start_pane(pane)
        structure.restructured(self, pane)

    def rerun_command(self, pane: Pane) -> bool:
        """Run a restored pane's saved command again: a fresh shell in its saved directory, the command
        typed into it (so it is in the shell's history, and the shell stays when it ends). Only on a
        key press, or in a workspace that opted in with auto_resume; False when there is none."""
        command = pane.rerun_line
        if command is None:
            return False
        self.start_tombstone(pane)
        if not pane.running:
            return False
        pane.terminal.write(command.encode("utf-8", "surrogateescape") + b"\r")
        self.used = True
        return True

    # -- lines from the prompt ---------------------------------------------------------------
    def record_input(self, line: str) -> None:
        self.log_event("input", text=line)
        self.titles.add_input(line)
        if self.titles.learned and not self._agent_titles_read:
            # A restored session's agent's title is not read yet (the stores are, off the loop, after the
            # first frame): without it the line just typed would be the title, and `dsh sessions` says
            # the conversation's. One indexed read, once.
            self.read_agent_titles_now()

    def read_agent_titles_now(self) -> None:
        """The titles of this session's agents' conversations as the index has them now (on the loop)."""
        import sqlite3

        from dsh.resume.agent_rows import conversation_titles

        keys = list(self.titles.learned)
        try:
            titles = self.store.index.read(lambda conn: conversation_titles(conn, keys))
        except sqlite3.Error:
            return
        self._agent_titles_read = True
        if titles != self.agent_titles:
            self.agent_titles = titles
            self.observer.on_changed()

    def send_line(self, text: str) -> Pane | None:
        """Type `text` and Enter into the active pane, starting it first if it is a tombstone.

        Returns the pane, or None (with a message) when there is none to type into.
        """
        pane = self.active_pane
        if pane is None:
            self.announce("no pane to send that line to: /new opens one", error=True)
            return None
        if pane.startable:
            # Start it (a fresh shell, or the agent's resume) and type the line into it: the terminal
            # holds what is typed until the new program reads it.
            self.start_tombstone(pane)
        if not pane.running:
            self.announce(f"{pane.id} could not start; /close it, or /split to open a new pane", error=True)
            return None
        typed = text.encode("utf-8", "surrogateescape") + b"\r"
        for target in self.input_panes() or [pane]:
            if target.terminal.scroll_offset:
                target.terminal.scroll_to_bottom()
            if "\n" in text and target.terminal.bracketed_paste:
                # Lines pasted on the prompt go to a program that takes pastes (an agent, an editor) as
                # one paste, then Enter: typed, each newline was an Enter, and agents saw several pastes.
                target.terminal.paste(text)
                target.terminal.write(b"\r")
            else:
                target.terminal.write(typed)
        self.used = True
        self.scheduler.mark_dirty()
        return pane

    # -- lifetime ------------------------------------------------------------------------------
    def start(self) -> None:
        """Begin the session's background work on the running loop: snapshots, agent ids, auto-resume."""
        self.loop = asyncio.get_running_loop()
        self.ended = self.loop.create_future()
        self.apply_read_budgets()
        branch = git_branch(self.cwd)
        if branch:
            self.log_event("git", branch=branch)
        if self.auto_resume:
            saving.auto_resume_panes(self)
        self.scheduler.structural_change()
        self.loop.call_later(0.5, self._tick)
        self.loop.call_later(0.1, self._foreground_tick)

    def _foreground_tick(self) -> None:
        """A program that switches its terminal mode without printing is seen within a tick too."""
        if self.closing:
            return
        pane = self.active_pane
        if pane is not None:
            self.poll_foreground(pane.id)
        self.loop.call_later(0.1, self._foreground_tick)

    def _poll_program(self, pane: Pane) -> None:
        """What the pane's shell runs in the foreground (tab names follow it, as tmux's automatic-rename)."""
        found = pane.terminal.foreground_process() if pane.running else None
        foreground = found[1] if found is not None and found[0] != pane.terminal.pid else None
        if foreground != pane.foreground:
            pane.foreground = foreground
            self.scheduler.mark_dirty()
            self.observer.on_changed()

    def name_pane(self, pane: Pane, name: str | None) -> None:
        """/name: a pane's name beats any title its program sets; an empty name gives it back."""
        structure.name_pane(self, pane, name)

    def _tick(self) -> None:
        if self.closing:
            return
        self.scheduler.release()
        # Imported on the first tick, after the first frame: the host's start-up needs no agent code.
        from dsh.session import agents

        for pane in self.panes.values():
            self._poll_program(pane)
        agents.probe_agents(self)
        if not self._hooks_swept:
            self._sweep_hook_folders()
        if not isinstance(self.observer, NoObserver) and self.machine.due(time.monotonic()):
            self.machine.refresh()
        if time.monotonic() >= self._agent_titles_due:
            self.refresh_agent_titles_in_background()
        try:
            self.scheduler.tick()
        except Exception as exc:
            self.announce(f"snapshot not saved: {exc}", error=True)
        self.loop.call_later(0.5, self._tick)

    _hooks_swept = False

    def _sweep_hook_folders(self) -> None:
        """Once, at the first tick: the hook folders a crashed host left, of this session (but the
        running panes') and, off the loop, of other sessions that are not live."""
        self._hooks_swept = True
        running = [pane.id for pane in self.panes.values() if pane.running]
        hook_folders.sweep_own(self.log.id, running)
        with contextlib.suppress(RuntimeError):  # (a worker already shut down: the session is ending)
            self.worker.submit(hook_folders.sweep_others, self.log.id, hook_folders.session_is_live)

    def flush_and_close(self, *, save: bool = True) -> None:
        """Save the snapshot (unless not `save`: a host that never served leaves the one on disk as it
        was), hang up every pane, close the log. Safe to call twice."""
        if self.closing:
            return
        self.closing = True
        try:
            if save:
                self.scheduler.flush()
        except Exception as exc:
            self.announce(f"snapshot not saved: {exc}", error=True)
        self.scheduler.close()
        for pane in self.panes.values():
            pane.terminal.kill()
        hook_folders.remove_session(self.log.id)
        if self.fresh_session and not self.used:
            try:
                self.log.append("archive", archived=True, reason="nothing was done in this session")
            except (LogError, OSError):
                pass
        try:
            self.log.close()
        except (LogError, OSError):
            pass  # the log is append-only: what was written stays, and the snapshot was flushed above

    def quit(self) -> None:
        """End the session: save, close, and let whoever waits on `ended` finish."""
        self.flush_and_close()
        self.worker.shutdown(wait=False, cancel_futures=True)
        self.observer.on_ended()
        if self.ended is not None and not self.ended.done():
            self.ended.set_result(None)

    def pane_pids(self) -> list[int]:
        return [p.terminal.pid for p in self.panes.values() if p.terminal.pid is not None]

    async def reap_panes(self, grace: float = KILL_GRACE_SECONDS) -> None:
        """After a close, wait up to `grace` for the panes' programs to end, then SIGKILL what remains.

        A program that ignores SIGHUP (`nohup`, `trap '' HUP`) must not outlive its session: every
        process left in a pane's terminal session (the pane's pid is its session id) is killed.
        """
        sessions = set(self.pane_pids())
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


def _seed_titles(log: SessionLog) -> TitleState:
    """What the log says of the title so far (read a batch at a time, never whole)."""
    state = TitleState()
    try:
        with open_read(log.path) as handle:
            scan_log(log.path, handle, state.add_events)
    except (LogError, OSError, AttributeError):
        pass
    return state


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
