"""The session snapshot on disk: the atomic writer and the forgiving loader."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from dsh.home import dsh_home_path, ensure_home_dir
from dsh.ownlog import log_line
from dsh.persist.records import (
    LIFECYCLES,
    MAX_NOTIFICATIONS,
    SNAPSHOT_VERSION,
    AgentInfo,
    Notification,
    PaneRecord,
    Snapshot,
    SnapshotError,
    SnapshotVersionError,
    TabRecord,
    now_iso,
    validate_id,
    version_message,
)
from dsh.safefile import atomic_write, fsync_dir, open_read, read_bytes
from dsh.text import sanitize
from dsh.values import Value

__all__ = [
    "LIFECYCLES",
    "MAX_NOTIFICATIONS",
    "SNAPSHOT_VERSION",
    "TAIL_BYTES",
    "AgentInfo",
    "LoadedSnapshot",
    "Mark",
    "Notification",
    "PaneRecord",
    "Snapshot",
    "SnapshotError",
    "SnapshotVersionError",
    "TabRecord",
    "file_mark",
    "load_snapshot",
    "log_line",
    "now_iso",
    "state_dir",
    "tail_path",
    "validate_id",
    "write_snapshot",
]

SNAPSHOT_FILE = "snapshot.json"
# The snapshot before the last one its host wrote, kept (a hard link) when nobody else touched it: what a
# damaged snapshot.json falls back to.
PREVIOUS_FILE = "snapshot.json.prev"
HISTORY_DIR = "history"
TAIL_SUFFIX = ".tail"
TAIL_BYTES = 64 * 1024
# A snapshot is structure plus short strings; anything this large was not written by dsh.
MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024
_TMP_PREFIX = ".tmp-"
# A temp file older than this was left by a writer that died mid-write.
_STALE_TMP_SECONDS = 60.0


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    # Which file a path holds, and as whose write: (device, inode, size, mtime in ns).
    Mark: TypeAlias = tuple[int, int, int, int]
else:
    Mark = tuple


def file_mark(path: Path) -> Mark | None:
    """The Mark of what is at `path` now (a link is not followed), or None when nothing is."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return _mark_of(info)


def _mark_of(info: os.stat_result) -> Mark:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


# --- paths --------------------------------------------------------------------------------------------------


def state_dir(session_id: str) -> Path:
    """`$DSH_HOME/state/<session-id>/` (not created); the id is validated, never used as a path."""
    return dsh_home_path("state", validate_id(session_id))


def tail_path(session_id: str, pane_id: str) -> Path:
    """Where one pane's scrollback tail is kept."""
    return state_dir(session_id) / HISTORY_DIR / (validate_id(pane_id, "pane id") + TAIL_SUFFIX)


# --- writing ------------------------------------------------------------------------------------------------


def _same_content(path: Path, data: bytes) -> bool:
    """True when `path` is a regular file already holding exactly `data` (then it need not be rewritten)."""
    try:
        with open_read(path) as handle:
            if os.fstat(handle.fileno()).st_size != len(data):
                return False
            return handle.read() == data
    except OSError:
        return False


def _remove_stale(folder: Path, keep_tails: set[str] | None) -> None:
    """Remove temp files left by a writer that died, and (with keep_tails) tails of panes now gone."""
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        with contextlib.suppress(OSError):
            if name.startswith(_TMP_PREFIX):
                if now - entry.stat(follow_symlinks=False).st_mtime > _STALE_TMP_SECONDS:
                    os.unlink(entry.path)
            elif keep_tails is not None and name.endswith(TAIL_SUFFIX) and name not in keep_tails:
                os.unlink(entry.path)


