"""Copy mode's keys: a cursor over the active pane's history and screen; select, search, copy.

vi's keys by default, emacs's with `ui.copy_keys = "emacs"` (the tables are in dsh.ui.copy_keys)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from dsh.commands.keymap import key_sequence
from dsh.term.copymode import CopyMode
from dsh.term.selection import BLOCK, CHAR, LINE
from dsh.ui.copy_keys import copy_keys

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.bindings.modes import Modes


def _motions(app: DshApp) -> dict[str, Callable[[CopyMode], object]]:
    """The actions that only move the cursor or change the selection."""

    def half(copy: CopyMode) -> int:
        return max(1, copy.terminal.rows // 2)

    def page(copy: CopyMode) -> int:
        return max(1, copy.terminal.rows - 1)

    def prompt(found: bool) -> None:
        if not found:
            app.announce("no prompt that way: only a shell with dsh's integration marks its prompts")

    return {
        "left": CopyMode.left,
        "right": CopyMode.right,
        "up": lambda c: c.move(1),
        "down": lambda c: c.move(-1),
        "word": CopyMode.word_forward,
        "word_back": CopyMode.word_backward,
        "word_end": CopyMode.word_end,
        "WORD": lambda c: c.word_forward(big=True),
        "WORD_back": lambda c: c.word_backward(big=True),
        "WORD_end": lambda c: c.word_end(big=True),
        "line_start": CopyMode.line_start,
        "first_nonblank": CopyMode.first_nonblank,
        "line_end": CopyMode.line_end,
        "top": CopyMode.top,
        "bottom": CopyMode.bottom,
        "view_top": lambda c: c.view_line("top"),
        "view_middle": lambda c: c.view_line("middle"),
        "view_bottom": lambda c: c.view_line("bottom"),
        "half_up": lambda c: c.scroll(half(c)),
        "half_down": lambda c: c.scroll(-half(c)),
        "page_up": lambda c: c.scroll(page(c)),
        "page_down": lambda c: c.scroll(-page(c)),
        "select_char": lambda c: c.select(CHAR),
        "select_line": lambda c: c.select(LINE),
        "select_block": lambda c: c.select(BLOCK),
        "begin_selection": CopyMode.begin_selection,
        "toggle_block": CopyMode.toggle_block,
        "clear_selection": CopyMode.clear_selection,
        "other_end": CopyMode.other_end,
        "prompt_previous": lambda c: prompt(c.previous_prompt()),
        "prompt_next": lambda c: prompt(c.next_prompt()),
    }


def copy_bindings(app: DshApp, m: Modes) -> KeyBindings:
    kb = KeyBindings()
    motions = _motions(app)

    def copy_mode() -> CopyMode | None:
        pane = app.active_pane
        return pane.terminal.copy if pane is not None else None

    def motion(action: Callable[[CopyMode], object]) -> Callable[[KeyPressEvent], None]:
        def run(event: KeyPressEvent) -> None:
            copy = copy_mode()
            if copy is not None:
                action(copy)
                app.invalidate()

        return run

    def search(forward: bool) -> Callable[[KeyPressEvent], None]:
        def run(event: KeyPressEvent) -> None:
            def found(text: str) -> None:
                app.copy_search(text, forward=forward)

            app.ask("search down: " if forward else "search up: ", found)

        return run

    others: dict[str, Callable[[KeyPressEvent], None]] = {
        "copy": lambda event: app.copy_selection(),
        "leave": lambda event: app.leave_copy_mode(),
        "search_forward": search(True),
        "search_backward": search(False),
        "search_again": lambda event: app.copy_search_again(reverse=False),
        "search_reverse": lambda event: app.copy_search_again(reverse=True),
    }
    for key, action in copy_keys(app.copy_keys).items():
        handler = others.get(action) or motion(motions[action])
        kb.add(*key_sequence(key), filter=m.in_copy)(handler)

    @kb.add(Keys.Any, filter=m.in_copy)
    def _copy_other(event: KeyPressEvent) -> None:
        pass

    return kb
