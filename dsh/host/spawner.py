"""The user's spawner: a daemon with the host's modules imported that forks a session host per request.

A host started straight from a client spends most of its start-up importing prompt_toolkit and the view
(300-400 ms on a 2-core machine). The spawner pays that once: it imports them, freezes the collector
(so forked hosts share those pages), and for each request forks a host that begins at `_serve`. It
lives while any host it started lives, and `LINGER` seconds more; when the code on disk changes it
answers `stale` and ends, and the client starts a fresh one.

Request, one JSON line: {"spawner": SPAWNER_VERSION, "install": [executable, package dir],
"spec": HostSpec.to_dict(), "env": {...}}. The answer is the host's own ready line (`ready ID` or
`error MESSAGE`, see host/spec.py), after the spawner's `taken` once it has read the request, or the
spawner's own `stale` or `refused MESSAGE`. A request whose client has hung up by the time it is read is
dropped unanswered (the client bypassed a stopped spawner and started the host itself).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from dsh import inherit
from dsh.daemon import daemonize
from dsh.host.spec import REFUSED, SPAWNER_VERSION, STALE, TAKEN, HostSpec, ReadyPipe, install_id, spawner_lock
from dsh.peer import peer_allowed, peer_uid

if TYPE_CHECKING:
    from dsh.host.spec import HostEntry

# An environment and a spec fit well under this; more is not a request.
REQUEST_MAX = 1 << 20
# A client that connects and says nothing may hold the (single-threaded) spawner this long.
REQUEST_TIMEOUT = 2.0
# How long a spawner with no host left waits for another request before it ends: a `dsh` soon after
# the last session ended starts as fast as one beside a running session (a bazel or gradle daemon
# waits hours). It holds 34 MB resident, half of it shared with the hosts it forked (PSS 18 MB).
LINGER = 600.0
SPAWNER_LOG = "spawner.log"


def code_fingerprint(root: str | None = None) -> str:
    """A summary of the package's source files (count, newest mtime, total size): changes when any
    file is installed, edited or removed, so a spawner never serves code older than what is on disk."""
    base = root or install_id()[1]
    count = newest = total = 0
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith(".py"):
                    info = entry.stat(follow_symlinks=False)
                    count += 1
                    newest = max(newest, info.st_mtime_ns)
                    total += info.st_size
            except OSError:
                continue
    return f"{count}:{newest}:{total}"


class Spawner:
    """The request loop. `entry` is what a forked host runs; `fingerprint` re-reads the code's state."""

    def __init__(
        self,
        listener: socket.socket,
        path: Path,
        entry: HostEntry,
        *,
        fingerprint: Callable[[], str] = code_fingerprint,
        linger: float = LINGER,
    ) -> None:
        self.listener = listener
        self.path = path
        self.entry = entry
        self.fingerprint = fingerprint
        self.started_with = fingerprint()
        self.linger = linger
        self.inode = _inode(path)
        self.hosts: set[int] = set()  # pidfds of the hosts it forked
        self.polled: set[int] = set()  # host pids watched by signal 0 where pidfds are missing
        self.idle_since = time.monotonic()

    def run(self) -> None:
        """Serve until idle for `linger` with no host alive, or until the code changes."""
        while True:
            if not self.hosts and not self.polled:
                left = self.idle_since + self.linger - time.monotonic()
                if left <= 0:
                    break
                timeout: float | None = left
            else:
                timeout = 1.0 if self.polled else None
            try:
                watched: list[socket.socket | int] = [self.listener, *self.hosts]
                ready, _, _ = select.select(watched, [], [], timeout)
            except InterruptedError:
                continue
            for fd in ready:
                if isinstance(fd, int):
                    self._host_ended(fd)
                elif not self._accept():
                    self._leave(STALE)
                    return
            self._poll_hosts()
        self._leave(None)

    def _accept(self) -> bool:
        """Serve one waiting request; False when this spawner is stale and must go."""
        try:
            conn, _ = self.listener.accept()
        except (BlockingIOError, InterruptedError):
            return True
        with conn:
            if not peer_allowed(peer_uid(conn)):
                return True  # another user: no answer at all
            if self.fingerprint() != self.started_with:
                # Gone from the path before the answer: the client's next connect starts a successor
                # instead of finding this one again.
                self._remove_socket()
                _answer(conn, STALE)
                return False
            self._serve(conn)
        self.idle_since = time.monotonic()
        return True

    def _serve(self, conn: socket.socket) -> None:
        try:
            spec, env, context = read_request(conn)
        except ValueError as exc:
            _answer(conn, f"{REFUSED} {exc}")
            return
        reason = inherit.unmet(context)
        if reason is not None:
            _answer(conn, f"{REFUSED} {reason}")  # the client starts this host itself, as it should run
            return
        if _withdrawn(conn):
            # Its client gave up waiting (this spawner was stopped, or slow) and started the host
            # itself: serving it now would make a session nobody asked for.
            return
        _answer(conn, TAKEN)
        try:
            pid = self._fork_host(conn, spec, env, context)
        except OSError as exc:
            _answer(conn, f"{REFUSED} cannot fork: {exc.strerror or exc}")
            return
        if pid is not None:
            self._watch(pid)

    def _fork_host(self, conn: socket.socket, spec: HostSpec, env: dict[str, str], context: object) -> int | None:
        """Fork a host that answers on `conn`; its pid (None if the middle process did not say)."""
        conn.setblocking(True)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child, checked end to end
            # The child owns these descriptors as plain numbers from here: a socket object collected
            # later must not close a number the host has reused by then.
            self.listener.detach()
            _become_host(conn.detach(), write_fd, read_fd, spec, env, context, self.entry)
        os.close(write_fd)
        try:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            line = os.read(read_fd, 64)
        finally:
            os.close(read_fd)
        return int(line) if line.strip().isdigit() else None

    def _watch(self, pid: int) -> None:
        try:
            self.hosts.add(os.pidfd_open(pid))
        except ProcessLookupError:
            pass  # ended already
        except (OSError, AttributeError):
            self.polled.add(pid)

    def _host_ended(self, pidfd: int) -> None:
        self.hosts.discard(pidfd)
        os.close(pidfd)
        if not self.hosts:
            self.idle_since = time.monotonic()

    def _poll_hosts(self) -> None:
        for pid in list(self.polled):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                self.polled.discard(pid)
                if not self.polled:
                    self.idle_since = time.monotonic()
            except PermissionError:
                self.polled.discard(pid)  # the pid was reused by another user's process

    def _remove_socket(self) -> None:
        """Unlink the socket if it is still this spawner's (a successor may have taken the name)."""
        with contextlib.suppress(OSError), spawner_lock(self.path):
            if _inode(self.path) == self.inode:
                self.path.unlink()

    def _leave(self, answer: str | None) -> None:
        """Remove the socket (if it is still this spawner's), then answer what already queued: a
        stale spawner says so, a lingering one still serves them (they connected before it left)."""
        self._remove_socket()
        self.listener.setblocking(False)
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                break
            with conn:
                conn.setblocking(True)
                conn.settimeout(REQUEST_TIMEOUT)
                if not peer_allowed(peer_uid(conn)):
                    continue
                if answer is not None:
                    _answer(conn, answer)
                else:
                    self._serve(conn)
        self.listener.close()


