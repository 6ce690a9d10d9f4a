"""Files and folders under DSH_HOME, opened safely: no symlink followed, only regular files, modes 0600/0700.

Every writer under the home (session logs, pid files, the index, snapshots, prompt history, config,
dsh's own log) goes through these helpers, as git writes with O_NOFOLLOW and ssh refuses a folder
another user can write. A refusal is an UnsafePathError: an OSError whose message names the path and
says how to fix it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import stat
from pathlib import Path

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import BinaryIO

FILE_MODE = 0o600
DIR_MODE = 0o700
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Every byte these helpers write goes through this one call, so a test can stand in for a full disk.
_write = os.write
# Group and others may not write (ssh's StrictModes rule); reading is the owner's choice.
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


class UnsafePathError(OSError):
    """A path dsh will not use: a symlink, not a regular file or folder, or another user's to write."""

    def __init__(self, path: str | os.PathLike[str], reason: str, code: int = errno.EPERM) -> None:
        super().__init__(code, reason, os.fspath(path))
        self.path = os.fspath(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _not_regular(path: str | os.PathLike[str], mode: int) -> UnsafePathError:
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
    return UnsafePathError(path, f"is {_kind(mode)}, not a regular file", code)


def _owner_problem(path: str | os.PathLike[str], st: os.stat_result, *, folder: bool) -> str | None:
    """Why another user could change what is at `path` (its owner, its mode), with the command that fixes it."""
    uid = os.getuid()
    shown = shlex.quote(os.fspath(path))
    # Root may own what a user reads (ssh allows it too): root can change anything anyway.
    if st.st_uid not in (uid, 0):
        return f"is owned by uid {st.st_uid}, not by you (uid {uid}); fix: chown {uid} {shown}"
    if st.st_mode & _OTHERS_WRITE:
        fix = "700" if folder else "600"
        return f"can be written by other users (mode {stat.S_IMODE(st.st_mode):04o}); fix: chmod {fix} {shown}"
    return None


def _link_problem(path: str | os.PathLike[str]) -> str:
    return f"is a symbolic link, and dsh does not follow links here (remove it: rm {shlex.quote(os.fspath(path))})"


def folder_problem(path: str | os.PathLike[str], st: os.stat_result) -> str | None:
    """Why the folder at `path` (its lstat `st`) is unsafe to use, with the fix; None when it is fine."""
    if stat.S_ISLNK(st.st_mode):
        return _link_problem(path)
    if not stat.S_ISDIR(st.st_mode):
        return f"is {_kind(st.st_mode)}, not a folder"
    return _owner_problem(path, st, folder=True)


def check_folder(path: str | os.PathLike[str], *, follow: bool = False) -> None:
    """Raise UnsafePathError unless `path` is a folder only its owner (you, or root) can write.

    With follow=False a symbolic link is refused; the home itself may be a link the user made.
    """
    st = os.stat(path) if follow else os.lstat(path)
    problem = folder_problem(path, st)
    if problem is not None:
        mode = st.st_mode
        code = errno.ELOOP if stat.S_ISLNK(mode) else errno.EPERM if stat.S_ISDIR(mode) else errno.ENOTDIR
        raise UnsafePathError(path, problem, code)


def check_file(path: str | os.PathLike[str], st: os.stat_result) -> None:
    """Raise UnsafePathError unless `st` (of `path`) is a regular file only its owner can write."""
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode)
    problem = _owner_problem(path, st, folder=False)
    if problem is not None:
        raise UnsafePathError(path, problem)


