"""A pane's attention state and the rules that move it: reports ranked by source, one notice per
transition, a repeated ask within a minute said once.

Sources, most trusted first: the agent's own hooks, the terminal (BEL, OSC 9/777/99, the title's
spinner), the process (started, exited). A weaker source never overrides what a stronger one reported
in the last STRONGER_WINDOW seconds; after that it may (a hook that stopped reporting is not believed
for ever). Times are wall-clock seconds, as they are saved in the snapshot; a clock set back makes an
elapsed time negative, and that counts as old, so a weaker source is never shut out by it.
"""

from __future__ import annotations

from dsh.attention.states import BLOCKED, DONE, EXITED, IDLE, WORKING, valid_state
from dsh.text import sanitize
from dsh.values import Value

HOOK, TERMINAL, PROCESS = 3, 2, 1
SOURCE_NAMES = {HOOK: "hook", TERMINAL: "terminal", PROCESS: "process"}
STRONGER_WINDOW = 90.0
REPEAT_WINDOW = 60.0
MESSAGE_MAX = 200
# States a person is told about (the rest only change a glyph).
NOTIFYING = (BLOCKED, DONE)


def one_line(text: object, max_len: int = MESSAGE_MAX) -> str | None:
    """An untrusted message as one safe line: whitespace runs (newlines too) become one space, control
    and bidi characters are escaped, at most `max_len` characters. None for nothing to say."""
    if not isinstance(text, str):
        return None
    text = " ".join(text[: max_len * 8].split())
    return sanitize(text, max_len=max_len) if text else None


class Report(Value, fields=("state", "source", "message", "subagent", "quiet")):
    """What one source says of a pane now. `subagent`: a subagent's event (never a notice); `quiet`:
    change the state but tell nobody (a start, a focus)."""

    state: str
    source: int
    message: str | None
    subagent: bool
    quiet: bool

    def __init__(
        self, state: str, source: int, message: str | None = None, *, subagent: bool = False, quiet: bool = False
    ) -> None:
        self.state = state
        self.source = source
        self.message = message
        self.subagent = subagent
        self.quiet = quiet


class Attention:
    """One pane's state: what it is, since when, the one-line message, and who said so when."""

    __slots__ = ("message", "noticed", "noticed_at", "reported_at", "since", "source", "state")

    def __init__(
        self,
        state: str = IDLE,
        since: float = 0.0,
        message: str | None = None,
        source: int = PROCESS,
        reported_at: float = 0.0,
    ) -> None:
        self.state = state
        self.since = since
        self.message = message
        self.source = source
        self.reported_at = reported_at
        # The last notice given (its text and time), so the same ask repeated is said once.
        self.noticed: str | None = None
        self.noticed_at = 0.0

    def __repr__(self) -> str:
        return f"Attention({self.state!r}, since={self.since}, message={self.message!r}, source={self.source})"

    def apply(self, report: Report, now: float) -> bool | None:
        """Take a report. None: it changed nothing; False: the state changed, nobody is told; True:
        the state changed and it is a notice (a transition into blocked or done, not a repeat)."""
        if not valid_state(report.state):
            return None
        if report.source < self.source and report.state != EXITED and _recent(self.reported_at, now):
            return None  # a stronger source spoke lately (an exit is the process's to say, and final)
        if report.subagent and report.state != BLOCKED:
            return None  # a subagent's turn ending is not the agent's (Claude's Stop storms with subagents)
        message = report.message
        if message is None and report.state in (self.state, IDLE):
            message = self.message  # the same state said again, or looked at: the line stays
        same = report.state == self.state and message == self.message
        self.source = report.source
        self.reported_at = now
        if same:
            return None
        if report.state != self.state:
            self.since = now
        self.state = report.state
        self.message = message
        if report.quiet or report.subagent or report.state not in NOTIFYING:
            return False
        text = f"{report.state}:{message or ''}"
        if text == self.noticed and _within(self.noticed_at, now, REPEAT_WINDOW):
            return False
        self.noticed, self.noticed_at = text, now
        return True

    def seen(self, now: float) -> bool:
        """The user looked at the pane: done becomes idle (the message stays). True if it changed."""
        if self.state != DONE:
            return False
        self.state, self.since = IDLE, now
        return True


def _recent(at: float, now: float) -> bool:
    return _within(at, now, STRONGER_WINDOW)


def _within(at: float, now: float, window: float) -> bool:
    elapsed = now - at
    return 0.0 <= elapsed < window  # negative (a clock set back): old


__all__ = ["BLOCKED", "DONE", "EXITED", "HOOK", "IDLE", "PROCESS", "TERMINAL", "WORKING", "Attention", "Report"]
