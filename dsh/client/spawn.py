"""Starting a session's host: through the user's spawner, or a double fork of the client; a ready line back."""

from __future__ import annotations

import contextlib
import os
import select
import socket
import time
from collections.abc import Callable
from pathlib import Path

from dsh.daemon import daemonize
from dsh.host.spec import (
    REFUSED,
    STALE,
    TAKEN,
    HostSpec,
    ReadyPipe,
    install_id,
    parse_ready,
    spawner_lock,
    spawner_request,
)

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import NoReturn

    from dsh.host.spec import HostEntry

    # What a forked spawner runs over the socket it was given (bound and listening), and its path.
    SpawnerEntry = Callable[[socket.socket, Path], NoReturn]

# A host restoring a big session, or on a busy machine, may take a while to listen.
READY_TIMEOUT = 30.0
# A spawner says `taken` as soon as it reads a request; one silent this long is bypassed (stopped,
# wedged) and the host started directly. A spawner younger than SPAWNER_WARMUP may still be importing:
# it gets the rest of that time.
TAKEN_TIMEOUT = 2.0
SPAWNER_WARMUP = 10.0


class HostStartError(Exception):
    """The host did not start; the message (the host's own, when it gave one) is for the user."""


def start_host(spec: HostSpec, entry: HostEntry, timeout: float = READY_TIMEOUT) -> str:
    """Start a host for `spec` running `entry`, and wait until it listens; its session id, or
    HostStartError."""
    from dsh import inherit

    context = inherit.capture()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, checked end to end
        _become_host(spec, entry, read_fd, write_fd, context)
    os.close(write_fd)
    try:
        _wait_child(pid)
        line = _read_line(read_fd, timeout)
    finally:
        os.close(read_fd)
    return _session_id(line)


def _session_id(line: str) -> str:
    """The id from a host's ready line, or HostStartError with the host's own words."""
    ok, text = parse_ready(line)
    if not ok:
        raise HostStartError(text)
    return text


def _become_host(  # pragma: no cover - runs in the forked child
    spec: HostSpec, entry: HostEntry, read_fd: int, write_fd: int, context: dict[str, object]
) -> None:
    """In the forked child: become a daemon keeping only the ready pipe, then run the host with this
    terminal's umask and limits."""
    from dsh import inherit

    try:
        os.close(read_fd)
        daemonize(keep=(write_fd,))
        inherit.apply(context)
        entry(spec, ReadyPipe(write_fd))
    except BaseException:
        pass
    os._exit(1)


def _run_spawner(  # pragma: no cover - runs in the forked child
    spawner_entry: SpawnerEntry, listener: socket.socket, path: Path
) -> None:
    """In the forked child: the spawner, and never a way back into the client's code on this terminal,
    whatever it raises (as `_become_host`)."""
    try:
        spawner_entry(listener, path)
    except BaseException:
        pass
    os._exit(1)