def write_snapshot(snapshot: Snapshot, tails: Mapping[str, bytes], *, keep_if: Mark | None = None) -> Mark | None:
    """Write `snapshot.json` and each pane's tail atomically; remove tails of panes no longer present.
    The Mark of the file written is returned; with `keep_if`, the file it replaces is first kept as
    `snapshot.json.prev` when it is still that one (this writer's last, untouched since).

    Tails go first, so a snapshot on disk never names a pane whose tail is older than itself.
    Raises SnapshotError for a tail of an unknown or invalid pane id, OSError when the disk refuses.
    """
    folder = state_dir(snapshot.session_id)
    # Every folder from the home down is checked: a link planted at state/ or history/ is refused.
    history = ensure_home_dir("state", snapshot.session_id, HISTORY_DIR)
    pane_ids = {pane.id for pane in snapshot.panes}
    for pane_id, data in tails.items():
        validate_id(pane_id, "pane id")
        if pane_id not in pane_ids:
            raise SnapshotError(f"tail for pane {pane_id}, which is not in the snapshot")
        if not isinstance(data, bytes | bytearray | memoryview):
            raise SnapshotError(f"tail for pane {pane_id}: expected bytes, got {type(data).__name__}")
        chunk = bytes(data[-TAIL_BYTES:])
        path = history / (pane_id + TAIL_SUFFIX)
        if not _same_content(path, chunk):
            atomic_write(path, chunk, tmp_prefix=_TMP_PREFIX, sync_dir=False)
    fsync_dir(history)
    payload = json.dumps(snapshot.to_dict(), ensure_ascii=True, indent=1).encode("ascii") + b"\n"
    path = folder / SNAPSHOT_FILE
    # The file replaced is given a second name before, and takes the copy's name only after: the copy
    # and snapshot.json are never one file (a truncation in place of one would cut both short).
    keeping = _second_name(path) if keep_if is not None and file_mark(path) == keep_if else None
    try:
        atomic_write(path, payload, tmp_prefix=_TMP_PREFIX)
        if keeping is not None:
            with contextlib.suppress(OSError):  # the snapshot is written: only the copy is not kept
                os.replace(keeping, path.with_name(PREVIOUS_FILE))
    finally:
        if keeping is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(keeping)  # the write failed: the copy stays the one before
    _remove_stale(history, {pane_id + TAIL_SUFFIX for pane_id in pane_ids})
    _remove_stale(folder, None)
    return file_mark(path)


