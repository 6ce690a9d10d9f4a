"""dsh's own log files in $DSH_HOME/log (dsh.log, crash.log): appended safely, never failing the caller."""

from __future__ import annotations

import contextlib
import os

from dsh.home import ensure_home_dir
from dsh.safefile import append_line, open_append
from dsh.store.timefmt import now_iso
from dsh.text import sanitize

LOG_FOLDER = "log"


def log_line(message: str, name: str = "dsh.log") -> None:
    """Append `<time> <message>` (escaped) to $DSH_HOME/log/<name>; logging never fails the caller."""
    with contextlib.suppress(Exception):
        folder = ensure_home_dir(LOG_FOLDER)
        append_line(folder / name, f"{now_iso()} {sanitize(message)}\n".encode())


def log_crash(report: str) -> str:
    """Append a crash report (a traceback) to $DSH_HOME/log/crash.log; returns where it went."""
    try:
        path = ensure_home_dir(LOG_FOLDER) / "crash.log"
        append_line(path, (report.rstrip("\n") + "\n\n").encode("utf-8", "backslashreplace"))
    except Exception:
        return "nowhere: the log could not be written"
    return str(path)


def stderr_to(name: str) -> bool:
    """Send this process's stderr (fd 2) to $DSH_HOME/log/<name> from here on (a daemon's errors).
    False, and stderr left as it was, when the log cannot be opened."""
    try:
        fd = open_append(ensure_home_dir(LOG_FOLDER) / name)  # never through a link or a FIFO; 0600
    except OSError:
        return False
    os.dup2(fd, 2)
    os.close(fd)
    return True
