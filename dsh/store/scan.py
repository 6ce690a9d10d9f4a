"""Which session logs a refresh must look at: every log of a folder whose mtime moved since it was last
listed, and the logs of sessions that are not closed.

A log is created, removed or renamed only by changing its folder, and that moves the folder's mtime; an
append does not. Logs are appended by the host holding the session (its session is not closed, and the
index stats those logs at every refresh) and, after its close, only by dsh writers that touch the folder
once their line is written (`log.touch_folder`: a resume, a rename or an archive from a picker). So a
folder whose mtime is the one recorded when it was last listed holds no log that changed but the open
ones. Timestamps are coarse (a kernel tick; seconds on some filesystems): a folder that changed less than
RACY_NS before it was listed could change again with the same mtime, so its mtime is not trusted (it is
listed again next time), as git does with "racily clean" index entries.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from stat import S_ISDIR, S_ISLNK, S_ISREG

from dsh.safefile import folder_problem
from dsh.store.ids import is_valid_session_id
from dsh.store.log import LOG_SUFFIX
from dsh.values import Value

Stat = tuple[int, int]
# Margin between a folder's last change and the start of the scan that lists it, for its mtime to count.
RACY_NS = 2_000_000_000


class RootScan(Value, fields=("found", "listed", "clean", "mtimes", "readable")):
    """What one look at the session root found."""

    # (size, mtime_ns) of every log looked at, by path: the logs of the listed folders, then the open ones.
    found: dict[str, Stat]
    # Folders listed in full (their known logs not in `found` are gone), by name.
    listed: list[str]
    # Folders unchanged since they were last listed: only their open logs are looked at.
    clean: set[str]
    # The mtime to record for each folder present (None: list it again next time), by name.
    mtimes: dict[str, int | None]
    # Whether the root itself could be listed (when not, nothing under it is known to be gone).
    readable: bool

    def __init__(
        self,
        found: dict[str, Stat] | None = None,
        listed: list[str] | None = None,
        clean: set[str] | None = None,
        mtimes: dict[str, int | None] | None = None,
        readable: bool = True,
    ) -> None:
        self.found = {} if found is None else found
        self.listed = [] if listed is None else listed
        self.clean = set() if clean is None else clean
        self.mtimes = {} if mtimes is None else mtimes
        self.readable = readable


def scan_root(root: str, recorded: dict[str, int | None], warnings: list[str]) -> RootScan:
    """List the root's folders; list in full those whose mtime is not the one `recorded` (name -> mtime_ns,
    None for one to list again)."""
    scan = RootScan()
    started = time.time_ns()
    try:
        partitions = list(os.scandir(root))
    except FileNotFoundError:
        return scan
    except OSError as exc:
        warnings.append(f"{root}: cannot list the session root: {exc.strerror or exc}")
        scan.readable = False
        return scan
    for part in partitions:
        try:
            if not part.is_dir():
                continue
            st = part.stat(follow_symlinks=False)
            # A link out of the root, or a folder another user can write, is never read from.
            problem = folder_problem(part.path, st)
            if problem is not None:
                warnings.append(f"{part.path}: {problem}; its sessions are not listed")
                scan.mtimes[part.name] = None
                continue
            before = recorded.get(part.name)
            if before is not None and before == st.st_mtime_ns:
                scan.clean.add(part.name)
                scan.mtimes[part.name] = before
                continue
            entries = list(os.scandir(part.path))
        except OSError as exc:
            warnings.append(f"{part.path}: cannot list: {exc.strerror or exc}")
            scan.mtimes[part.name] = None
            continue
        quiet = len(warnings)
        for entry in entries:
            if entry.name.endswith(LOG_SUFFIX):
                _look(entry.path, entry.name, entry, scan.found, warnings)
        scan.listed.append(part.name)
        # A folder with an entry to warn about is listed every time, so the warning is said every time.
        settled = st.st_mtime_ns + RACY_NS <= started and len(warnings) == quiet
        scan.mtimes[part.name] = st.st_mtime_ns if settled else None
    return scan


def stat_logs(paths: Iterable[str], found: dict[str, Stat], warnings: list[str]) -> None:
    """Look at these logs one by one (the open logs of clean folders)."""
    for path in paths:
        _look(path, os.path.basename(path), None, found, warnings)


def _look(path: str, name: str, entry: os.DirEntry[str] | None, found: dict[str, Stat], warnings: list[str]) -> None:
    if not is_valid_session_id(name[: -len(LOG_SUFFIX)]):
        warnings.append(f"{path}: file name is not a valid session id; skipped")
        return
    try:
        # One lstat answers what it is and (size, mtime): at a first look this runs 100k times.
        st = entry.stat(follow_symlinks=False) if entry is not None else os.lstat(path)
    except OSError as exc:
        if entry is None and isinstance(exc, FileNotFoundError):
            return  # removed since it was indexed: the refresh drops it
        warnings.append(f"{path}: cannot stat: {exc.strerror or exc}")
        return
    if not S_ISREG(st.st_mode):
        if S_ISLNK(st.st_mode):
            warnings.append(f"{path}: a symbolic link where a session log should be; skipped")
        elif S_ISDIR(st.st_mode):
            warnings.append(f"{path}: a directory where a session log should be; skipped")
        else:
            warnings.append(f"{path}: not a regular file; skipped")
        return
    found[path] = (st.st_size, st.st_mtime_ns)
