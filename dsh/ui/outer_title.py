"""The client's terminal's title follows the focused pane's (OSC 2), as a program run there would set it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dsh.text import sanitize

__all__ = ["TitleMirror"]

TITLE_MAX = 120
# The terminal's own title back from its title stack, and saved again for the client's last pop.
OWN_TITLE = "\x1b[23;0t\x1b[22;0t"


class TitleMirror:
    """Before each frame, set the client's terminal's title to `title()` (the focused pane's, as its
    header shows it) when it changed; `title()` None: the terminal keeps its own (`ui.set_title`
    off). The client saves the terminal's own title when it starts and puts it back when it ends
    (XTWINOPS 22 and 23, client/session_flow.py)."""

    def __init__(self, title: Callable[[], str | None]) -> None:
        self._title = title
        self.sent: str | None = None

    def before_render(self, app: Any) -> None:
        wanted = self._title()
        if wanted is None:
            if self.sent is not None:  # turned off by /reload: the terminal's own title again
                app.output.write_raw(OWN_TITLE)
                self.sent = None
            return
        title = sanitize(wanted, max_len=TITLE_MAX)  # a pane's title is a program's text
        if title != self.sent:
            app.output.write_raw(f"\x1b]2;{title}\x07")
            self.sent = title