def _second_name(path: Path) -> Path | None:
    """A temporary hard link to the snapshot about to be replaced (no copy), or None when the file
    system has none (the snapshot is still written, with no copy before it kept)."""
    tmp = path.with_name(f"{_TMP_PREFIX}{PREVIOUS_FILE}.{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    try:
        os.link(path, tmp, follow_symlinks=False)
    except OSError as exc:
        log_line(f"snapshot {path}: the previous copy could not be kept: {exc}")
        return None
    return tmp


# --- loading ------------------------------------------------------------------------------------------------


class LoadedSnapshot(Value, fields=("snapshot", "tails", "error", "backup", "notes", "mark")):
    """The result of loading: a snapshot or None, the tails, what the user must be told, and the Mark of
    the file the snapshot was read from (its host's writer keeps it as the last good copy)."""

    snapshot: Snapshot | None
    tails: dict[str, bytes]
    error: str | None
    backup: Path | None
    notes: list[str]
    mark: Mark | None

    def __init__(
        self,
        snapshot: Snapshot | None,
        tails: dict[str, bytes] | None = None,
        error: str | None = None,
        backup: Path | None = None,
        notes: list[str] | None = None,
        mark: Mark | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.tails = {} if tails is None else tails
        self.error = error
        self.backup = backup
        self.notes = [] if notes is None else notes
        self.mark = mark


def _backup_corrupt(path: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    os.replace(path, target)
    fsync_dir(path.parent)
    return target


def _parse(raw: bytes) -> Snapshot:
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise SnapshotError("not valid JSON (nested too deeply)") from None
    # The version is checked before anything else, so a newer format is refused, never half-read.
    version = data.get("version") if isinstance(data, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > SNAPSHOT_VERSION:
        raise SnapshotVersionError(version_message(version))
    try:
        return Snapshot.from_dict(data)
    except RecursionError:
        raise SnapshotError("nested too deeply") from None


def _load_tails(session_id: str, snapshot: Snapshot, notes: list[str]) -> dict[str, bytes]:
    tails: dict[str, bytes] = {}
    for pane in snapshot.panes:
        path = tail_path(session_id, pane.id)
        try:
            with open_read(path) as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > TAIL_BYTES:
                    handle.seek(size - TAIL_BYTES)
                tails[pane.id] = handle.read(TAIL_BYTES)
        except FileNotFoundError:
            tails[pane.id] = b""
            notes.append(f"pane {pane.id}: no saved output")
        except OSError as exc:
            tails[pane.id] = b""
            notes.append(f"pane {pane.id}: saved output unreadable ({exc.strerror or exc})")
            log_line(f"snapshot {session_id}: tail {path} unreadable: {exc}")
    return tails


def load_snapshot(session_id: str) -> LoadedSnapshot:
    """Load a session's snapshot and tails.

    Missing: `snapshot=None, error=None`. Corrupt (truncated, replaced by another file, another
    session's): the file is moved to `snapshot.json.corrupt-<ts>`, logged, and the copy saved before it
    (`snapshot.json.prev`) is restored when it is sound; `error` says which. Newer format:
    SnapshotVersionError, nothing touched.
    """
    folder = state_dir(session_id)
    path = folder / SNAPSHOT_FILE
    try:
        snapshot, mark = _read(session_id, path)
    except FileNotFoundError:
        return LoadedSnapshot(snapshot=None)
    except SnapshotVersionError as exc:
        log_line(f"snapshot {path}: refused: {exc}")
        raise SnapshotVersionError(f"cannot restore session {session_id}: {exc}") from None
    except SnapshotError as exc:
        return _corrupt(session_id, path, str(exc))
    notes: list[str] = []
    tails = _load_tails(session_id, snapshot, notes)
    return LoadedSnapshot(snapshot=snapshot, tails=tails, notes=notes, mark=mark)


def _read(session_id: str, path: Path) -> tuple[Snapshot, Mark]:
    """The snapshot at `path`, checked to be this session's; FileNotFoundError, SnapshotError (damaged),
    SnapshotVersionError (newer)."""
    try:
        with open_read(path) as handle:
            mark = _mark_of(os.fstat(handle.fileno()))
            raw = handle.read(MAX_SNAPSHOT_BYTES + 1)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise SnapshotError(f"cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(f"larger than {MAX_SNAPSHOT_BYTES // (1024 * 1024)} MiB")
    snapshot = _parse(raw)
    if snapshot.session_id != session_id:
        raise SnapshotError(f"it belongs to session {sanitize(snapshot.session_id)}")
    return snapshot, mark


def _corrupt(session_id: str, path: Path, reason: str) -> LoadedSnapshot:
    reason = sanitize(reason, 300)
    try:
        backup: Path | None = _backup_corrupt(path)
    except OSError as exc:
        backup = None
        moved = f"it could not be moved aside ({exc.strerror or exc}) and will be overwritten"
    else:
        moved = f"it was moved to {backup}"
    log_line(f"snapshot {path}: corrupt: {reason}; backup: {backup}")
    earlier = _previous(session_id, path) if backup is not None else None
    if earlier is not None and backup is not None:
        snapshot, mark = earlier
        # What was done first: the message line shows a few rows of it at most.
        message = (
            f"The saved layout of session {session_id} was damaged: restored the one saved before it "
            f"({sanitize(snapshot.saved_at, 40)}); the damaged file is kept beside it as {backup.name} ({reason})"
        )
        notes: list[str] = []
        tails = _load_tails(session_id, snapshot, notes)
        return LoadedSnapshot(snapshot=snapshot, tails=tails, error=message, backup=backup, notes=notes, mark=mark)
    message = (
        f"The saved layout of session {session_id} is damaged ({reason}); {moved}. "
        "This session starts with an empty layout."
    )
    return LoadedSnapshot(snapshot=None, error=message, backup=backup)


def _previous(session_id: str, path: Path) -> tuple[Snapshot, Mark] | None:
    """The copy saved before a damaged snapshot, put back in its place (a host that dies before its
    first write leaves it found there); None when there is none, or it is no better."""
    previous = path.with_name(PREVIOUS_FILE)
    try:
        _read(session_id, previous)
        # A copy, not a link: the two must never be one file (see write_snapshot).
        atomic_write(path, read_bytes(previous, MAX_SNAPSHOT_BYTES), tmp_prefix=_TMP_PREFIX)
        return _read(session_id, path)
    except FileNotFoundError:
        return None
    except (SnapshotError, OSError) as exc:  # a newer version's (SnapshotVersionError) is not taken either
        log_line(f"snapshot {previous}: not restored: {exc}")
        return None
