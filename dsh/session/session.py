"""The headless session: tabs, panes and their terminals, the log, the snapshot; what commands act on."""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

from dsh.config import Config, load_config
from dsh.layout.geometry import Rect
from dsh.layout.tabs import TabSet
from dsh.persist.scheduler import SnapshotScheduler
from dsh.persist.snapshot import LoadedSnapshot, Notification
from dsh.persist.snapshot_file import SnapshotFile
from dsh.session import agent_titles, attached, lifetime, pane_programs, saving, spawning, structure
from dsh.session.attention import SessionAttention
from dsh.session.lifetime import KILL_GRACE_SECONDS
from dsh.session.machine_agents import MachineAgents
from dsh.session.observer import NoObserver, SessionObserver
from dsh.session.pane import Pane
from dsh.store.log import LogError, SessionLog
from dsh.store.store import Store
from dsh.term import widths
from dsh.text import sanitize
from dsh.values import Value

if TYPE_CHECKING:
    from collections.abc import Callable

    from dsh.agents.probe import AgentProbe
    from dsh.layout.geometry import Direction
    from dsh.layout.tree import Orientation
    from dsh.session.structure import SwapTarget
    from dsh.term.terminal import Terminal

# Rows the chrome takes from the window: the tab bar, the status line and the prompt line.
CHROME_ROWS = 3
# Messages kept while no client is attached, shown on the next attach.
PENDING_MESSAGES = 5


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
        self.titles = agent_titles.seed_titles(log)
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
        # What the host wrote last, so that another hand's change to the file is noticed (file_watch).
        self.snapshot_file = SnapshotFile(log.id, loaded.mark if loaded is not None else None)
        self.scheduler = SnapshotScheduler(
            lambda: saving.build_snapshot(self),
            write=self.snapshot_file.write,
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
        return agent_titles.display_title(self)

    # -- agents and their conversations' titles (dsh.session.agent_titles) ---------------------------
    def note_agent(self, pane_id: str, kind: str, session_id: str | None) -> None:
        agent_titles.note_agent(self, pane_id, kind, session_id)

    def titles_soon(self) -> None:
        agent_titles.titles_soon(self)

    def refresh_agent_titles_in_background(self) -> None:
        agent_titles.refresh_in_background(self)

    def reload_config(self, *, by: str | None = None) -> list[str]:
        """Read the config again (the same -o flags on top), and tell every attached client (each takes
        its keys and says so); its warnings. `by`: the session whose /reload asked (None: this one's).
        Panes started from now on use the new values; running ones keep theirs."""

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
        from dsh.session.reload_hosts import reload_other_hosts  # /reload's only (ARCHITECTURE.md)

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

    # -- clients (dsh.session.attached): one size for the panes, one focus report per pane ----------
    def attach(self, observer: SessionObserver) -> None:
        attached.attach(self, observer)

    def detach(self, observer: SessionObserver) -> None:
        attached.detach(self, observer)

    def set_client_area(self, view: object, area: Rect) -> None:
        attached.set_client_area(self, view, area)

    def client_active(self, view: object) -> None:
        attached.client_active(self, view)

    def client_looks(self, view: SessionObserver) -> None:
        attached.client_looks(self, view)

    def on_screen_of(self, view: object, pane_id: str) -> bool:
        return attached.on_screen_of(self, view, pane_id)

    def view_area(self, own: Rect) -> Rect:
        return attached.view_area(self, own)

    def hold_child_focus(self, view: object, pane_id: str, held: bool) -> None:
        attached.hold_child_focus(self, view, pane_id, held)

    def update_environment(self, client_env: dict[str, str]) -> None:
        attached.update_environment(self, client_env)

    # -- panes -------------------------------------------------------------------------------
    @property
    def active_pane(self) -> Pane | None:
        pane_id = self.tabs.active_pane if self.tabs.tabs else None
        return self.panes.get(pane_id) if pane_id else None

    def busy_panes(self) -> list[Pane]:
        return pane_programs.busy_panes(self)

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
        return spawning.shell_launch(self)

    def spawn_env(self, pane_id: str, cwd: str) -> dict[str, str]:
        return spawning.spawn_env(self, pane_id, cwd)

    def estimate_size(self) -> tuple[int, int]:
        """Rows and columns for a new pane before a view lays it out: the area less the pane header."""
        return max(2, self.area.height - 1), max(10, self.area.width)

    # -- starting programs (dsh.session.spawning) --------------------------------------------------
    def make_terminal(
        self, pane_id: str, argv: list[str], cwd: str, env: dict[str, str], rows: int, cols: int
    ) -> Terminal:
        return spawning.make_terminal(self, pane_id, argv, cwd, env, rows, cols)

    def create_pane(self, argv: list[str] | None, cwd: str | None = None) -> Pane:
        return spawning.create_pane(self, argv, cwd)

    def agent_hooks(
        self, pane_id: str, kind: str, argv: list[str], cwd: str, env: dict[str, str]
    ) -> tuple[list[str], dict[str, str]]:
        return spawning.agent_hooks(self, pane_id, kind, argv, cwd, env)

    def start_pane(self, pane: Pane) -> None:
        spawning.start_pane(self, pane)

    def start_tombstone(self, pane: Pane) -> None:
        spawning.start_tombstone(self, pane)

    def rerun_command(self, pane: Pane) -> bool:
        return spawning.rerun_command(self, pane)

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

    # -- the panes' programs (dsh.session.pane_programs) --------------------------------------------
    def apply_read_budgets(self) -> None:
        pane_programs.apply_read_budgets(self)

    def wake_waiters(self) -> None:
        pane_programs.wake_waiters(self)

    def poll_foreground(self, pane_id: str, *, now: float | None = None) -> None:
        pane_programs.poll_foreground(self, pane_id, now=now)

    def observer_looks_at(self, pane_id: str) -> bool:
        """True when some attached client looks at this pane: its screen shows the panes (no overlay over
        them) and this is the focused one (a notice there tells nobody anything new)."""
        return any(view.looks_at(pane_id) for view in self.views)

    def observer_shows(self, pane_id: str) -> bool:
        """True when this pane is on some attached client's screen (`SessionObserver.shows`)."""
        return any(view.shows(pane_id) for view in self.views)

    @property
    def remain_on_exit(self) -> bool:
        """tmux's remain-on-exit: keep every pane whose program ended, with its status and screen."""
        return self.config.flag("term.remain_on_exit")

    # -- lines from the prompt ---------------------------------------------------------------
    def record_input(self, line: str) -> None:
        agent_titles.record_input(self, line)

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

    # -- lifetime (dsh.session.lifetime) -------------------------------------------------------------
    def start(self) -> None:
        lifetime.start(self)

    def _foreground_tick(self) -> None:
        lifetime.foreground_tick(self)

    def _tick(self) -> None:
        lifetime.tick(self)

    _hooks_swept = False

    def name_pane(self, pane: Pane, name: str | None) -> None:
        """/name: a pane's name beats any title its program sets; an empty name gives it back."""
        structure.name_pane(self, pane, name)

    def flush_and_close(self, *, save: bool = True) -> None:
        lifetime.flush_and_close(self, save=save)

    def quit(self) -> None:
        lifetime.quit(self)

    def pane_pids(self) -> list[int]:
        return [p.terminal.pid for p in self.panes.values() if p.terminal.pid is not None]

    async def reap_panes(self, grace: float = KILL_GRACE_SECONDS) -> None:
        await lifetime.reap_panes(self, grace)
