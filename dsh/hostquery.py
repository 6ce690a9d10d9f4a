"""Which sessions have a running host, asked of the hosts themselves (no config, no index: fast); used
by the client (`dsh attach` with no id, names on the command line) and by a host (the next session key)."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import time
from pathlib import Path

from dsh import protocol
from dsh.rundir import SOCKET_SUFFIX, RunDirError, connect_private, host_socket_dirs, socket_path

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import Any

QUERY_TIMEOUT = 1.0


def running_hosts(stopped: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """What each listening host says of its session: id, cwd, attached, detached_at, pid, title, and
    the socket it was asked on. All are asked at once and waited for QUERY_TIMEOUT at most; a host found
    stopped (SIGSTOP: it cannot answer until continued) is not waited for, and goes into `stopped`
    when given (`Asking.stopped`'s rows)."""
    paths = listening_sockets()
    if not paths:
        return []
    asking = Asking(paths)
    answers = asking.answers(QUERY_TIMEOUT)
    if stopped is not None:
        stopped.extend(asking.stopped)
    found = []
    for path in paths:  # in the folders' order, as they were asked one by one
        answer = answers.get(path)
        if answer is not None and isinstance(answer.get("cwd"), str):
            answer["socket"] = str(path)
            found.append(answer)
    return found


def stopped_line(row: dict[str, Any]) -> str:
    """What to say of a host found stopped, and the ways out (as `dsh attach ID` says it)."""
    sid, pid = row["session"], row["pid"]
    return (
        f"the host of session {sid} (pid {pid}) is stopped and does not answer: "
        f"kill -CONT {pid} lets it go on, dsh stop {sid} ends it"
    )


def _stopped_row(path: Path, pid: int) -> dict[str, Any]:
    """A stopped host's row: its session (its socket's name), pid, socket and cwd (from /proc: it cannot
    say)."""
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        cwd = ""
    return {"session": path.name[: -len(SOCKET_SUFFIX)], "pid": pid, "socket": str(path), "cwd": cwd}


def query(path: Path) -> dict[str, Any] | None:
    """One host's answer to a query handshake, or None (no host there, or not a dsh host)."""
    try:
        sock = connect_private(path, QUERY_TIMEOUT)
    except (OSError, RunDirError):
        return None  # another user's process, or a folder gone meanwhile: not a host of ours
    if sock is None:
        return None
    try:
        intent = {"kind": protocol.IntentKind.QUERY}
        sock.sendall(protocol.hello(rows=1, cols=1, env={}, pid=os.getpid(), intent=intent))
        data = b""
        while b"\n" not in data and len(data) <= protocol.HELLO_MAX:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        answer = protocol.decode_line(data.split(b"\n", 1)[0])
    except (OSError, protocol.ProtocolError):
        return None
    finally:
        with contextlib.suppress(OSError):
            sock.close()
    if not answer.get("ok") or not isinstance(answer.get("session"), str) or not isinstance(answer.get("cwd"), str):
        return None
    return answer


class Asking:
    """Query handshakes sent to several hosts at once, their answers read together by `answers`: a
    listing sends them first, does its own work meanwhile, then waits at most a bound for what is late,
    so a host that does not answer (busy) costs the listing that bound, never more; one stopped is seen
    stopped (its state in /proc) when connected, and costs nothing."""

    def __init__(self, paths: list[Path]) -> None:
        from dsh.peer import peer_pid, process_stopped

        self._socks: dict[Path, Any] = {}
        # Hosts found stopped (SIGSTOP), one row each (a host behind two names, its socket in the short
        # fallback folder and the link to it, once): not asked, as they cannot answer until continued.
        self.stopped: list[dict[str, Any]] = []
        hello = protocol.hello(rows=1, cols=1, env={}, pid=os.getpid(), intent={"kind": protocol.IntentKind.QUERY})
        for path in paths:
            try:
                sock = connect_private(path, QUERY_TIMEOUT)
                if sock is None:
                    continue
                pid = peer_pid(sock)
                if pid is not None and process_stopped(pid):
                    sock.close()
                    if all(row["pid"] != pid for row in self.stopped):
                        self.stopped.append(_stopped_row(path, pid))
                    continue
                sock.setblocking(False)
                sock.send(hello)  # a few hundred bytes into an empty socket buffer: taken whole
            except (OSError, RunDirError):
                continue
            self._socks[path] = sock

    def answers(self, timeout: float) -> dict[Path, dict[str, Any]]:
        """Every answer that came within `timeout` seconds from now, by socket; the rest are dropped."""

        found: dict[Path, dict[str, Any]] = {}
        buffers = {path: b"" for path in self._socks}
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            for path, sock in self._socks.items():
                selector.register(sock, selectors.EVENT_READ, path)
            while buffers:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                for key, _ in selector.select(left):
                    path = key.data
                    try:
                        chunk = self._socks[path].recv(65536)  # the socket registered with that path
                    except BlockingIOError:
                        continue
                    except OSError:
                        chunk = b""
                    data = buffers[path] + chunk
                    if chunk and b"\n" not in data and len(data) <= protocol.HELLO_MAX:
                        buffers[path] = data
                        continue
                    selector.unregister(key.fileobj)
                    del buffers[path]
                    with contextlib.suppress(protocol.ProtocolError):
                        answer = protocol.decode_line(data.split(b"\n", 1)[0])
                        if answer.get("ok") and isinstance(answer.get("session"), str):
                            found[path] = answer
        self.close()
        return found

    def close(self) -> None:
        for sock in self._socks.values():
            with contextlib.suppress(OSError):
                sock.close()
        self._socks.clear()


def listening_sockets() -> list[Path]:
    """Every host socket of this DSH_HOME (a listing of its folders; nothing is connected to)."""
    found: list[Path] = []
    try:
        directories = host_socket_dirs()
    except (OSError, RunDirError):
        return []
    for directory in directories:
        with contextlib.suppress(OSError):
            found += [directory / name for name in sorted(os.listdir(directory)) if name.endswith(SOCKET_SUFFIX)]
    return found


def focus_in_host(session_id: str, pane_id: str) -> bool:
    """Ask another session's host to focus one of its panes before this client attaches it (its
    control channel's `focus`); False when it could not be asked (the attach happens all the same)."""

    try:
        sock = connect_private(socket_path(session_id), QUERY_TIMEOUT)
    except (OSError, RunDirError):
        return False
    if sock is None:
        return False
    try:
        sock.settimeout(QUERY_TIMEOUT)
        body = json.dumps({"verb": "focus", "session": session_id, "pane": pane_id}).encode()
        sock.sendall(
            protocol.hello(rows=1, cols=1, env={}, pid=os.getpid(), intent={"kind": protocol.IntentKind.CONTROL})
            + protocol.frame(protocol.CONTROL, body)
        )
        reader = protocol.FrameReader()
        data = b""
        while b"\n" not in data:  # the welcome line, then the reply's frame
            chunk = sock.recv(65536)
            if not chunk:
                return False
            data += chunk
        welcome, _, rest = data.partition(b"\n")
        if not protocol.decode_line(welcome).get("ok"):
            return False
        while True:
            for kind, payload in reader.feed(rest):
                if kind == protocol.CONTROL:
                    return bool(protocol.parse_json(payload).get("ok"))
            rest = sock.recv(65536)
            if not rest:
                return False
    except (TimeoutError, OSError, protocol.ProtocolError):
        return False
    finally:
        sock.close()
