"""What commands may ask of the client attached to a session: the part of a command only a screen can do."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dsh.commands.registry import Registry
    from dsh.session.session import Session


class Client(Protocol):
    """The context every command handler gets: the session it acts on, and the client that typed it."""

    session: Session
    registry: Registry

    def announce(self, text: str, *, error: bool = False) -> None: ...

    def ask(self, label: str, action: Callable[[str], None], default: str = "") -> None:
        """Ask for a line on the prompt; `action` gets the answer (not when the user gives up)."""

    def show_help(self, topic: str | None = None) -> None: ...

    def open_picker(self) -> None: ...

    def enter_copy_mode(self) -> None: ...

    def paste_clipboard(self) -> None: ...

    def enter_prompt(self) -> None: ...

    def enter_pane(self) -> None: ...

    def detach(self) -> None:
        """Leave the session running and end this client."""
