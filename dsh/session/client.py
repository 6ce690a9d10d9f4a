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

    def confirm(self, question: str, on_yes: Callable[[], object], *, declined: str = "not done") -> None:
        """A y/n question answered by one key: `on_yes` runs on y; otherwise `declined` is said."""

    def show_help(self, topic: str | None = None) -> None: ...

    def run_command_line(self, line: str) -> None:
        """Run a command line (`split -h`, with or without its /); a failure is a message."""

    def open_picker(self) -> None: ...

    def enter_copy_mode(self) -> None: ...

    def paste_clipboard(self) -> None: ...

    def enter_prompt(self) -> None: ...

    def enter_pane(self) -> None: ...

    def reload_config(self) -> None:
        """Read the config again and apply its keys to this client."""

    def open_tree(self) -> None:
        """Show this session's tabs and panes as a tree with a thumbnail of the selected pane."""

    def switch_session(self, session_id: str) -> None:
        """Move this client to another session (its workspace checked, as /resume does)."""

    def detach(self) -> None:
        """Leave the session running and end this client."""
