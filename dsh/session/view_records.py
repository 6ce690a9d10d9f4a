"""What one client's view and its host pass each other: a message to show, a move elsewhere, why the view ended."""

from __future__ import annotations

from enum import StrEnum

from dsh.values import Value


class EndReason(StrEnum):
    """Why a client's view ended (ViewResult.reason), which its host's connection acts on."""

    RUNNING = ""  # not ended yet
    ENDED = "ended"  # the session ended
    DETACHED = "detached"  # the client detached (or hopped to another machine, to come back)
    SWITCH = "switch"  # the client moves to another session
    TAKEN = "taken"  # another client took the session over
    GONE = "gone"  # the client was lost
    FAILED = "failed"  # the view could not run (a bug; the session runs on)


class Announcement(Value, fields=("text", "error")):
    text: str
    error: bool

    def __init__(self, text: str, error: bool = False) -> None:
        self.text = text
        self.error = error


class Switch(Value, fields=("session_id", "cwd", "first_argv", "remote")):
    """What the client should do after the view ended: attach another session (a /resume), or, with no
    id, start a new session in `cwd` whose first pane runs `first_argv` (an agent conversation); with
    `remote`, hand the terminal to that command (ssh to another machine's dsh) and come back here."""

    session_id: str | None
    cwd: str
    first_argv: list[str] | None
    remote: list[str] | None

    def __init__(
        self,
        session_id: str | None,
        cwd: str,
        first_argv: list[str] | None = None,
        remote: list[str] | None = None,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.first_argv = first_argv
        self.remote = remote


class ViewResult(Value, fields=("reason", "switch")):
    """Why the view ended: the session ended, the client detached, or the client moves to `switch`."""

    reason: EndReason
    switch: Switch | None

    def __init__(self, reason: EndReason = EndReason.ENDED, switch: Switch | None = None) -> None:
        self.reason = reason
        self.switch = switch
