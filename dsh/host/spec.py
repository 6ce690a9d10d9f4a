"""What a host is started for (its spec), the pipe on which it tells its starter it is ready, and the
request a client sends the spawner (host/spawner.py) for one."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

    # What a started host runs: the client and the spawner are given it (neither knows how hosts draw).
    HostEntry = Callable[["HostSpec", "ReadyPipe"], NoReturn]

READY = "ready"
FAILED = "error"
SPAWNER_VERSION = 1
STALE = "stale"
# The spawner's first line once it has read a request and is forking its host: the ready line follows.
# A client that hears nothing for a moment bypasses it (a stopped or wedged spawner) and withdraws.
TAKEN = "taken"
# The spawner cannot serve this request (another version, a bad request, no fork): start directly.
REFUSED = "refused"


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
        detached: bool = False,
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
        # Started with no client to come (`dsh new -d`): the log says detached from the start.
        self.detached = detached

    def to_dict(self) -> dict[str, object]:
        """The spec as JSON-ready fields (what a client sends the spawner)."""
        return dict(vars(self))

    @classmethod
    def from_dict(cls, fields: object) -> HostSpec:
        """A spec from what `to_dict` gave, checked field by field; ValueError names a bad one."""
        if not isinstance(fields, dict):
            raise ValueError("the host spec is not an object")
        cwd = fields.get("cwd")
        if not isinstance(cwd, str) or not cwd:
            raise ValueError("the host spec has no cwd")
        spec = cls(cwd)
        for name, kind in _FIELD_KINDS.items():
            if name not in fields or fields[name] is None:
                continue
            value = fields[name]
            if kind is list:
                if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                    raise ValueError(f"the host spec's {name} is not a list of strings")
            elif not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError(f"the host spec's {name} is not a {kind.__name__}")
            setattr(spec, name, list(value) if kind is list else value)
        from dsh.protocol import MAX_COLS, MAX_ROWS

        if spec.rows < 1 or spec.cols < 1:
            raise ValueError("the host spec's window size is not positive")
        # As a hello's: a 100000-column window is drawn in its corner, not allocated.
        spec.rows, spec.cols = min(spec.rows, MAX_ROWS), min(spec.cols, MAX_COLS)
        return spec


_FIELD_KINDS: dict[str, type] = {
    "session_id": str,
    "options": list,
    "rows": int,
    "cols": int,
    "open_picker": bool,
    "announcements": list,
    "launch_dir": str,
    "first_argv": list,
    "detached": bool,
}


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

    @property
    def answered(self) -> bool:
        """Whether the starter has had its line (or the pipe is gone)."""
        return self._fd is None

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


def install_id() -> list[str]:
    """Which dsh this process runs: its interpreter and its package folder."""
    return [sys.executable, os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]


def spawner_request(spec: HostSpec, env: dict[str, str], context: dict[str, object] | None = None) -> bytes:
    """The line a client sends the spawner: the spec, and the environment, umask and limits
    (dsh/inherit.py) the host is to have."""
    body: dict[str, Any] = {
        "spawner": SPAWNER_VERSION,
        "install": install_id(),
        "spec": spec.to_dict(),
        "env": env,
        "context": context or {},
    }
    return json.dumps(body, ensure_ascii=True).encode("ascii") + b"\n"


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextlib.contextmanager
def spawner_lock(path: Path) -> Iterator[None]:
    """Held while a spawner's socket is made or removed, so two clients never start two spawners and a
    spawner leaving never removes its successor's socket."""
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
