"""Where hosts' sockets live: a directory only this user can enter, and one socket per session id.

Connecting and binding go through a descriptor of that directory (`/proc/self/fd/N/name`), opened
without following links and checked on the descriptor: the directory cannot be swapped between the
check and the connect, and the socket's name is short however long the path to it is.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import zlib
from pathlib import Path

from dsh.home import dsh_home, dsh_home_path
from dsh.peer import peer_allowed, peer_uid
from dsh.safefile import ensure_dir
from dsh.store.ids import validate_session_id

SOCKET_SUFFIX = ".sock"
SPAWNER_SUFFIX = ".spawner"
# sockaddr_un holds 108 bytes with the terminating NUL.
SOCKET_PATH_MAX = 107
# Linux names an open directory by its descriptor: sockets are reached through it.
_FD_DIR = "/proc/self/fd"


class RunDirError(Exception):
    """The socket directory cannot be used safely; the message names it and says how to fix it."""


class PeerError(RunDirError):
    """The process listening at a socket is not this user's: nothing is sent to it."""


def run_dir() -> Path:
    """`$XDG_RUNTIME_DIR/dsh` when that is set and the user's own, else `$DSH_HOME/run`; made 0700 and
    checked."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg) and runtime_dir_problem(xdg) is None:
        return _private_dir(Path(xdg) / "dsh", Path(xdg))
    return _private_dir(dsh_home_path("run"), dsh_home())


def runtime_dir_problem(xdg: str | None = None) -> str | None:
    """Why `$XDG_RUNTIME_DIR` is not used for sockets (one line for the user), or None: it must be a
    folder of the user's own that no one else can write (another user's would let them swap the
    sockets in it). A missing one is passed over in silence, as before."""
    xdg = os.environ.get("XDG_RUNTIME_DIR") if xdg is None else xdg
    if not xdg or not os.path.isabs(xdg):
        return None
    try:
        info = os.stat(xdg)
    except OSError:
        return None
    fallback = "sockets go under $DSH_HOME/run instead"
    if not stat.S_ISDIR(info.st_mode):
        return f"XDG_RUNTIME_DIR={xdg} is not a folder: {fallback}"
    if info.st_uid != os.getuid():
        return f"XDG_RUNTIME_DIR={xdg} belongs to uid {info.st_uid}, not to you: {fallback}"
    if info.st_mode & 0o022:
        return f"XDG_RUNTIME_DIR={xdg} can be written by others (mode {info.st_mode & 0o777:o}): {fallback}"
    return None


def _private_dir(path: Path, base: Path, *, fix: str = "") -> Path:
    try:
        ensure_dir(path, base)
    except OSError as exc:
        raise RunDirError(f"cannot use socket directory {path}: {exc.strerror or exc}{fix}") from exc
    os.close(open_private_dir(path, fix=fix))
    return path


def open_private_dir(path: Path, *, fix: str = "") -> int:
    """A descriptor of the socket directory `path`, checked on the descriptor itself (not a link, the
    user's own, mode 0700); RunDirError says what is wrong and how to fix it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise RunDirError(f"socket directory {path} is not a directory (a symlink?): remove it{fix}") from exc
        raise RunDirError(f"cannot use socket directory {path}: {exc.strerror or exc}{fix}") from exc
    info = os.fstat(fd)
    problem = ""
    if info.st_uid != os.getuid():
        problem = f"socket directory {path} belongs to another user (uid {info.st_uid}): remove it{fix}"
    elif info.st_mode & 0o077:
        problem = f"socket directory {path} can be entered by others: chmod 700 {path}"
    if problem:
        os.close(fd)
        raise RunDirError(problem)
    return fd


def _address(dir_fd: int, path: Path) -> str:
    """What to connect or bind for `path` in the directory open as `dir_fd`."""
    if os.path.isdir(_FD_DIR):
        return f"{_FD_DIR}/{dir_fd}/{path.name}"
    return str(path)  # no /proc: the path itself, made short enough by _fitting


def connect_private(path: Path, timeout: float | None = None) -> socket.socket | None:
    """A connection to the socket `path`, in a directory checked as `open_private_dir` does and answered
    by a process of this user (SO_PEERCRED), before a byte is sent. None when nothing listens there (a
    stale socket file is removed); RunDirError (PeerError for another user's process) names the path;
    other OSErrors are the caller's to word."""
    dir_fd = open_private_dir(path.parent)
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(_address(dir_fd, path))
        except OSError as exc:
            sock.close()
            if exc.errno == errno.ECONNREFUSED:
                _unlink_socket(dir_fd, path.name)  # nobody listens: a host that died without cleaning up
            if exc.errno in (errno.ENOENT, errno.ECONNREFUSED, errno.ENOTSOCK):
                return None
            raise
    finally:
        os.close(dir_fd)
    uid = peer_uid(sock)
    if not peer_allowed(uid):
        sock.close()
        raise PeerError(f"refused {path}: the process listening there is uid {uid}, not you (uid {os.getuid()})")
    return sock


def bind_private(path: Path) -> socket.socket:
    """A socket bound at `path` (mode 0600) in a directory checked as `open_private_dir` does; not yet
    listening. OSError when the name is taken."""
    dir_fd = open_private_dir(path.parent)
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(_address(dir_fd, path))
        except OSError:
            sock.close()
            raise
        finally:
            os.umask(old)
        os.chmod(path.name, 0o600, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    return sock


def _unlink_socket(dir_fd: int, name: str) -> None:
    try:
        if stat.S_ISSOCK(os.lstat(name, dir_fd=dir_fd).st_mode):
            os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


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


def host_socket_dirs() -> list[Path]:
    """Every folder a host of this DSH_HOME may listen in: the run dir, and its short fallback (a system
    without /proc and a long path)."""
    directory = run_dir()
    found = [directory]
    fallback = _fallback_dir(directory)
    if fallback is not None and fallback.is_dir():
        found.append(fallback)
    return found


def host_sockets() -> list[Path]:
    """The socket of every host of this DSH_HOME that may be listening (each still to be asked)."""
    found: list[Path] = []
    for directory in host_socket_dirs():
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        found += [directory / name for name in names if name.endswith(SOCKET_SUFFIX)]
    return found


def _fitting(path: Path) -> Path:
    """`path`, or when it is too long for a socket's address and cannot be reached through a descriptor
    of its folder, the same name in a short private folder of this run dir's under the system temp
    folder (as tmux keeps /tmp/tmux-UID)."""
    if len(os.fsencode(str(path))) <= SOCKET_PATH_MAX or os.path.isdir(_FD_DIR):
        return path
    fix = (
        f" (dsh falls back to it because {path} is too long for a socket: set XDG_RUNTIME_DIR to a "
        "folder of your own with mode 700, or use a shorter DSH_HOME)"
    )
    return short_dir_for(path.parent, fix=fix) / path.name


def short_dir_for(directory: Path, *, fix: str = "") -> Path:
    """The short private folder under the system temp folder that stands in for `directory` where a
    socket's path in it would be too long (made 0700 and checked; `fix` ends its error messages)."""
    import tempfile

    fallback = _fallback_dir(directory, make=True)
    assert fallback is not None
    _check_taken(fallback.parent, fix)
    return _private_dir(fallback, Path(tempfile.gettempdir()), fix=fix)


def _check_taken(top: Path, fix: str) -> None:
    """RunDirError when the shared temp folder's `dsh-UID` is not a folder of the user's: another
    user made it first (in a sticky /tmp only they or root can remove it, so the line says what the
    user can do instead), or it is a link or a file of the user's own (theirs to remove)."""
    try:
        info = os.lstat(top)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise RunDirError(f"cannot use socket directory {top}: {exc.strerror or exc}{fix}") from exc
    if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
        return
    mode = info.st_mode
    kind = "a folder" if stat.S_ISDIR(mode) else "a symbolic link" if stat.S_ISLNK(mode) else "a file"
    if info.st_uid == os.getuid():
        raise RunDirError(f"cannot use socket directory {top}: it is {kind}, not a folder: remove it (rm {top}){fix}")
    advice = fix or " (set XDG_RUNTIME_DIR to a folder of your own with mode 700, or use a shorter DSH_HOME)"
    raise RunDirError(
        f"cannot use socket directory {top}: it is {kind} made by uid {info.st_uid}, not by you "
        f"(uid {os.getuid()}), and only its owner or root can remove it{advice}"
    )


def _fallback_dir(directory: Path, *, make: bool = False) -> Path | None:
    if os.path.isdir(_FD_DIR) and not make:
        return None
    import hashlib
    import tempfile

    # Homes kept apart even here: the folder is named by a hash of the run dir it stands in for.
    short = hashlib.sha256(os.fsencode(str(directory))).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"dsh-{os.getuid()}" / short


def host_log_path(session_id: str) -> Path:
    """Where a host writes what went wrong (its stderr): `$DSH_HOME/log/host-<id>.log`."""
    validate_session_id(session_id)
    return dsh_home_path("log", f"host-{session_id}.log")
