"""The view of one session for one client: the prompt_toolkit Application, its modes, prompt and overlays."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import DynamicKeyBindings, KeyBindingsBase

from dsh.commands.keymap import Keymap, key_display
from dsh.commands.registry import Registry
from dsh.home import dsh_home_path
from dsh.session.client_state import ClientState, Mode
from dsh.session.commands import build_registry
from dsh.session.pane import Pane
from dsh.session.session import Session
from dsh.session.view_records import Announcement, EndReason, ViewResult
from dsh.ui import chrome
from dsh.ui.application import ViewApplication
from dsh.ui.completion import RegistryCompleter
from dsh.ui.copy_actions import CopyActions
from dsh.ui.cursor_shape import PaneCursorShape
from dsh.ui.keypad import KeypadMirror
from dsh.ui.link_input import LinkInput
from dsh.ui.outer_terminal import OuterTerminal
from dsh.ui.outer_title import TitleMirror
from dsh.ui.overlays import Overlays
from dsh.ui.pane_slots import PaneSlots
from dsh.ui.pane_window import LineWindow, install_widths
from dsh.ui.panes_view import PaneSlot
from dsh.ui.prompt_buffer import PromptBuffer
from dsh.ui.prompt_line import PromptLine
from dsh.ui.prompt_memory import HistorySuggest, PromptMemory
from dsh.ui.resume_actions import ResumeActions
from dsh.ui.view_layout import build_layout
from dsh.ui.view_options import ViewOptions

if TYPE_CHECKING:
    from prompt_toolkit.layout import ConditionalContainer, Layout

    from dsh.ui.bindings.modes import Modes
    from dsh.ui.panes_view import PanesContainer
    from dsh.ui.window import ViewWindow

class _Of:
    """A DshApp attribute that is one of its parts' (`holder`: the ClientState, the copy mode's actions,
    the overlays), read (and written) through: the bindings, the chrome and the tests name them on the view."""

    def __init__(self, holder: str = "state", name: str | None = None) -> None:
        self.holder, self.target = holder, name

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = self.target or name

    def __get__(self, app: DshApp | None, owner: type | None = None) -> Any:
        return self if app is None else getattr(getattr(app, self.holder), self.name)

    def __set__(self, app: DshApp, value: object) -> None:
        setattr(getattr(app, self.holder), self.name, value)


class DshApp:
    """One client's view of a session: the prompt_toolkit Application, the keyboard's mode, the prompt,
    the picker and help overlays, copy mode. The session itself lives on without it."""

    # The client's state (session/client_state.py), named on the view too.
    mode = _Of()
    prefix_pending = _Of()
    message = _Of()
    keyboard = _Of()
    result = _Of()
    active_pane = _Of()
    announce = _Of()
    has_keyboard_in = _Of()
    pane_wants_secret = _Of()
    follow_keyboard = _Of()
    enter_pane = _Of()
    enter_prompt = _Of()
    toggle_prompt_pane = _Of()
    return_keyboard = _Of()
    hold_keyboard = _Of()
    release_keyboard = _Of()
    confirm = _Of()
    run_command_line = _Of()
    run_command = _Of()
    switch_to = _Of()
    switch_failed = _Of()
    detach = _Of()
    previous_session = _Of()
    read_only = _Of()
    # Copy mode and the paste buffer (ui/copy_actions.py).
    paste_buffer = _Of("copying")
    enter_copy_mode = _Of("copying")
    leave_copy_mode = _Of("copying")
    copy_to_clipboards = _Of("copying")
    copy_selection = _Of("copying")
    copy_text = _Of("copying")
    paste_clipboard = _Of("copying")
    copy_search = _Of("copying")
    copy_search_again = _Of("copying")
    # The help page and the lists shown in its place (ui/overlays.py).
    help_lines = _Of("overlays")
    help_scroll = _Of("overlays")
    list_overlay = _Of("overlays")
    _help_fragments = _Of("overlays", "help_fragments")
    scroll_help = _Of("overlays")
    show_help = _Of("overlays")
    open_tree = _Of("overlays")
    open_agents = _Of("overlays")
    agents_next = _Of("overlays")
    open_notifications = _Of("overlays")
    close_overlay = _Of("overlays")
    # The prompt line's behaviour (ui/prompt_line.py).
    ask = _Of("line")
    end_ask = _Of("line")
    is_path_line = _Of("line")
    handle_line = _Of("line")
    complete_shell_line = _Of("line")
    # What goes to the client's terminal beside the frames (ui/outer_terminal.py).
    ring_bell = _Of("outer")
    _last_bell = _Of("outer")
    on_clipboard = _Of("outer")
    # The panes' windows on this view (ui/pane_slots.py; the dict itself is `slots`).
    register_slot = _Of("pane_slots")
    panes_changed = _Of("pane_slots")
    pane_frame_due = _Of("pane_slots")
    click_pane = _Of("pane_slots")
    focus = _Of("pane_slots")
    _focus_active_body = _Of("pane_slots", "focus_active_body")

    # Made in __init__ by dsh.ui.view_layout.build_layout and dsh.ui.bindings.prepare_modes.
    tabbar: LineWindow
    panes_view: PanesContainer
    help_window: ViewWindow
    status: LineWindow
    message_window: ConditionalContainer
    prompt_window: ViewWindow
    layout: Layout
    modes: Modes

    def __init__(self, session: Session, options: ViewOptions | None = None) -> None:
        options = options or ViewOptions()
        install_widths()  # prompt_toolkit's widths by the table the session chose (dsh.term.widths)
        self.session = session
        self.config = session.config
        self.slots: dict[str, PaneSlot] = {}
        self.pane_slots = PaneSlots(self)
        self.registry: Registry = build_registry()
        self.state = ClientState(
            session, self, self.registry, on_switch=options.on_switch, send_notification=options.outward
        )
        self.copying = CopyActions(self)
        self.overlays = Overlays(self)
        self.outer = OuterTerminal(self)
        self._ended = False
        self._exit_requested = False
        self._first_frame_out = False  # the bindings and the index refresh for /resume wait for it

        warnings = self._read_keymap()

        self.picker: Any = None
        self.picker_view: Any = None
        self.resume = ResumeActions(self)

        self.line = PromptLine(self)
        self.memory = PromptMemory(
            session.cwd, session.env, lambda text: self.announce(text, error=True), session.worker
        )
        self.prompt_buffer = PromptBuffer(
            refused=self._prompt_full,
            name="prompt",
            multiline=False,
            history=self.memory.history,
            auto_suggest=HistorySuggest(self.memory, enabled=self._suggesting),
            completer=RegistryCompleter(self.registry, self),
            complete_while_typing=Condition(lambda: self.prompt_buffer.text.startswith("/")),
            accept_handler=self.line.accept,
        )
        for pane in session.panes.values():
            self.register_slot(pane)
        self._build_layout()
        from dsh.ui.bindings import prepare_modes

        prepare_modes(self)
        # Built for the first key, or on the loop's turn after the first frame (drawing asks nothing of
        # them); /reload swaps in bindings built from the new keymap.
        self._bindings: KeyBindingsBase | None = None
        depth = options.color_depth
        self.application: ViewApplication[ViewResult] = ViewApplication(
            layout=self.layout,
            key_bindings=DynamicKeyBindings(self._current_bindings),
            style=chrome.STYLE,
            # No pygments lexer draws here: its default style would be parsed and merged for nothing.
            include_default_pygments_style=False,
            full_screen=True,
            mouse_support=Condition(lambda: self.config.flag("ui.mouse")),
            min_redraw_interval=None,
            max_render_postpone_time=None,
            refresh_interval=None,
            color_depth=(lambda: depth) if depth is not None else None,
            cursor=PaneCursorShape(self.outer.cursor_shape),
        )
        # The keypad's mode follows the pane the keys go to; its keys are read as keypad keys there.
        self.keypad = KeypadMirror(self.outer.keypad)
        self.application.before_render += self.keypad.before_render
        self.outer_title = TitleMirror(self.outer.title)
        self.application.before_render += self.outer_title.before_render
        if isinstance(self.application.input, LinkInput):
            self.application.input.keypad = self.outer.keypad
        self.application.ttimeoutlen = 0.05
        self.application.timeoutlen = 0.05
        self.loop = session.loop
        self.application.key_processor.before_key_press += lambda _sender: self.state.key_pressed()
        startup = [Announcement(w, error=True) for w in warnings]
        startup += options.announcements
        startup += [Announcement(m.text, m.error) for m in session.take_pending()]
        if startup:
            # One message line: join them, so a second warning does not hide the first.
            self.announce(" | ".join(a.text for a in startup), error=any(a.error for a in startup))
        self._open_picker_on_start = options.open_picker
        self._history_in_buffer = asyncio.Event()

    # -- small helpers ---------------------------------------------------------------
    def _prompt_full(self, count: int) -> None:
        from dsh.ui.prompt_buffer import PROMPT_MAX

        self.announce(
            f"the prompt holds {PROMPT_MAX // (1 << 20)} MB at most: {count} characters were not added", error=True
        )

    def _read_keymap(self) -> list[str]:
        """The keymap and the escape key from the config; what is wrong in [keys], as warnings."""
        self.keymap, warnings = Keymap.from_settings(
            self.config, known_commands=set(self.registry.names()), source=str(dsh_home_path("config.toml"))
        )
        self.escape_key = self.config.text("ui.escape_key")
        self.keyboard.style = self.config.text("ui.keyboard")
        self.copy_keys = self.config.text("ui.copy_keys")
        return warnings

    def config_reloaded(self, warnings: list[str], by: str | None) -> None:
        """The session read its config again (/reload here, or in the session `by`): new keys, prefix
        and settings apply at once, and the message line says so."""
        from dsh.ui.bindings import build_key_bindings

        self.config = self.session.config
        warnings = warnings + self._read_keymap()
        self._bindings = build_key_bindings(self)
        if warnings:
            self.announce(" | ".join(warnings), error=True)
        else:
            where = "" if by is None else f" by /reload in session {by}"
            path = dsh_home_path("config.toml")
            self.announce(f"config reloaded{where} ({path}); prefix {key_display(self.keymap.prefix)}")

    def _suggesting(self) -> bool:
        return self.mode == Mode.PROMPT and self.line.pending_action is None and not self.pane_wants_secret()

    @property
    def ended(self) -> bool:
        """The view has stopped drawing: workers must not call back into it."""
        return self._ended

    def invalidate(self) -> None:
        app = getattr(self, "application", None)
        if app is not None and app.is_running:
            app.invalidate()

    # -- the screen the client state asks of (session/client_state.py Screen) --------------------
    def later(self, delay: float, callback: Callable[[], object]) -> None:
        self.session.loop.call_later(delay, callback)

    def asking(self) -> bool:
        return self.line.pending_action is not None

    def end(self) -> None:
        self.exit()

    # -- layout ------------------------------------------------------------------------
    def _build_layout(self) -> None:
        build_layout(self)

    async def _load_history(self) -> None:
        """Read the merged history on the session's worker now, before anything else is queued there."""
        async for _ in self.memory.history.load():
            break

    def _label(self) -> str:
        search = self.memory.search
        return search.label if search is not None else self.line.label

    too_small = False  # the panes do not fit the window (set as they are laid out: ui/view_layout.py)

    # -- panes ---------------------------------------------------------------------------
    def start_tombstone(self, pane: Pane) -> None:
        """Start a restored (or ended) pane the user chose; the keyboard follows what it runs."""
        self.session.start_tombstone(pane)

    def rerun_saved_command(self) -> None:
        """The key a restored pane offers: its saved command again, in a fresh shell in its directory."""
        pane = self.active_pane
        if pane is None:
            return
        command = pane.rerun_line
        if command is not None and self.session.rerun_command(pane):
            self.announce(f"{pane.id}: ran again in {pane.cwd}: {command}")

    # -- sessions and resume ------------------------------------------------------------------------
    def open_picker(self) -> None:
        """Open /resume (the picker's glue is `ResumeActions`)."""
        self.resume.open_picker()

    def refresh_index_in_background(self) -> None:
        self.resume.refresh_index_in_background()

    def _current_bindings(self) -> KeyBindingsBase:
        if self._bindings is None:
            from dsh.ui.bindings import mode_bindings

            self._bindings = mode_bindings(self, self.modes)
        return self._bindings

    def _after_first_frame(self, _app: object) -> None:
        # Left registered (taking a handler out while the event fires would skip the next one); on the
        # loop's next turns, not inside the render.
        if not self._first_frame_out:
            self._first_frame_out = True
            self.loop.call_soon(self._current_bindings)
            self.loop.call_soon(self.refresh_index_in_background)

    # -- lifetime -------------------------------------------------------------------------------------
    def switch_session(self, session_id: str) -> None:
        """Move this client to another session (`/session`), checked as the picker's Enter checks it."""
        self.resume.resume_session(session_id)

    def exit(self) -> None:
        app = self.application
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=self.result)
        elif not self._ended:
            self._exit_requested = True  # asked before the app runs: it ends as soon as it starts

    async def history_ready(self) -> None:
        """Done once the prompt's history is in its buffer: until then Up, pressed at once after an
        attach, would find nothing to go back to (the remote view holds keys until this is done)."""
        await self._history_in_buffer.wait()

    async def run_async(self) -> ViewResult:
        """Draw the session until it ends, or this client detaches or moves elsewhere."""
        session = self.session
        session.attach(self.state)
        # History first (suggestions want it at once), then the index, warmed for /resume once the first
        # frame is out: its import and its refresh on the worker thread held that frame back.
        self._history_task = asyncio.ensure_future(self._load_history())
        self.application.after_render += self._after_first_frame

        def pre_run() -> None:
            session.apply_read_budgets()
            self.follow_keyboard()  # an attach is a focus too: to vim or an agent running there, say
            self.prompt_buffer.load_history_if_not_yet_loaded()
            # prompt_toolkit's own task that puts the lines into the buffer (Up walks them there).
            loading = getattr(self.prompt_buffer, "_load_history_task", None)
            if isinstance(loading, asyncio.Future) and not loading.done():
                loading.add_done_callback(lambda _done: self._history_in_buffer.set())
            else:
                self._history_in_buffer.set()
            if self._exit_requested:
                self.loop.call_soon(self.exit)
            elif self._open_picker_on_start:
                self.open_picker()

        try:
            # No exception handler of prompt_toolkit's: it would print to the client and wait for Enter.
            result = await self.application.run_async(pre_run=pre_run, handle_sigint=False, set_exception_handler=False)
        finally:
            self._ended = True
            self.resume.close()
            session.detach(self.state)  # (and lets go of its pane's focus: focus-out if no other view is in it)
        result = result or self.result
        return result if result.reason else ViewResult(EndReason.GONE)


__all__ = ["DshApp"]
