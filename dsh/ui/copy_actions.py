"""Copy mode and dsh's paste buffer for one view: select, search, copy out through OSC 52, paste."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from prompt_toolkit.clipboard import InMemoryClipboard

from dsh.commands.keymap import key_display
from dsh.commands.registry import CommandError
from dsh.session.client_state import Mode
from dsh.term.copymode import CopyMode

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


class CopyActions:
    """What copy mode, the mouse's selection and `prefix ]` do on one view (DshApp forwards to these)."""

    def __init__(self, app: DshApp) -> None:
        self.app = app
        # dsh's paste buffer (copy mode, the mouse, `prefix ]`), apart from the prompt line's kill ring
        # (prompt_toolkit's clipboard: C-u, C-k, C-w, C-y), so clearing the line keeps what was copied.
        self.paste_buffer = InMemoryClipboard()
        self._last_search: tuple[str, bool] | None = None  # copy mode's last search, and whether forward

    def enter_copy_mode(self) -> None:
        app = self.app
        pane = app.active_pane
        if pane is None:
            return
        app.mode = Mode.COPY
        pane.terminal.copy = CopyMode(pane.terminal)
        app._focus_active_body()
        app.invalidate()

    def leave_copy_mode(self) -> None:
        app = self.app
        for pane in app.session.panes.values():
            pane.terminal.copy = None
        pane = app.active_pane
        if pane is not None:
            pane.terminal.scroll_to_bottom()
        app.return_keyboard()

    def copy_to_clipboards(self, text: str) -> None:
        """Put `text` on dsh's paste buffer and, through OSC 52, the outer terminal's clipboard."""
        self.paste_buffer.set_text(text)
        encoded = base64.b64encode(text.encode("utf-8", "replace")).decode("ascii")
        self.app.application.output.write_raw(f"\x1b]52;c;{encoded}\x07")

    def copy_selection(self) -> None:
        """Copy mode's selection (or the cursor's line) to dsh's clipboard and the outer terminal's."""
        pane = self.app.active_pane
        copy = pane.terminal.copy if pane is not None else None
        if copy is None:
            return
        self.copy_text(copy.selected_text(), lines=copy.whole_lines)

    def copy_text(self, text: str, *, lines: bool) -> None:
        """Copy what copy mode or the mouse selected, and leave copy mode; say what was copied."""
        app = self.app
        self.copy_to_clipboards(text)
        if app.mode == Mode.COPY:
            self.leave_copy_mode()
        else:
            app.invalidate()
        if lines:
            count = text.count("\n") + 1
            what = f"{count} line{'s' if count != 1 else ''}"
        else:
            what = f"{len(text)} character{'s' if len(text) != 1 else ''}"
        app.announce(f"copied {what} — {key_display(app.keymap.prefix)} ] pastes")

    def paste_clipboard(self) -> None:
        """Type dsh's clipboard into the active pane (bracketed when the program asked for it)."""
        app = self.app
        pane = app.active_pane
        text = self.paste_buffer.get_data().text
        if app.mode == Mode.PROMPT and app.prompt_buffer.text and text:
            # A half-typed line on the prompt: the paste goes onto it, not behind it into the pane.
            app.prompt_buffer.insert_text(text)
            return
        if pane is None or not pane.running:
            raise CommandError("no running program in the active pane to paste into")
        if not text:
            raise CommandError("the clipboard is empty: select with the mouse, or copy in copy mode (C-b [)")
        pane.terminal.paste(text)

    def copy_search(self, text: str, *, forward: bool) -> None:
        """Copy mode's / and ?: the next match after (or before) the cursor, wrapping around."""
        app = self.app
        pane = app.active_pane
        copy = pane.terminal.copy if pane is not None else None
        if copy is None or not text:
            return
        self._last_search = (text, forward)
        if not copy.search(text, forward=forward):
            app.announce(f"not found: {text}")
        app.invalidate()

    def copy_search_again(self, *, reverse: bool) -> None:
        """n (the same way as the last search) and N (the other way)."""
        if self._last_search is not None:
            text, forward = self._last_search
            self.copy_search(text, forward=forward != reverse)
            self._last_search = (text, forward)
