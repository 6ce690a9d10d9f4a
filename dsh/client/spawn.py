"""Starting a session's host: a double fork into its own session, no terminal, and a ready line back."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from collections.abc import Callable
from typing import NoReturn

from dsh.host.spec import HostSpec, ReadyPipe, parse_ready

# What the host process runs (given by the caller: the client knows nothing of how hosts draw).
HostEntry = Callable[[HostSpec, ReadyPipe], NoReturn]

# A host restoring a big session, or on a busy machine, may take a while to listen.
READY_TIMEOUT = 30.0
_SIGNALS_TO_RESET = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGWINCH,
    signal.SIGTSTP,
    signal.SIGCONT,
    signal.SIGTTIN,
    signal.SIGTTOU,
)


class HostStartError(Exception):
    """The host did not start; the message (the host's own, when it gave one) is for the user."""


def start_host(spec: HostSpec, entry: HostEntry, timeout: float = READY_TIMEOUT) -> str:
    """Start a host for `spec` running `entry`, and wait until it listens; its session id, or
    HostStartError."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, checked end to end
        _become_host(spec, entry, read_fd, write_fd)
    os.close(write_fd)
    try:
        _wait_child(pid)
        line = _read_line(read_fd, timeout)
    finally:
        os.close(read_fd)
    ok, text = parse_ready(line)
    if not ok:
        raise HostStartError(text)
    return text


def _become_host(spec: HostSpec, entry: HostEntry, read_fd: int, write_fd: int) -> None:  # pragma: no cover
    """In the first child: a new session, a second fork (so no terminal can ever be acquired), the
    standard streams on /dev/null, every other inherited descriptor closed; then the host runs."""
    try:
        os.close(read_fd)
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
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
        os.closerange(3, write_fd)
        os.closerange(write_fd + 1, 4096)
        os.umask(0o077)
        entry(spec, ReadyPipe(write_fd))
    except BaseException:
        pass
    os._exit(1)


def _wait_child(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _read_line(fd: int, timeout: float) -> str:
    """The host's one line, or '' when it closed the pipe (died) or did not answer in time."""
    deadline = time.monotonic() + timeout
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            return ""
        try:
            ready, _, _ = select.select([fd], [], [], left)
        except InterruptedError:
            continue
        if not ready:
            return ""
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode("utf-8", "replace")
