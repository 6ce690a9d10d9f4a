"""Which sessions have a running host, asked of the hosts themselves (no config, no index: fast); used
by the client (`dsh attach` with no id, names on the command line) and by a host (the next session key)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from dsh import protocol
from dsh.rundir import SOCKET_SUFFIX, RunDirError, connect_private, host_socket_dirs

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import Any

QUERY_TIMEOUT = 1.0


def running_hosts() -> list[dict[str, Any]]:
    """What each listening host says of its session: id, cwd, attached, detached_at, pid, title, and
    the socket it was asked on."""
    found = []
    try:
        directories = host_socket_dirs()
    except OSError:
        return []
    for directory in directories:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            if name.endswith(SOCKET_SUFFIX):
                answer = query(directory / name)
                if answer is not None:
                    answer["socket"] = str(directory / name)
                    found.append(answer)
    return found


def query(path: Path) -> dict[str, Any] | None:
    """One host's answer to a query handshake, or None (no host there, or not a dsh host)."""
    try:
        sock = connect_private(path, QUERY_TIMEOUT)
    except (OSError, RunDirError):
        return None  # another user's process, or a folder gone meanwhile: not a host of ours
    if sock is None:
        return None
    try:
        sock.sendall(protocol.hello(rows=1, cols=1, env={}, pid=os.getpid(), intent={"kind": "query"}))
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
