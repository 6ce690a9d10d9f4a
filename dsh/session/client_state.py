"""One attached client's state, apart from any screen: where its keys go, its prefix, message and question.

pymux keeps this in a `ClientState` beside its layout; dsh's is the session's observer and the context
every command runs with (`session/client.py`'s `Client`). It knows no prompt_toolkit: it reaches the
screen that shows it through `ClientView` (the view in `ui/app.py`, or a test's stand-in), so its
mode machine is tested with no terminal. Each attached client has its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from enum import StrEnum
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from dsh.commands.parse import parse_line
from dsh.commands.registry import CommandError, Registry
from dsh.session.keyboard import PANE, PROMPT, Keyboard, PaneFacts, facts_of
from dsh.session.view_records import Announcement, EndReason, Switch, ViewResult
from dsh.text import sanitize

if TYPE_CHECKING:
    from dsh.session.pane import Pane
    from dsh.session.session import Session

# Panes other than the active one redraw at most this often (tmux also paces busy panes); within
# TYPING_SECONDS of a key, at most every BACKGROUND_FRAME_SECONDS_TYPING: a flooding pane's frame (every
# row new) is the longest thing a key's echo could wait behind.
BACKGROUND_FRAME_SECONDS = 0.1
BACKGROUND_FRAME_SECONDS_TYPING = 0.3
TYPING_SECONDS = 0.3
# Redraws caused by pane output, per second at most.
OUTPUT_FPS = 60
# Output in the active pane this soon after a key is most likely its echo: drawn at once.
ECHO_SECONDS = 0.25
# A message stays this long unless a key puts it away first.
MESSAGE_SECONDS = 5.0
MESSAGE_ERROR_SECONDS = 10.0


class Mode(StrEnum):
    PROMPT = PROMPT  # the REPL prompt line has the keyboard
    PANE = PANE  # every key goes to the active pane's program
    PICKER = "picker"  # /resume
    HELP = "help"  # the help overlay (and /agents, /notifications in its place)
    COPY = "copy"  # copy mode over the active pane's history


# The modes the keyboard goes back to when an overlay, copy mode or a question ends.
WORK_MODES = (Mode.PROMPT, Mode.PANE)
# The modes in which the client's screen shows the panes (the picker and the help overlay cover them).
SHOWING_MODES = (Mode.PROMPT, Mode.PANE, Mode.COPY)


class Screen(Protocol):
    """What the state asks of the screen showing it."""

    def focus(self, target: str) -> None:
        """Give the screen's keyboard focus to "prompt" (the prompt line) or "pane" (the active pane)."""

    def invalidate(self) -> None:
        """Draw again soon."""

    def later(self, delay: float, callback: Callable[[], object]) -> None:
        """Run `callback` on the loop after `delay` seconds."""

    def pane_frame_due(self, pane_id: str, redraw: Callable[[], None]) -> bool:
        """True when the pane's own frame timer will call `redraw` (its output needs nothing more)."""

    def panes_changed(self) -> None:
        """Panes came or went: make (or drop) what draws them."""

    def asking(self) -> bool:
        """A question waits for its answer on the prompt line (a tab's new name, a search)."""

    def end(self) -> None:
        """Stop showing the session; the state's `result` says why."""


class ClientView(Screen, Protocol):
    """The screen, and what only it can do of what a command asks (the rest of `Client`)."""

    def ask(self, label: str, action: Callable[[str], None], default: str = "") -> None: ...

    def show_help(self, topic: str | None = None) -> None: ...

    def open_picker(self) -> None: ...

    def enter_copy_mode(self) -> None: ...

    def paste_clipboard(self) -> None: ...

    def config_reloaded(self, warnings: list[str], by: str | None) -> None:
        """The session read its config again: take its keys and say so (`by`: the session whose
        /reload asked, None for this one)."""

    def on_clipboard(self, pane_id: str, selections: str, data: str) -> None: ...

    def ring_bell(self) -> None:
        """Ring the user's terminal's bell (a BEL from a pane on this screen)."""

    def switch_session(self, session_id: str) -> None: ...

    def open_agents(self) -> None: ...

    def agents_next(self) -> None: ...

    def open_notifications(self) -> None: ...

    def open_tree(self) -> None: ...