def read_request(conn: socket.socket) -> tuple[HostSpec, dict[str, str], object]:
    """The spec, environment and process context (dsh/inherit.py) a client sent; ValueError says
    what is wrong with them."""
    conn.settimeout(REQUEST_TIMEOUT)
    data = b""
    try:
        while b"\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
            if len(data) > REQUEST_MAX:
                raise ValueError("the request to the spawner is too long")
    except OSError as exc:
        raise ValueError(f"the request to the spawner was not read: {exc.strerror or exc}") from exc
    try:
        message = json.loads(data.split(b"\n", 1)[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError("the request to the spawner is not JSON") from exc
    if not isinstance(message, dict) or message.get("spawner") != SPAWNER_VERSION:
        raise ValueError("the request is from another version of dsh")
    if message.get("install") != install_id():
        raise ValueError("the request is from another dsh installation")
    env = message.get("env")
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ValueError("the request's environment is not a map of strings")
    if any("=" in name or "\0" in name or "\0" in value for name, value in env.items()):
        raise ValueError("the request's environment has a malformed variable")
    return HostSpec.from_dict(message.get("spec")), env, message.get("context")


def _withdrawn(conn: socket.socket) -> bool:
    """Whether the client of a request already read has closed its end (it sends nothing more)."""
    try:
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            return False  # nothing, not even the end: it is waiting for the answer
        return conn.recv(1, socket.MSG_PEEK) == b""
    except (BlockingIOError, InterruptedError, TimeoutError):
        return False
    except OSError:
        return True


def _answer(conn: socket.socket, line: str) -> None:
    with contextlib.suppress(OSError):
        conn.sendall((line.replace("\n", " ") + "\n").encode("utf-8", "replace"))


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _become_host(  # pragma: no cover - runs in the forked child
    conn_fd: int, pid_fd: int, other_fd: int, spec: HostSpec, env: dict[str, str], context: object, entry: HostEntry
) -> NoReturn:
    """In the forked child: the client's environment, a daemon of its own with the client's umask and
    limits, then the host."""
    try:
        os.close(other_fd)
        os.environ.clear()
        os.environ.update(env)
        time.tzset()
        daemonize(keep=(conn_fd,), pid_fd=pid_fd)
        inherit.apply(context)
        _name_process("dsh")
        entry(spec, ReadyPipe(conn_fd))
    except BaseException:
        pass
    os._exit(1)


def _name_process(name: str) -> None:
    """What `ps -o comm` and `top` show for this process (Linux; elsewhere nothing)."""
    with contextlib.suppress(OSError), open("/proc/self/comm", "w") as comm:
        comm.write(name)


def become_spawner(  # pragma: no cover - runs in the forked child, checked end to end
    listener: socket.socket, path: Path, entry: HostEntry, warm: Callable[[], None]
) -> NoReturn:
    """In a child forked by a client that has bound `listener`: become the spawner and serve."""
    import traceback

    from dsh.ownlog import stderr_to

    code = 1
    try:
        daemonize(keep=(listener.fileno(),))
        os.chdir("/")  # hold no user's folder busy (each host enters its own)
        _name_process("dsh-spawner")
        stderr_to(SPAWNER_LOG)
        spawner = Spawner(listener, path, entry)  # fingerprint before the imports read the files
        gc.disable()  # the imports make hardly any garbage: collecting during them is time lost
        try:
            warm()
        except Exception:
            traceback.print_exc()  # a host imports what it needs itself; only slower
        # Forked hosts then share these pages instead of copying them on their first collection. The
        # collection first is affordable now that the first session's host does not wait for it (its
        # client starts that one itself).
        gc.collect()
        gc.freeze()
        gc.enable()
        spawner.run()
        code = 0
    except BaseException:
        traceback.print_exc()
    os._exit(code)
