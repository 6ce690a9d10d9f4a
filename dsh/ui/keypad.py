"""The client's terminal's keypad mode follows the pane the keys go to (DECKPAM / DECKPNM), as tmux's does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["KeypadMirror"]

APPLICATION = "\x1b="  # DECKPAM: the keypad sends SS3 p..y, M, k …
NUMERIC = "\x1b>"  # DECKPNM: it types digits, Enter …


class KeypadMirror:
    """Before each frame, put the client's terminal in application keypad mode while `wanted()` (the
    keys go to a pane whose program asked for it), in numeric mode otherwise; written only when it
    changes, and once at the first frame (a view before this one may have left it either way)."""

    def __init__(self, wanted: Callable[[], bool]) -> None:
        self._wanted = wanted
        self.sent: bool | None = None

    @property
    def on(self) -> bool:
        """The client's terminal is (as far as dsh told it) in application keypad mode."""
        return bool(self.sent)

    def before_render(self, app: Any) -> None:
        want = self._wanted()
        if want is not self.sent:
            app.output.write_raw(APPLICATION if want else NUMERIC)
            self.sent = want