def refuse_special(path: str | os.PathLike[str]) -> None:
    """Raise UnsafePathError when something other than a regular file is at `path` (a link, a FIFO,
    a folder); nothing there is fine. For files another program opens (SQLite's -wal and -shm)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise UnsafePathError(path, _link_problem(path), errno.ELOOP)
    if not stat.S_ISREG(mode):
        raise _not_regular(path, mode)


def ensure_dir(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> Path:
    """Make folder `path` and its missing parents below `base`, each mode 0700 whatever the umask.

    `base` must be an existing folder (a link to one is allowed: the user made it; the home's own
    modes are check_home's to judge, and a root kept in /tmp may sit in a folder all can write).
    Every folder below it must be a real folder, not a link, that no other user can write or own:
    one dsh makes is its own (mkdir fails if another user made it first). Returns `path`.
    """
    target, anchor = Path(path), Path(base)
    if not os.path.isdir(anchor):
        raise UnsafePathError(anchor, "is not a folder", errno.ENOTDIR)
    current = anchor
    for part in target.relative_to(anchor).parts:
        current = current / part
        try:
            os.mkdir(current, DIR_MODE)
        except FileExistsError:
            check_folder(current)
        else:
            os.chmod(current, DIR_MODE)  # mkdir's mode is masked by the umask
    return target


def nearest_existing(path: str | os.PathLike[str]) -> Path:
    """`path` or its nearest ancestor that exists: the anchor for ensure_dir outside the home."""
    current = Path(path)
    while not os.path.lexists(current) and current.parent != current:
        current = current.parent
    return current


def _explain(path: str | os.PathLike[str], exc: OSError) -> OSError:
    """A clearer error for an open that O_NOFOLLOW or O_NONBLOCK refused (ELOOP, ENXIO, EISDIR)."""
    if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.EMLINK, errno.ENOTDIR):
        with contextlib.suppress(OSError):
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                return UnsafePathError(path, _link_problem(path), errno.ELOOP)
            if not stat.S_ISREG(mode):
                return _not_regular(path, mode)
    return exc


def _checked_fd(path: str | os.PathLike[str], flags: int, mode: int = FILE_MODE) -> int:
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, mode)
    except OSError as exc:
        raise _explain(path, exc) from None
    try:
        st = os.fstat(fd)
        check_file(path, st)
        if flags & (os.O_WRONLY | os.O_RDWR) and stat.S_IMODE(st.st_mode) & 0o077 and st.st_uid == os.getuid():
            # Made by an older dsh under a loose umask: what it holds (typed lines) is the owner's only.
            os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_append(path: str | os.PathLike[str]) -> int:
    """An fd appending to the regular file `path` (created 0600); never a link, a FIFO or a device.

    Readable too: append_all and ends_torn look at the file's last bytes.
    """
    return _checked_fd(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)


def open_rw_append(path: str | os.PathLike[str]) -> int:
    """An fd reading and appending to the existing regular file `path` (a session log taken over)."""
    return _checked_fd(path, os.O_RDWR | os.O_APPEND)


def create_new(path: str | os.PathLike[str]) -> int:
    """A read-write, appending fd on a new file `path`, mode 0600 whatever the umask; FileExistsError
    if anything (a link included) is there."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND | _NOFOLLOW | _CLOEXEC, FILE_MODE)
    except OSError as exc:
        raise _explain(path, exc) from None
    try:
        os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_read(path: str | os.PathLike[str], *, follow: bool = False) -> BinaryIO:
    """Open a regular file only its owner can write, for reading, without ever blocking on a FIFO or
    a device. follow=False refuses a symbolic link."""
    return _open_for_reading(path, follow=follow, owned=True)


def open_foreign(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a file outside the home (another program's, e.g. an agent's session store) for reading:
    links followed, anyone's, but only a regular file, and never blocking on a FIFO or a device."""
    return _open_for_reading(path, follow=True, owned=False)


def open_read_fd(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """`open_read` as a bare descriptor and its fstat (the caller closes it): for a reader that takes a
    small file in one read, as the index does 100,000 logs."""
    return _read_fd(path, follow=False, owned=True)


def _open_for_reading(path: str | os.PathLike[str], *, follow: bool, owned: bool) -> BinaryIO:
    fd, _ = _read_fd(path, follow=follow, owned=owned)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_fd(path: str | os.PathLike[str], *, follow: bool, owned: bool) -> tuple[int, os.stat_result]:
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow else _NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _explain(path, exc) from None
    try:
        st = os.fstat(fd)
        if owned:
            check_file(path, st)
        elif not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_bytes(path: str | os.PathLike[str], limit: int | None = None, *, follow: bool = False) -> bytes:
    """The bytes of a regular file (at most `limit`); see open_read."""
    with open_read(path, follow=follow) as handle:
        return handle.read() if limit is None else handle.read(limit)


def write_all(fd: int, data: bytes) -> int:
    """os.write until all of `data` is written (a write may take less); returns the bytes written."""
    view = memoryview(data)
    done = 0
    while done < len(view):
        done += _write(fd, view[done:])
    return done


def append_all(fd: int, data: bytes) -> None:
    """Write all of `data` to an O_APPEND fd. When the disk refuses part way (ENOSPC, EIO), the part
    that did land is cut off again where that is safe, so the file never keeps half a record."""
    view = memoryview(data)
    done = 0
    try:
        while done < len(view):
            done += _write(fd, view[done:])
    except OSError:
        if done:
            with contextlib.suppress(OSError):
                size = os.fstat(fd).st_size
                # Only if the tail is still exactly what we wrote: a concurrent appender's line stays.
                if size >= done and os.pread(fd, done, size - done) == bytes(view[:done]):
                    os.ftruncate(fd, size - done)
        raise


def ends_torn(fd: int) -> bool:
    """True when the file does not end in a newline (a crash or a full disk cut its last line short)."""
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def append_line(path: str | os.PathLike[str], data: bytes) -> None:
    """Append one record (ending in a newline) to the file `path`, on a line of its own."""
    fd = open_append(path)
    try:
        append_all(fd, (b"\n" + data) if ends_torn(fd) else data)
    finally:
        os.close(fd)


def fsync_dir(path: str | os.PathLike[str]) -> None:
    # Some filesystems refuse fsync on a folder; the rename is still atomic there.
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(
    path: str | os.PathLike[str], data: bytes, *, tmp_prefix: str = ".tmp-", sync: bool = True, sync_dir: bool = True
) -> None:
    """Replace `path` with `data` (mode 0600) so a reader sees the old or the new file, never a part.

    A symbolic link at `path` is replaced, never written through. sync_dir=False leaves the folder's
    fsync to a caller that writes several files into it; sync=False skips both (a pid file).
    """
    target = Path(path)
    import tempfile  # here: the client's start-up path imports this module, not its writes

    fd, tmp = tempfile.mkstemp(prefix=tmp_prefix + target.name + ".", dir=target.parent)
    try:
        try:
            os.fchmod(fd, FILE_MODE)
            write_all(fd, data)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync and sync_dir:
        fsync_dir(target.parent)
