"""Where hosts' sockets live: a directory only this user can enter, and one socket per session id."""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path

from dsh.home import dsh_home, dsh_home_path
from dsh.safefile import ensure_dir
from dsh.store.ids import validate_session_id

SOCKET_SUFFIX = ".sock"
SPAWNER_SUFFIX = ".spawner"
# sockaddr_un holds 108 bytes with the terminating NUL.
SOCKET_PATH_MAX = 107


class RunDirError(Exception):
    """The socket directory cannot be used safely; the message names it and says how to fix it."""


def run_dir() -> Path:
    """`$XDG_RUNTIME_DIR/dsh` when that is set, else `$DSH_HOME/run`; made 0700 and checked."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg) and os.path.isdir(xdg):
        return _private_dir(Path(xdg) / "dsh", Path(xdg))
    return _private_dir(dsh_home_path("run"), dsh_home())


def _private_dir(path: Path, base: Path) -> Path:
    try:
        ensure_dir(path, base)
    except OSError as exc:
        raise RunDirError(f"cannot use socket directory {path}: {exc.strerror or exc}") from exc
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise RunDirError(f"socket directory {path} is not a directory (a symlink?): remove it")
    if info.st_uid != os.getuid():
        raise RunDirError(f"socket directory {path} belongs to another user: remove it")
    if info.st_mode & 0o077:
        raise RunDirError(f"socket directory {path} can be entered by others: chmod 700 {path}")
    return path


def socket_path(session_id: str) -> Path:
    """The socket of `session_id`'s host."""
    validate_session_id(session_id)
    return _fitting(run_dir() / f"{session_id}{SOCKET_SUFFIX}")


def spawner_socket_path(install: list[str]) -> Path:
    """The socket of this user's spawner for one dsh installation (interpreter and package folder) and
    one DSH_HOME (a shared XDG_RUNTIME_DIR holds several); not a `.sock`, so that listings of hosts
    never take it for one."""
    key = "\0".join([*install, str(dsh_home())])
    tag = zlib.crc32(key.encode("utf-8", "surrogateescape"))
    return _fitting(run_dir() / f"spawner-{tag:08x}{SPAWNER_SUFFIX}")


def _fitting(path: Path) -> Path:
    """`path`, or when it is too long for a socket, a short private directory under the system temp
    folder (as tmux keeps /tmp/tmux-UID)."""
    if len(os.fsencode(str(path))) <= SOCKET_PATH_MAX:
        return path
    import hashlib

    # Keep homes apart even here: the short name is a hash of the long path.
    short = hashlib.sha256(os.fsencode(str(path))).hexdigest()[:24]
    return temp_private_dir() / f"{short}{path.suffix}"


def temp_private_dir() -> Path:
    """A short private folder in the system temp folder (`/tmp/dsh-UID`), for sockets whose path in
    the run directory would be too long."""
    import tempfile

    temp = Path(tempfile.gettempdir())
    return _private_dir(temp / f"dsh-{os.getuid()}", temp)


def host_log_path(session_id: str) -> Path:
    """Where a host writes what went wrong (its stderr): `$DSH_HOME/log/host-<id>.log`."""
    validate_session_id(session_id)
    return dsh_home_path("log", f"host-{session_id}.log")
