"""Key bindings: the prefix table, direct bindings, and routing every other key to the right place."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from prompt_toolkit.buffer import CompletionState
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from dsh.commands.keymap import Keymap, command_name, key_display, key_sequence, normalize_key

if TYPE_CHECKING:
    from dsh.commands.registry import Registry
    from dsh.ui.app import DshApp


DEFAULT_ESCAPE_KEY = "c-]"
# Commands whose prefix keys repeat without the prefix for a moment, as tmux's `bind -r` resize keys do:
# C-b C-Left C-Left C-Left.
REPEATABLE_COMMANDS = frozenset({"resize"})
REPEAT_SECONDS = 0.5
# Commands a key asks about first while the pane's program still runs, as tmux's x asks before kill-pane.
CONFIRM_COMMANDS = frozenset({"close"})

# What dsh offers instead of a tmux default binding it does not have, said when that key is pressed
# after the prefix and the keymap leaves it unbound.
TMUX_HINTS = {
    ":": "commands go on the prompt line: type /help there",
    "&": "close panes one by one with /close; the last one closes the tab",
    "l": "tabs: n and p for the next and previous, 0…9 for a number",
    "w": "tabs are listed in the tab bar; n, p and 0…9 switch",
    "s": "/sessions lists the sessions to resume",
    "$": "/rename TITLE names this session",
    "q": "each pane's id is in its header",
    "pageup": "[ enters copy mode, where PgUp scrolls",
}


# The keys bound in this module by hand (not from the keymap), as help lists them.
PROMPT_KEYS = [
    ("Enter", "run a /command, or send the line to the active pane"),
    ("//text", "send /text to the pane as a line"),
    ("Tab", "complete a /command and its arguments"),
    ("Up Down", "earlier and later lines (kept per workspace)"),
    ("PgUp PgDn", "scroll the active pane's history"),
    ("C-c", "clear the line; on an empty line, interrupt the pane's program"),
    ("C-d", "on an empty line, end-of-file to the pane's program"),
]
COPY_KEYS = [
    ("Up Down k j", "move the line cursor (the view scrolls with it)"),
    ("PgUp PgDn C-b C-f", "a page up or down"),
    ("g G Home End", "top and bottom of the history"),
    ("Space v", "start (or drop) a selection at the cursor line"),
    ("Enter y", "copy the selected lines (or the cursor line) and leave; C-b ] pastes"),
    ("/ ?", "search the history (then n, N for the next and previous match)"),
    ("q Escape", "leave copy mode"),
]


def key_help_lines(keymap: Keymap, registry: Registry | None, escape_key: str) -> list[str]:
    """Every key binding for help: the keymap's own table (each command's summary shown once per run of
    rows), then the keys of the prompt line and of copy mode."""
    prefix = key_display(keymap.prefix)
    lines = [f"Keys (prefix {prefix}, then the key):"]
    previous = None
    for key, line, summary in keymap.describe(registry):
        name = command_name(line) if line else None
        shown = f"/{line}" if line else ""
        text = summary if name is None or name != previous else ""
        if name in CONFIRM_COMMANDS:
            text = f"{text} (asks y/n)".strip()
        previous = name
        lines.append(f"  {key:<16} {shown:<20} {text}".rstrip())
    toggle = key_display(escape_key)
    lines.append(f"  {toggle:<16} {'':<20} move the keyboard between the prompt and the pane")
    repeat = [k for k, line in keymap.prefix_bindings.items() if command_name(line) in REPEATABLE_COMMANDS]
    if repeat:
        again = key_display(repeat[0])
        example = f"{prefix} {again} {again} …"
        lines.append(f"  ({again} and the other /resize keys repeat without {prefix}: {example})")
    lines += ["", "On the prompt line:"]
    lines += [f"  {key:<16} {text}" for key, text in PROMPT_KEYS]
    lines += ["", f"In copy mode ({prefix} [ or /copy):"]
    lines += [f"  {key:<20} {text}" for key, text in COPY_KEYS]
    return lines


def pressed_display(event: KeyPressEvent) -> str:
    """The keys of `event` as help shows them (`C-x`, `M-Left`, `Q`)."""
    names = " ".join(str(getattr(press.key, "value", press.key)) for press in event.key_sequence)
    if not names:
        return "?"
    return key_display(normalize_key(names) or names)  # c-m is shown as Enter, c-i as Tab


def checked_escape_key(app: DshApp) -> str:
    """The configured key that moves between prompt and pane, or the default with a message if unusable."""
    configured = app.escape_key
    key = normalize_key(configured)
    problem = ""
    if key is None:
        problem = "is not a key name"
    elif key == app.keymap.prefix:
        problem = "is also the prefix key"
    elif key in app.keymap.direct_bindings:
        problem = f"is also bound to /{app.keymap.direct_bindings[key]}"
    if not problem:
        return key  # type: ignore[return-value]
    app.announce(f"ui.escape_key {configured!r} {problem} — using {key_display(DEFAULT_ESCAPE_KEY)}",
                 error=True)
    return DEFAULT_ESCAPE_KEY


def build_key_bindings(app: DshApp) -> KeyBindings:
    kb = KeyBindings()
    keymap = app.keymap
    app.escape_key = checked_escape_key(app)
    prefix_shown = key_display(keymap.prefix)

    confirming: list[str] = []  # the command line a key asked about, waiting for y
    prefix_pending = Condition(lambda: app.prefix_pending)
    confirm_pending = Condition(lambda: bool(confirming))
    no_prefix = ~prefix_pending & ~confirm_pending
    in_prompt = Condition(lambda: app.mode == "prompt")
    in_pane = Condition(lambda: app.mode == "pane")
    in_copy = Condition(lambda: app.mode == "copy")
    in_help = Condition(lambda: app.mode == "help")
    in_work = Condition(lambda: app.mode in ("prompt", "pane"))
    pane_is_tombstone = Condition(lambda: bool(app.active_pane and app.active_pane.startable))

    # -- the prefix ------------------------------------------------------------------------
    # While the prefix (or a y/n question) waits for its key, the keyboard focus leaves the prompt line for
    # the active pane: prompt_toolkit's line-editing bindings (Enter, Tab, C-a, arrows ...) are bound to
    # specific keys and would win over the catch-alls below, editing the line while the prefix stayed.
    def hold_keyboard() -> None:
        pane = app.active_pane
        slot = app.slots.get(pane.id) if pane is not None else None
        if app.mode == "prompt" and slot is not None:
            try:
                app.layout.focus(slot.body)
            except ValueError:
                pass
        app.invalidate()

    def release_keyboard() -> None:
        if app.mode == "prompt" and not app.layout.has_focus(app.prompt_window):
            app.layout.focus(app.prompt_window)
        app.invalidate()

    def start_prefix() -> None:
        app.prefix_pending = True
        hold_keyboard()

    def end_prefix() -> None:
        app.prefix_pending = False
        release_keyboard()

    @kb.add(*key_sequence(keymap.prefix), filter=in_work & no_prefix, eager=True)
    def _prefix(event: KeyPressEvent) -> None:
        start_prefix()

    if keymap.prefix not in keymap.prefix_bindings:

        @kb.add(*key_sequence(keymap.prefix), filter=prefix_pending, eager=True)
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
        confirming[:] = [command_line]
        hold_keyboard()
        app.announce(f"/{command_line} {pane.id} ({pane.title})? y closes it, any other key keeps it")
        return True

    def bind_prefix(key: str, command_line: str) -> None:
        repeatable = command_name(command_line) in REPEATABLE_COMMANDS

        def run(event: KeyPressEvent) -> None:
            end_prefix()
            if ask_first(command_line):
                return
            if repeatable:
                if not counting:
                    event.app.key_processor.before_key_press += count_press
                    counting.append(count_press)
                repeat_from[:] = [presses[0], time.monotonic() + REPEAT_SECONDS]
            app.run_command_line(command_line)

        kb.add(*key_sequence(key), filter=prefix_pending, eager=True)(run)
        if repeatable:
            kb.add(*key_sequence(key), filter=in_work & no_prefix & repeating, eager=True)(run)

    for key, command_line in keymap.prefix_bindings.items():
        bind_prefix(key, command_line)

    @kb.add(Keys.Any, filter=prefix_pending)
    @kb.add("escape", Keys.Any, filter=prefix_pending)  # Alt+key: one unbound key, not Escape then key
    def _unbound_after_prefix(event: KeyPressEvent) -> None:
        end_prefix()
        shown = f"{prefix_shown} {pressed_display(event)}"
        names = " ".join(str(getattr(press.key, "value", press.key)) for press in event.key_sequence)
        hint = TMUX_HINTS.get(names)
        if hint is not None:
            app.announce(f"no binding for {shown}: {hint}")
        else:
            app.announce(f"no binding for {shown} — {prefix_shown} ? lists the keys")

    @kb.add(Keys.Any, filter=confirm_pending)
    @kb.add("escape", Keys.Any, filter=confirm_pending)
    def _answer(event: KeyPressEvent) -> None:
        command_line = confirming.pop()
        release_keyboard()
        if [press.key for press in event.key_sequence] in (["y"], ["Y"]):
            app.message = None
            app.run_command_line(command_line)
        else:
            app.announce(f"not done: /{command_line}")

    # -- direct bindings (no prefix) ---------------------------------------------------------
    def bind_direct(key: str, command_line: str) -> None:
        @kb.add(*key_sequence(key), filter=in_work & no_prefix, eager=True)
        def _run(event: KeyPressEvent) -> None:
            if not ask_first(command_line):
                app.run_command_line(command_line)

    for key, command_line in keymap.direct_bindings.items():
        bind_direct(key, command_line)

    @kb.add(*key_sequence(app.escape_key), filter=in_work & no_prefix, eager=True)
    def _toggle(event: KeyPressEvent) -> None:
        app.toggle_prompt_pane()

    # -- inside a pane: every other key goes to the child -----------------------------------
    @kb.add("enter", filter=in_pane & no_prefix & pane_is_tombstone)
    def _start_tombstone(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is not None:
            app.start_tombstone(pane)

    @kb.add(Keys.Any, filter=in_pane & no_prefix)
    def _to_pane(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is None or not pane.running:
            return
        if pane.terminal.scroll_offset:
            pane.terminal.scroll_to_bottom()
        app.session.used = True
        for press in event.key_sequence:
            pane.terminal.send_key(press.key, press.data)

    @kb.add(Keys.BracketedPaste, filter=in_pane & no_prefix)
    def _paste(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is not None and pane.running:
            app.session.used = True
            pane.terminal.paste(event.data)

    # -- on the prompt ------------------------------------------------------------------------
    @kb.add("c-c", filter=in_prompt & no_prefix)
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = app.prompt_buffer
        if app._pending_prompt_action is not None:
            app.end_ask()
            return
        if buffer.text:
            buffer.reset()
            return
        pane = app.active_pane
        if pane is not None and pane.running:
            pane.terminal.write(b"\x03")

    @kb.add("tab", filter=in_prompt & no_prefix)
    def _complete(event: KeyPressEvent) -> None:
        # Completions are computed here, at once: prompt_toolkit drops a Tab that arrives while the
        # complete-while-typing task for the previous key is still pending (fast typing, pasted text).
        buffer = app.prompt_buffer
        state = buffer.complete_state
        if state is not None and state.completions:
            buffer.complete_next()
            return
        completer = buffer.completer
        if completer is None:
            return
        found = list(completer.get_completions(buffer.document, CompleteEvent(completion_requested=True)))
        if len(found) == 1:
            buffer.apply_completion(found[0])
        elif found:
            buffer.complete_state = CompletionState(buffer.document, found)
            buffer.go_to_completion(0)

    empty_prompt = Condition(lambda: not app.prompt_buffer.text)

    @kb.add("c-d", filter=in_prompt & no_prefix & empty_prompt)
    def _eof(event: KeyPressEvent) -> None:
        # Like C-c above: on an empty prompt line the key is meant for the program in the pane.
        pane = app.active_pane
        if pane is not None and pane.running and app._pending_prompt_action is None:
            pane.terminal.write(b"\x04")

    asking = Condition(lambda: app._pending_prompt_action is not None)

    @kb.add("escape", filter=in_prompt & no_prefix & asking)
    def _cancel_ask(event: KeyPressEvent) -> None:
        app.end_ask()

    @kb.add("pageup", filter=in_prompt & no_prefix)
    def _prompt_pageup(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is not None:
            pane.terminal.scroll_by(max(1, pane.terminal.rows // 2))
            app.invalidate()

    @kb.add("pagedown", filter=in_prompt & no_prefix)
    def _prompt_pagedown(event: KeyPressEvent) -> None:
        pane = app.active_pane
        if pane is not None:
            pane.terminal.scroll_by(-max(1, pane.terminal.rows // 2))
            app.invalidate()

    # -- copy mode: a line cursor over the active pane's history; select, copy ------------------
    def copy_mode():  # type: ignore[no-untyped-def]
        pane = app.active_pane
        return pane.terminal.copy if pane is not None else None

    def move(lines: int) -> None:
        copy = copy_mode()
        if copy is not None:
            copy.move(lines)
            app.invalidate()

    def page() -> int:
        pane = app.active_pane
        return max(1, (pane.terminal.rows if pane else 20) - 1)

    @kb.add("up", filter=in_copy)
    @kb.add("k", filter=in_copy)
    def _copy_up(event: KeyPressEvent) -> None:
        move(1)

    @kb.add("down", filter=in_copy)
    @kb.add("j", filter=in_copy)
    def _copy_down(event: KeyPressEvent) -> None:
        move(-1)

    @kb.add("pageup", filter=in_copy)
    @kb.add("c-b", filter=in_copy)
    def _copy_pageup(event: KeyPressEvent) -> None:
        move(page())

    @kb.add("pagedown", filter=in_copy)
    @kb.add("c-f", filter=in_copy)
    def _copy_pagedown(event: KeyPressEvent) -> None:
        move(-page())

    @kb.add("g", filter=in_copy)
    @kb.add("home", filter=in_copy)
    def _copy_top(event: KeyPressEvent) -> None:
        move(10**9)

    @kb.add("G", filter=in_copy)
    @kb.add("end", filter=in_copy)
    def _copy_bottom(event: KeyPressEvent) -> None:
        move(-(10**9))

    @kb.add("space", filter=in_copy)
    @kb.add("v", filter=in_copy)
    def _copy_select(event: KeyPressEvent) -> None:
        copy = copy_mode()
        if copy is not None:
            copy.toggle_selection()
            app.invalidate()

    @kb.add("enter", filter=in_copy)
    @kb.add("y", filter=in_copy)
    def _copy_yank(event: KeyPressEvent) -> None:
        app.copy_selection()

    @kb.add("/", filter=in_copy)
    @kb.add("?", filter=in_copy)
    def _copy_search(event: KeyPressEvent) -> None:
        backwards = True  # copy mode starts at the bottom, so both keys look back into history

        def search(text: str) -> None:
            app.mode = "copy"
            app._focus_active_body()
            app.search_history(text, backwards=backwards)

        app.ask("search history: ", search)

    @kb.add("n", filter=in_copy)
    def _copy_next(event: KeyPressEvent) -> None:
        text = getattr(app, "_last_search", "")
        if text:
            app.search_history(text, backwards=True)

    @kb.add("N", filter=in_copy)
    def _copy_prev(event: KeyPressEvent) -> None:
        text = getattr(app, "_last_search", "")
        if text:
            app.search_history(text, backwards=False)

    @kb.add("q", filter=in_copy)
    @kb.add("escape", filter=in_copy)
    def _copy_quit(event: KeyPressEvent) -> None:
        app.leave_copy_mode()

    @kb.add(Keys.Any, filter=in_copy)
    def _copy_other(event: KeyPressEvent) -> None:
        pass

    # -- help overlay --------------------------------------------------------------------------
    # The keys of a pager (less, tmux copy mode), which is what help looks like.
    @kb.add("up", filter=in_help)
    @kb.add("k", filter=in_help)
    def _help_up(event: KeyPressEvent) -> None:
        app.scroll_help(-1)

    @kb.add("down", filter=in_help)
    @kb.add("j", filter=in_help)
    def _help_down(event: KeyPressEvent) -> None:
        app.scroll_help(1)

    @kb.add("pageup", filter=in_help)
    @kb.add("b", filter=in_help)
    @kb.add("c-b", filter=in_help)
    def _help_pageup(event: KeyPressEvent) -> None:
        app.scroll_help(-10)

    @kb.add("pagedown", filter=in_help)
    @kb.add("space", filter=in_help)
    @kb.add("c-f", filter=in_help)
    def _help_pagedown(event: KeyPressEvent) -> None:
        app.scroll_help(10)

    @kb.add("home", filter=in_help)
    @kb.add("g", filter=in_help)
    def _help_top(event: KeyPressEvent) -> None:
        app.scroll_help(-len(app.help_lines))

    @kb.add("end", filter=in_help)
    @kb.add("G", filter=in_help)
    def _help_bottom(event: KeyPressEvent) -> None:
        app.scroll_help(len(app.help_lines))

    @kb.add("q", filter=in_help)
    @kb.add("escape", filter=in_help)
    @kb.add("enter", filter=in_help)
    def _help_close(event: KeyPressEvent) -> None:
        app.close_overlay()

    @kb.add(Keys.Any, filter=in_help)
    def _help_other(event: KeyPressEvent) -> None:
        pass

    return kb
