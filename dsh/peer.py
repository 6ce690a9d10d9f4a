"""Who is at the other end of a Unix socket, and whether they may talk to this user's processes."""

from __future__ import annotations

import os
import socket
import struct

_UCRED = struct.Struct("3i")


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (SO_PEERCRED), or None if unknown."""
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
    except (OSError, AttributeError):
        return None
    _pid, uid, _gid = _UCRED.unpack(raw)
    return int(uid)


def peer_pid(sock: socket.socket) -> int | None:
    """The pid of the process at the other end of a Unix socket (for a listener: the one that listens)."""
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
    except (OSError, AttributeError):
        return None
    pid, _uid, _gid = _UCRED.unpack(raw)
    return pid if pid > 0 else None


def peer_allowed(uid: int | None, own_uid: int | None = None) -> bool:
    """Only the user who runs the host may talk to it (root gets no exception: its panes are not root's)."""
    return uid is not None and uid == (os.getuid() if own_uid is None else own_uid)


def process_state(pid: int) -> str | None:
    """The state letter of process `pid` from /proc (`R`, `S`, `T` stopped, `t` traced, `Z` …), or None
    when it cannot be read (gone, no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0].decode("ascii", "replace") if fields else None


def process_stopped(pid: int) -> bool:
    """Whether `pid` is stopped (SIGSTOP, SIGTSTP, a debugger): it answers nothing until continued."""
    return process_state(pid) in ("T", "t")
