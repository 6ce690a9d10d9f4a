"""Becoming a daemon in a forked child: a new session, a second fork, stdio on /dev/null, nothing inherited."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterable

# Signals the forking process may have handled or ignored; a daemon starts from the defaults.
_SIGNALS_TO_RESET = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGWINCH,
    signal.SIGTSTP,
    signal.SIGCONT,
    signal.SIGTTIN,
    signal.SIGTTOU,
    signal.SIGQUIT,
)
# Descriptors above this are not looked for (the soft limit of a login session is 1024).
_FD_CEILING = 4096


def daemonize(keep: Iterable[int] = (), pid_fd: int | None = None) -> None:  # pragma: no cover - in children
    """Turn a freshly forked child into a daemon; returns in the daemon, the middle process exits 0.

    The second fork leaves the daemon without session leadership, so opening a terminal can never
    make it the daemon's controlling terminal. `pid_fd`, when given, receives the daemon's pid as a
    decimal line from the middle process (the caller's waitpid sees only the middle one) and is then
    closed. Every descriptor but `keep` and the standard three is closed.
    """
    os.setsid()
    pid = os.fork()
    if pid != 0:
        if pid_fd is not None:
            with contextlib.suppress(OSError):
                os.write(pid_fd, f"{pid}\n".encode())
        os._exit(0)
    if pid_fd is not None:
        with contextlib.suppress(OSError):
            os.close(pid_fd)
    signal.set_wakeup_fd(-1)
    for signum in _SIGNALS_TO_RESET:
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGTTIN, signal.SIG_IGN)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)
    close_all_but(keep)
    os.umask(0o077)


def close_all_but(keep: Iterable[int]) -> None:
    """Close every descriptor from 3 up, except `keep`."""
    start = 3
    for fd in sorted(set(keep)):
        if fd < start:
            continue
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, _FD_CEILING)
