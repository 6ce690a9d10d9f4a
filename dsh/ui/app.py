"""The view of one session for one client: its parts made and joined, and named on it for the keys and the chrome."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dsh.commands.registry import Registry
from dsh.session.client_state import ClientState
from dsh.session.commands import build_registry
from dsh.session.pane import Pane
from dsh.session.session import Session
from dsh.session.view_records import Announcement, ViewResult
from dsh.ui.bindings import prepare_modes
from dsh.ui.copy_actions import CopyActions
from dsh.ui.outer_terminal import OuterTerminal
from dsh.ui.overlays import Overlays
from dsh.ui.pane_slots import PaneSlots
from dsh.ui.pane_window import LineWindow, install_widths
from dsh.ui.panes_view import PaneSlot
from dsh.ui.prompt_input import PromptInput
from dsh.ui.prompt_line import PromptLine
from dsh.ui.resume_actions import ResumeActions
from dsh.ui.view_keys import ViewKeys
from dsh.ui.view_layout import build_layout
from dsh.ui.view_lifetime import ViewLifetime
from dsh.ui.view_options import ViewOptions

if TYPE_CHECKING:
    from prompt_toolkit.layout import ConditionalContainer, Layout

    from dsh.ui.bindings.modes import Modes
    from dsh.ui.panes_view import PanesContainer
    from dsh.ui.view_application import ViewApplication
    from dsh.ui.window import ViewWindow


class _Of:
    """A DshApp attribute that is one of its parts' (`holder`: the ClientState, the copy mode's actions,
    the overlays, the keys, the prompt, the lifetime …), read (and written) through: the bindings, the
    chrome and the tests name them on the view."""

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
    # The keymap and the bindings made from it, built again on /reload (ui/view_keys.py).
    keymap = _Of("keys")
    escape_key = _Of("keys")
    copy_keys = _Of("keys")
    _bindings = _Of("keys", "bindings")
    config_reloaded = _Of("keys")
    # The prompt's buffer and memory (ui/prompt_input.py).
    _label = _Of("prompt_input", "label")
    history_ready = _Of("prompt_input")
    # The Application's lifetime (ui/view_lifetime.py).
    exit = _Of("lifetime")
    ended = _Of("lifetime")
    _first_frame_out = _Of("lifetime", "first_frame_out")
    # Sessions and /resume (ui/resume_actions.py).
    open_picker = _Of("resume")
    refresh_index_in_background = _Of("resume")
    switch_session = _Of("resume", "resume_session")  # /session: checked as the picker's Enter checks it

    # Made in __init__ by dsh.ui.view_layout.build_layout and dsh.ui.bindings.prepare_modes.
    tabbar: LineWindow
    panes_view: PanesContainer
    help_window: ViewWindow
    status: LineWindow
    message_window: ConditionalContainer
    prompt_window: ViewWindow
    layout: Layout
    modes: Modes
    application: ViewApplication[ViewResult]

    def __init__(self, session: Session, options: ViewOptions | None = None) -> None:
        options = options or ViewOptions()
        install_widths()  # prompt_toolkit's widths by the table the session chose (dsh.term.widths)
        self.session = session
        self.config = session.config
        self.loop = session.loop
        self.slots: dict[str, PaneSlot] = {}
        self.pane_slots = PaneSlots(self)
        self.registry: Registry = build_registry()
        self.state = ClientState(
            session, self, self.registry, on_switch=options.on_switch, send_notification=options.outward
        )
        self.copying = CopyActions(self)
        self.overlays = Overlays(self)
        self.outer = OuterTerminal(self)
        self.keys = ViewKeys(self)
        warnings = self.keys.read_keymap()

        self.picker: Any = None
        self.picker_view: Any = None
        self.resume = ResumeActions(self)

        self.line = PromptLine(self)
        self.prompt_input = PromptInput(self)
        self.memory = self.prompt_input.memory
        self.prompt_buffer = self.prompt_input.buffer
        for pane in session.panes.values():
            self.register_slot(pane)
        build_layout(self)
        prepare_modes(self)
        self.lifetime = ViewLifetime(self, options)
        self.application = self.lifetime.application
        startup = [Announcement(w, error=True) for w in warnings]
        startup += options.announcements
        startup += [Announcement(m.text, m.error) for m in session.take_pending()]
        if startup:
            # One message line: join them, so a second warning does not hide the first.
            self.announce(" | ".join(a.text for a in startup), error=any(a.error for a in startup))

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

    async def run_async(self) -> ViewResult:
        """Draw the session until it ends, or this client detaches or moves elsewhere."""
        return await self.lifetime.run()


__all__ = ["DshApp"]