def _wait_child(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _read_line(fd: int, timeout: float) -> str:
    """The host's one line, or '' when it closed the pipe (died) or did not answer in time."""
    return _Lines(fd).next(timeout)


class _Lines:
    """Lines read from a descriptor one at a time (two may come in one read)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._data = b""

    def next(self, timeout: float) -> str:
        """The next line, or '' when the other end closed or said nothing more in `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._data:
            left = deadline - time.monotonic()
            if left <= 0:
                return ""
            try:
                ready, _, _ = select.select([self.fd], [], [], left)
            except InterruptedError:
                continue
            if not ready:
                return ""
            chunk = os.read(self.fd, 4096)
            if not chunk:
                break
            self._data += chunk
        line, _, self._data = self._data.partition(b"\n")
        return line.decode("utf-8", "replace")


SILENT = "the spawner did not answer"
SILENT_WAY = "the host is started directly (a stopped spawner: kill -CONT it, or kill it; the next dsh starts one)"


class SpawnerUnavailable(Exception):
    """The spawner could not take the request (gone, broken, another install): start the host directly."""


def start_session_host(
    spec: HostSpec,
    entry: HostEntry,
    spawner_entry: SpawnerEntry,
    later: list[Callable[[], None]] | None = None,
    say: Callable[[str], None] | None = None,
) -> str:
    """Start a host for `spec` through the user's spawner, so it skips the imports; directly, as
    `start_host`, when no spawner runs (one is started then, for the sessions after this one: at once, or
    appended to `later` for the caller to run once the session is on screen), when none can serve, or
    when DSH_NO_SPAWNER says not to use one. The session id, or HostStartError. `say` gets one line
    when a spawner that listens did not take the request (stopped, wedged) and was bypassed."""
    if os.environ.get("DSH_NO_SPAWNER", "") not in ("", "0"):
        return start_host(spec, entry)
    from dsh.rundir import spawner_socket_path

    path = spawner_socket_path(install_id())
    asked = time.monotonic()
    try:
        line = _ask_spawner(spec, path)
    except SpawnerUnavailable as exc:
        if say is not None and exc.args and exc.args[0] == SILENT:
            waited = time.monotonic() - asked
            say(f"dsh: the spawner ({path}) did not take the request in {waited:.1f} s: {SILENT_WAY}")
        return start_host(spec, entry)
    if line is not None:
        return _session_id(line)
    # None listening (or a stale one that just left). A request to a spawner started now would wait for
    # all of its imports and warm-up, then a fork: slower than a host of our own, which imports only what
    # it needs. So this host is our own, and the spawner's imports come after it, not beside it.
    session_id = start_host(spec, entry)
    if later is None:
        _start_spawner(path, spawner_entry)
    else:
        later.append(lambda: _start_spawner(path, spawner_entry))
    return session_id


def _ask_spawner(spec: HostSpec, path: Path) -> str | None:
    """The ready line of a host the spawner at `path` forked for `spec`; None when no spawner listens there
    or it was stale (it removed its socket and left); SpawnerUnavailable when it failed to answer."""
    from dsh import inherit

    sock = _connect(path)
    if sock is None:
        return None
    try:
        try:
            sock.sendall(spawner_request(spec, dict(os.environ), inherit.capture()))
        except BrokenPipeError:
            pass  # a stale spawner answers and closes before reading: its answer is there to read
        lines = _Lines(sock.fileno())
        line = lines.next(taken_timeout(path))
        if line == TAKEN:
            line = lines.next(READY_TIMEOUT)
        elif not line:
            # Silent: stopped or wedged. Closing withdraws the request (a spawner that wakes up later
            # finds this end closed and serves nobody); the host is started directly.
            raise SpawnerUnavailable(SILENT)
    except OSError as exc:
        raise SpawnerUnavailable from exc
    finally:
        sock.close()
    if line == STALE:
        return None
    if not line or line.split(" ", 1)[0] == REFUSED:
        raise SpawnerUnavailable  # it died, or could not read us: the direct way still works
    return line


def taken_timeout(path: Path, now: float | None = None) -> float:
    """How long to wait for the spawner at `path` to take a request: TAKEN_TIMEOUT, or what is left of
    its warm-up for one just started. The age is by the wall clock (the socket's time is all there is):
    a negative one means the clock was set back, and is taken as old, never as the whole timeout."""
    try:
        born = os.stat(path).st_mtime
    except OSError:
        return TAKEN_TIMEOUT
    age = (time.time() if now is None else now) - born
    if 0 <= age < SPAWNER_WARMUP:
        return max(TAKEN_TIMEOUT, SPAWNER_WARMUP - age)
    return TAKEN_TIMEOUT


def _connect(path: Path) -> socket.socket | None:
    """A connection to the spawner at `path`, checked to be this user's (the request carries the
    environment: its tokens go to no one else); None when none listens; SpawnerUnavailable when
    something that is not ours listens there."""
    from dsh.rundir import RunDirError, connect_private

    try:
        return connect_private(path)
    except RunDirError as exc:
        raise SpawnerUnavailable(str(exc)) from exc
    except OSError:
        return None


def _start_spawner(path: Path, spawner_entry: SpawnerEntry) -> None:
    """Bind the spawner's socket and fork the spawner onto it, under its lock so that one starts at a time
    (another client may have started one meanwhile). Requests made before its imports are done wait in
    the socket's backlog. Nothing happens when it cannot be done: hosts are then started directly."""
    from dsh.rundir import RunDirError, bind_private

    try:
        with spawner_lock(path):
            sock = _connect(path)
            if sock is not None:
                sock.close()
                return
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # nobody listens there
            listener = bind_private(path)
            try:
                listener.listen(64)
                pid = os.fork()
                if pid == 0:  # pragma: no cover - runs in the child, checked end to end
                    _run_spawner(spawner_entry, listener, path)
            finally:
                listener.close()
            _wait_child(pid)
    except (OSError, RunDirError, SpawnerUnavailable):
        pass
