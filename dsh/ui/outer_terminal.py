"""What one view passes to its client's terminal beside the frames: bell, OSC 52, cursor shape, keypad, title."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from dsh.session.client_state import Mode
from dsh.ui.clipboard import write_clipboard

if TYPE_CHECKING:
    from dsh.ui.app import DshApp

# A pane ringing its bell over and over rings the user's terminal at most once in this many seconds.
BELL_GAP = 0.1


class OuterTerminal:
    """The client's terminal as the focused pane's program would have it (DshApp forwards to these)."""

    def __init__(self, app: DshApp) -> None:
        self.app = app
        self._last_bell = 0.0

    def ring_bell(self) -> None:
        """A BEL from a pane on this screen, on to the user's terminal: at once (between frames), and
        at most one in BELL_GAP seconds (a program printing BELs in a loop rings once, not thousands)."""
        now = time.monotonic()
        if now - self._last_bell < BELL_GAP:
            return
        self._last_bell = now
        output = self.app.application.output
        output.write_raw("\x07")
        output.flush()

    def on_clipboard(self, pane_id: str, selections: str, data: str) -> None:
        """A program's OSC 52 copy, passed on to the client's terminal as tmux's set-clipboard does
        (`[term] clipboard`: "external" passes it on, "on" also makes it dsh's paste buffer, "off"
        drops it). It goes as sent, not in tmux's passthrough: an outer tmux takes it by its own
        set-clipboard (a buffer, and its terminal's clipboard) where passthrough would bypass that."""
        app = self.app
        write_clipboard(app.application, app.session.config, selections, data, buffer=app.paste_buffer)

    def cursor_shape(self) -> int:
        """The DECSCUSR shape of the pane the keys go to; 0 (the terminal's own) on the prompt."""
        pane = self.app.active_pane if self.app.mode == Mode.PANE else None
        return pane.terminal.screen.cursor_shape if pane is not None else 0

    def title(self) -> str | None:
        """The title for the user's terminal: the focused pane's, as its header shows it (None: the
        terminal keeps its own, `ui.set_title = false`)."""
        if not self.app.config.flag("ui.set_title"):
            return None
        pane = self.app.active_pane
        return pane.title if pane is not None else self.app.session.display_title

    def keypad(self) -> bool:
        """The keys go to a pane whose program asked for application keypad mode (DECKPAM)."""
        pane = self.app.active_pane if self.app.mode == Mode.PANE else None
        return pane is not None and pane.terminal is not None and pane.terminal.app_keypad
