"""What a host is started for (its spec), and the pipe on which it tells its starter it is ready."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

READY = "ready"
FAILED = "error"


@dataclass
class HostSpec:
    """A new session in `cwd` (session_id None), or the session `session_id` (restored if not running)."""

    cwd: str
    session_id: str | None = None
    options: list[str] = field(default_factory=list)
    rows: int = 24
    cols: int = 80
    open_picker: bool = False
    announcements: list[str] = field(default_factory=list)
    # Where the client was started: an explicit id may still name a legacy ./.sessions log there.
    launch_dir: str | None = None
    # The first pane of a new session runs this instead of the login shell (an agent's resume).
    first_argv: list[str] | None = None


class ReadyPipe:
    """The write end of the starter's pipe: one line, `ready <id>` or `error <message>`, then closed."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def _say(self, line: str) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.write(fd, (line.replace("\n", " ") + "\n").encode("utf-8", "replace"))
        with contextlib.suppress(OSError):
            os.close(fd)

    def succeed(self, session_id: str) -> None:
        self._say(f"{READY} {session_id}")

    def fail(self, message: str) -> None:
        self._say(f"{FAILED} {message}")


def parse_ready(line: str) -> tuple[bool, str]:
    """(True, session id) or (False, the host's message) from what a host wrote on its ready pipe."""
    word, _, rest = line.strip().partition(" ")
    if word == READY and rest:
        return True, rest
    if word == FAILED:
        return False, rest or "the session host failed to start"
    return False, "the session host ended before it was ready (see $DSH_HOME/log/)"
