"""One client's view state as the chrome reads it: the keyboard's mode (an Enum that compares equal
to its name), and the few things the status line, tab bar and headers show."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from dsh.session.client_state import WORK_MODES, Mode

if TYPE_CHECKING:
    from dsh.commands.keymap import Keymap
    from dsh.session.pane import Pane
    from dsh.session.session import Session


class Message(Protocol):
    text: str
    error: bool


class ViewState(Protocol):
    """What the chrome (dsh/ui/chrome.py) and the key help read of a view: it draws from this, and
    never reaches into the Application (so the view imports the chrome, not the other way round)."""

    session: Session
    mode: Mode
    prefix_pending: bool
    keymap: Keymap
    escape_key: str
    copy_keys: str
    too_small: bool

    @property
    def message(self) -> Message | None: ...

    @property
    def active_pane(self) -> Pane | None: ...

    def announce(self, text: str, *, error: bool = False) -> None: ...


__all__ = ["WORK_MODES", "Message", "Mode", "ViewState"]