class ClientState:
    """One client of a session: the keyboard's mode and the rule that moves it, the prefix, the
    message line, the y/n question, output redraw pacing, and the commands it runs. It is the
    session's observer while its client is attached, and the `Client` its commands get."""

    def __init__(
        self,
        session: Session,
        view: ClientView,
        registry: Registry,
        *,
        on_switch: Callable[[Switch], None] | None = None,
        send_notification: Callable[[str, str], None] | None = None,
    ) -> None:
        self.session = session
        self.view = view
        self.registry = registry
        self._mode = Mode.PROMPT
        # Where this client's keys go (the prompt or the focused pane): one rule, and the user's choice.
        self.keyboard = Keyboard(session.config.text("ui.keyboard"))
        self.prefix_pending = False
        self.message: Announcement | None = None
        # Messages said before the first frame, each with its seconds: they count from that frame, so a
        # start slowed by a busy machine does not put a warning away before anyone saw it.
        self._unseen: list[tuple[float, Announcement]] | None = []
        # A y/n question waiting for its one key: what y does, and what to say otherwise (at most one).
        self.confirming: list[tuple[Callable[[], object], str]] = []
        self.result = ViewResult(EndReason.RUNNING)  # whatever ends the view says why
        self.previous_session: str | None = None  # where this client came from (`/session last`)
        self.read_only = False  # `dsh attach -r`: keys ignored but the prefix and detach (ui/bindings/readonly.py)
        self.last_key_time = 0.0
        self._reload_line: Announcement | None = None  # the message of this client's last /reload
        self._on_switch = on_switch
        self.send_notification = send_notification  # the session's attention calls it (None: no client terminal)
        self._child_focus: str | None = None  # the pane told it has the keyboard (focus events)
        self._last_output_redraw = 0.0
        self._output_redraw_pending = False

    # -- what the chrome and the bindings ask ------------------------------------------------------
    @property
    def mode(self) -> Mode:
        return self._mode

    @mode.setter
    def mode(self, mode: Mode) -> None:
        covered = self._mode not in SHOWING_MODES
        self._mode = mode
        if covered and mode in SHOWING_MODES:
            self.session.client_looks(self)  # back from an overlay: this client sees the focused pane again

    @property
    def active_pane(self) -> Pane | None:
        return self.session.active_pane

    def looks_at(self, pane_id: str) -> bool:
        """True when this client's screen shows the panes and `pane_id` is the focused one: a notice
        there tells this client nothing it cannot see."""
        tabs = self.session.tabs
        return self._mode in SHOWING_MODES and tabs.tabs != [] and tabs.active_pane == pane_id

    def shows(self, pane_id: str) -> bool:
        """True when `pane_id` is on this client's screen: the panes are not covered by an overlay, it is
        in the active tab (the zoomed pane only, when zoomed), and inside this client's own window (a
        smaller client's, under `ui.window_size = "latest"`, may cut the right or bottom panes off)."""
        tabs = self.session.tabs
        if self._mode not in SHOWING_MODES or not tabs.tabs:
            return False
        tab = tabs.active_tab
        if not (pane_id == tab.active_pane if tab.zoomed else pane_id in tab.pane_ids()):
            return False
        return self.session.on_screen_of(self, pane_id)

    def pane_wants_secret(self) -> bool:
        """True while the active pane's program reads a line without echo (a password prompt)."""
        pane = self.active_pane
        return bool(pane is not None and pane.running and pane.terminal.reading_secret())

    def background_pace(self) -> float:
        """How often a pane other than the active one is drawn now (less often while typing)."""
        typing = time.monotonic() - self.last_key_time < TYPING_SECONDS
        return BACKGROUND_FRAME_SECONDS_TYPING if typing else BACKGROUND_FRAME_SECONDS

    # -- the message line ----------------------------------------------------------------------------
    def announce(self, text: str, *, error: bool = False) -> None:
        """Show a message over the bottom of the panes until the next key, or a few seconds pass."""
        seconds = MESSAGE_ERROR_SECONDS if error else MESSAGE_SECONDS
        self._show(Announcement(sanitize(text, max_len=400), error), seconds)

    def _show(self, message: Announcement, seconds: float | None) -> None:
        """Put `message` on the message line for `seconds` (None: until the next key)."""
        self.message = message
        self.view.invalidate()
        if seconds is None:
            return
        if self._unseen is not None:
            self._unseen.append((seconds, message))
        else:
            self.view.later(seconds, partial(self._expire, message))

    def first_frame_shown(self) -> None:
        """The screen has drawn its first frame: the messages said before it start their seconds now."""
        unseen, self._unseen = self._unseen, None
        for seconds, message in unseen or ():
            self.view.later(seconds, partial(self._expire, message))

    def _expire(self, message: Announcement) -> None:
        if self.message is message:
            self.message = None
            self.view.invalidate()

    def key_pressed(self) -> None:
        """Before each key is handled: typing paces the other panes, and puts a read message away."""
        self.last_key_time = time.monotonic()
        self.session.client_active(self)  # (`ui.window_size = "latest"`: the panes take this client's size)
        # A y/n question (or the prefix's) keeps its line until the answer key has been handled.
        if self.message is not None and not (self.prefix_pending or self.confirming):
            self.message = None  # read: the next key puts it away (a key's own answer comes after this)
            self.view.invalidate()  # a key sent on to a pane draws nothing itself

    # -- the session's observer ------------------------------------------------------------------------
    def on_message(self, text: str, error: bool) -> None:
        self.announce(text, error=error)

    def on_pane_output(self, pane_id: str) -> None:
        """Redraw for output at most OUTPUT_FPS times a second; keys (and their echo) redraw at once.

        prompt_toolkit's own min_redraw_interval would pace keystrokes too, so a key's echo would queue
        behind a flooding pane's frames; this paces only what panes print.
        """
        now = time.monotonic()
        active = pane_id == self.session.tabs.active_pane
        if active and now - self.last_key_time < ECHO_SECONDS:
            self.view.invalidate()  # most likely the echo of what was just typed
            return
        # Another pane's frame is redrawn only every BACKGROUND_FRAME_SECONDS anyway: a redraw sooner
        # would lay out and compare the whole screen again for nothing (a flooding pane beside the
        # one you type in made 60 of those a second), so the redraw waits until its frame is due.
        if not active and self.view.pane_frame_due(pane_id, self.view.invalidate):
            return
        gap = 1 / OUTPUT_FPS if active else self.background_pace()
        wait = self._last_output_redraw + gap - now
        if wait <= 0:
            self._last_output_redraw = now
            self.view.invalidate()
        elif not self._output_redraw_pending:
            self._output_redraw_pending = True
            self.view.later(wait, self._paced_output_redraw)

    def _paced_output_redraw(self) -> None:
        self._output_redraw_pending = False
        self._last_output_redraw = time.monotonic()
        self.view.invalidate()

    def on_pane_exited(self, pane_id: str) -> None:
        self.keyboard.forget(pane_id)  # a choice made for the program that ended is not for the next
        if pane_id == self.session.tabs.active_pane:
            self.follow_keyboard()

    def on_alt_screen(self, pane_id: str, on: bool) -> None:
        if pane_id == self.session.tabs.active_pane:
            self.follow_keyboard()

    def on_takes_keys(self, pane_id: str, takes: bool) -> None:
        """The keyboard follows the foreground program: into the pane when one that reads keys runs
        there (a pager, a REPL, ssh, a password prompt), back to the prompt when the shell is back."""
        if pane_id == self.session.tabs.active_pane:
            self.follow_keyboard()

    def on_clipboard(self, pane_id: str, selections: str, data: str) -> None:
        self.view.on_clipboard(pane_id, selections, data)

    def ring_bell(self) -> None:
        """A BEL from a pane this client's screen shows (the session's attention calls it)."""
        self.view.ring_bell()

    def on_structure_changed(self, new_pane: Pane | None) -> None:
        self.view.panes_changed()
        if new_pane is not None:
            self.keyboard.forget(new_pane.id)  # a pane started anew (a tombstone): its rule again
        # A new agent pane is a conversation: the rule gives it the keyboard at once.
        self.follow_keyboard()
        self.on_focus_moved()

    def on_focus_changed(self) -> None:
        self.follow_keyboard()
        self.on_focus_moved()

    def on_focus_moved(self) -> None:
        if self.mode == Mode.PANE:
            self.view.focus(PANE)
        self.sync_child_focus()
        self.view.invalidate()

    def on_changed(self) -> None:
        self.view.invalidate()

    def on_ended(self) -> None:
        self.result = ViewResult(EndReason.ENDED)
        self.view.end()

    def on_config_reloaded(self, warnings: list[str], by: str | None) -> None:
        self.view.config_reloaded(warnings, by)

    # -- where the keys go: the prompt or the pane -----------------------------------------------------
    def sync_child_focus(self) -> None:
        """Tell children that asked for focus events (agents do) when the keyboard enters or leaves them
        (the session tells a program once, however many clients' keyboards are in its pane)."""
        pane = self.active_pane
        focused = pane.id if pane is not None and self.mode == Mode.PANE else None
        if focused == self._child_focus:
            return
        if self._child_focus:
            self.session.hold_child_focus(self, self._child_focus, False)
        if focused is not None:
            self.session.hold_child_focus(self, focused, True)
        self._child_focus = focused

    def _focused_facts(self) -> PaneFacts | None:
        pane = self.active_pane
        return facts_of(pane) if pane is not None else None

    def follow_keyboard(self, *, returning: bool = False) -> None:
        """Put the keyboard where the rule (or the user's choice for this pane) says: called on every
        change that may move it (focus, a program starting or ending in the focused pane, a restore),
        never per key. Overlays, copy mode, a question or a pending prefix keep it until they end
        (`returning`: one just ended, and this gives the keyboard back)."""
        if not returning and (
            self.mode not in WORK_MODES or self.prefix_pending or self.confirming or self.view.asking()
        ):
            return
        where = self.keyboard.place(self._focused_facts())
        if where == PANE and self.active_pane is not None:
            if self.mode != Mode.PANE or returning:
                self.show_pane()
        elif self.mode != Mode.PROMPT or returning:
            self.show_prompt()

    def show_pane(self) -> None:
        """The keyboard to the active pane, as the screen shows it (no choice of the user's recorded)."""
        self.mode = Mode.PANE
        self.view.focus(PANE)
        self.sync_child_focus()
        self.view.invalidate()

    def show_prompt(self) -> None:
        """The keyboard to the prompt line (no choice of the user's recorded)."""
        self.mode = Mode.PROMPT
        self.view.focus(PROMPT)
        self.sync_child_focus()
        self.view.invalidate()

    def enter_pane(self) -> None:
        """The user put the keyboard in the focused pane (/pane, a click): it stays until focus moves."""
        pane = self.active_pane
        if pane is None:
            return
        self.keyboard.choose(pane.id, PANE)
        self.show_pane()

    def enter_prompt(self) -> None:
        """The user put the keyboard on the prompt (/prompt, a click on it): it stays until focus moves."""
        pane = self.active_pane
        self.keyboard.choose(pane.id if pane is not None else None, PROMPT)
        self.show_prompt()

    def toggle_prompt_pane(self) -> None:
        """The escape key: the other place, chosen for the focused pane until the focus moves."""
        if self.mode not in WORK_MODES:
            return
        if self.keyboard.toggled(self._focused_facts(), self.mode.value) == PANE and self.active_pane is not None:
            self.show_pane()
        else:
            self.show_prompt()

    def return_keyboard(self) -> None:
        """Give the keyboard back after an overlay, copy mode or a question: to the pane the user chose,
        else where the rule says (which is where it was, unless what the pane runs changed meanwhile)."""
        self.follow_keyboard(returning=True)

    # While the prefix (or a y/n question) waits for its key, the keyboard focus leaves the prompt line for
    # the active pane: prompt_toolkit's line-editing bindings (Enter, Tab, C-a, arrows ...) are bound to
    # specific keys and would win over the catch-alls, editing the line while the question stayed.
    def hold_keyboard(self) -> None:
        if self.mode == Mode.PROMPT:
            self.view.focus(PANE)
        self.view.invalidate()

    def release_keyboard(self) -> None:
        if self.mode == Mode.PROMPT:
            self.view.focus(PROMPT)
        self.view.invalidate()
        # What changed while the prefix (or a question) held the keyboard applies now.
        if not self.prefix_pending and not self.confirming:
            self.follow_keyboard()

    def confirm(self, question: str, on_yes: Callable[[], object], *, declined: str = "not done") -> None:
        """A y/n question answered by one key (y does it; any other key does not), as tmux asks."""
        self.confirming[:] = [(on_yes, declined)]
        self.hold_keyboard()
        # No time limit: a question that went away by itself would still take the next key as its "no".
        self._show(Announcement(sanitize(question, max_len=400)), None)

    # -- commands ---------------------------------------------------------------------------------------
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
            self.view.invalidate()

        task.add_done_callback(done)

    # What a command asks that only the screen can do.
    def ask(self, label: str, action: Callable[[str], None], default: str = "") -> None:
        self.view.ask(label, action, default)

    def show_help(self, topic: str | None = None) -> None:
        self.view.show_help(topic)

    def open_picker(self) -> None:
        self.view.open_picker()

    def enter_copy_mode(self) -> None:
        self.view.enter_copy_mode()

    def paste_clipboard(self) -> None:
        self.view.paste_clipboard()

    def reload_config(self) -> None:
        """/reload: this session's config, and every other live session's of this user."""
        self._reload_line = None
        self.session.reload_everywhere(on_spread=self._reloaded_elsewhere)
        self._reload_line = self.message  # what the view said of it (below: the others' count added)

    def _reloaded_elsewhere(self, count: int) -> None:
        line = self.message
        if count and line is not None and line is self._reload_line and not line.error:
            others = "1 other live session" if count == 1 else f"{count} other live sessions"
            self.announce(f"{line.text}; also in {others}")

    def switch_session(self, session_id: str) -> None:
        self.view.switch_session(session_id)

    def open_agents(self) -> None:
        self.view.open_agents()

    def agents_next(self) -> None:
        self.view.agents_next()

    def open_notifications(self) -> None:
        self.view.open_notifications()

    def open_tree(self) -> None:
        self.view.open_tree()

    # -- leaving --------------------------------------------------------------------------------------
    def switch_to(self, switch: Switch, otherwise: str) -> None:
        """Ask the client to move to another session; without a client (a view run without one), say
        what to do instead."""
        if self._on_switch is None:
            self.announce(f"this dsh has no client to move: {otherwise}", error=True)
            return
        self._on_switch(switch)

    def switch_failed(self, reason: str) -> None:
        """The client could not move to the session asked for: say why; everything here stays."""
        self.announce(reason, error=True)

    def detach(self) -> None:
        """End this client's view; the session and its programs keep running."""
        self.result = ViewResult(EndReason.DETACHED)
        self.view.end()


__all__ = ["SHOWING_MODES", "WORK_MODES", "ClientState", "ClientView", "Mode", "Screen"]
