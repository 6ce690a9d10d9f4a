"""The prefix table, direct bindings, y/n questions a key asks, and the prompt/pane toggle."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from dsh.commands.keymap import command_name, key_display, key_sequence
from dsh.ui import keyhelp
from dsh.ui.keyhelp import CONFIRM_COMMANDS, REPEATABLE_COMMANDS, TMUX_HINTS, pressed_display
from dsh.ui.state import Mode

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def prefix_bindings(app: DshApp, m: Modes) -> KeyBindings:
    kb = KeyBindings()
    keymap = app.keymap
    prefix_shown = key_display(keymap.prefix)
    # -- the prefix ------------------------------------------------------------------------
    hold_keyboard, release_keyboard = app.hold_keyboard, app.release_keyboard

    def start_prefix() -> None:
        app.prefix_pending = True
        hold_keyboard()

    def end_prefix() -> None:
        app.prefix_pending = False
        release_keyboard()

    # In the picker too: C-b d detaches from it, C-b and an arrow leave it for that pane.
    @kb.add(*key_sequence(keymap.prefix), filter=(m.in_work | m.in_picker) & m.no_prefix, eager=True)
    def _prefix(event: KeyPressEvent) -> None:
        start_prefix()

    if keymap.prefix not in keymap.prefix_bindings:

        @kb.add(*key_sequence(keymap.prefix), filter=m.prefix_pending, eager=True)
        def _prefix_twice(event: KeyPressEvent) -> None:
            # Pressed twice, the prefix goes through to the pane (tmux send-prefix), as the key pressed:
            # prompt_toolkit's own name and data encode it where the keymap's alias (c-space) would not.
            end_prefix()
            pane = app.active_pane
            if pane is not None and pane.running:
                for press in event.key_sequence:
                    pane.terminal.send_key(press.key, press.data)

    # A repeatable key repeats only while nothing else was pressed since, within REPEAT_SECONDS.
    presses = [0]  # key presses counted since the first repeatable command ran
    repeat_from = [-1, 0.0]  # (press count, monotonic deadline) of the last repeatable command
    counting: list[object] = []

    def count_press(_: object) -> None:
        presses[0] += 1

    repeating = Condition(lambda: presses[0] == repeat_from[0] + 1 and time.monotonic() < repeat_from[1])

    def ask_first(command_line: str) -> bool:
        """Ask y/n before a key closes a pane whose program still runs; True when asked."""
        pane = app.active_pane
        if command_name(command_line) not in CONFIRM_COMMANDS or pane is None or not pane.running:
            return False
        app.confirm(
            f"/{command_line} {pane.id} ({pane.title})? y closes it, any other key keeps it",
            lambda: app.run_command_line(command_line),
            declined=f"not done: /{command_line}",
        )
        return True

    def bind_prefix(key: str, command_line: str) -> None:
        repeatable = command_name(command_line) in REPEATABLE_COMMANDS

        def run(event: KeyPressEvent) -> None:
            end_prefix()
            if app.mode == Mode.PICKER:
                app.close_overlay()  # a prefix key in the picker leaves it, then does what it does
            if ask_first(command_line):
                return
            if repeatable:
                if not counting:
                    event.app.key_processor.before_key_press += count_press
                    counting.append(count_press)
                repeat_from[:] = [presses[0], time.monotonic() + keyhelp.REPEAT_SECONDS]
            app.run_command_line(command_line)

        kb.add(*key_sequence(key), filter=m.prefix_pending, eager=True)(run)
        if repeatable:
            kb.add(*key_sequence(key), filter=m.in_work & m.no_prefix & repeating, eager=True)(run)

    for key, command_line in keymap.prefix_bindings.items():
        bind_prefix(key, command_line)

    @kb.add(Keys.Any, filter=m.prefix_pending)
    @kb.add("escape", Keys.Any, filter=m.prefix_pending)  # Alt+key: one unbound key, not Escape then key
    def _unbound_after_prefix(event: KeyPressEvent) -> None:
        end_prefix()
        shown = f"{prefix_shown} {pressed_display(event)}"
        names = " ".join(str(getattr(press.key, "value", press.key)) for press in event.key_sequence)
        hint = TMUX_HINTS.get(names)
        if hint is not None:
            app.announce(f"no binding for {shown}: {hint}")
        else:
            app.announce(f"no binding for {shown} — {prefix_shown} ? lists the keys")

    @kb.add(Keys.Any, filter=m.confirm_pending)
    @kb.add("escape", Keys.Any, filter=m.confirm_pending)
    def _answer(event: KeyPressEvent) -> None:
        # One key answers, as tmux's confirm-before: y does it, anything else does not.
        on_yes, declined = m.confirming.pop()
        release_keyboard()
        if [press.key for press in event.key_sequence] in (["y"], ["Y"]):
            app.message = None
            on_yes()
        else:
            app.announce(declined)

    # -- direct bindings (no prefix) ---------------------------------------------------------
    def bind_direct(key: str, command_line: str) -> None:
        @kb.add(*key_sequence(key), filter=m.in_work & m.no_prefix, eager=True)
        def _run(event: KeyPressEvent) -> None:
            if not ask_first(command_line):
                app.run_command_line(command_line)

    for key, command_line in keymap.direct_bindings.items():
        bind_direct(key, command_line)

    @kb.add(*key_sequence(app.escape_key), filter=m.in_work & m.no_prefix, eager=True)
    def _toggle(event: KeyPressEvent) -> None:
        app.toggle_prompt_pane()

    return kb
