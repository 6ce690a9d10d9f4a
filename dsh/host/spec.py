"""What a host is started for (its spec), and the pipe on which it tells its starter it is ready."""

from __future__ import annotations

import contextlib
import os

READY = "ready"
FAILED = "error"


class HostSpec:
    """A new session in `cwd` (session_id None), or the session `session_id` (restored if not running).

    A plain class: the client builds one on its start-up path, where importing dataclasses costs more
    than the whole handshake.
    """

    def __init__(
        self,
        cwd: str,
        session_id: str | None = None,
        *,
        options: list[str] | None = None,
        rows: int = 24,
        cols: int = 80,
        open_picker: bool = False,
        announcements: list[str] | None = None,
        launch_dir: str | None = None,
        first_argv: list[str] | None = None,
    ) -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.options = list(options or [])
        self.rows = rows
        self.cols = cols
        self.open_picker = open_picker
        self.announcements = list(announcements or [])
        # Where the client was started: an explicit id may still name a legacy ./.sessions log there.
        self.launch_dir = launch_dir
        # The first pane of a new session runs this instead of the login shell (an agent's resume).
        self.first_argv = first_argv


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
