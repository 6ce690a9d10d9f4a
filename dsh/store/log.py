"""Session logs: one append-only JSONL file per session, its writer, its tolerant reader, and its live marker.

Layout: `<root>/<workspace-partition>/<id>.jsonl`, first line the header, then one event per line.
A running session holds an flock on its log (the kernel drops it if the process dies) and writes its
pid to the sibling `<id>.pid`; the pid file alone proves nothing, the lock decides.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import fcntl
import io
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from dsh import __version__
from dsh.safefile import (
    append_all,
    atomic_write,
    check_folder,
    create_new,
    ends_torn,
    ensure_dir,
    nearest_existing,
    open_read,
    open_rw_append,
    read_bytes,
)
from dsh.store.ids import InvalidSessionId, is_valid_session_id, new_session_id, validate_session_id
from dsh.store.timefmt import now_iso
from dsh.store.workspace import workspace_partition
from dsh.values import Value

LOG_SUFFIX = ".jsonl"
PID_SUFFIX = ".pid"
HEADER_TYPE = "session"
LOG_VERSION = 1
# A header longer than this is not a header; it keeps read_header from swallowing a huge first line.
_HEADER_MAX = 1 << 20
_BUSY_RETRY_SECONDS = 0.3
# Records nest no deeper than this; a deeper line is malformed (and could exhaust the JSON parser's stack).
MAX_DEPTH = 64
# Readers take a log this many bytes at a time (rounded to whole lines).
READ_CHUNK = 1 << 20
# Events kept in memory while the disk refuses them (full, failing), written once it takes them again.
MAX_PENDING = 10_000


class LogError(Exception):
    """A session log cannot be used; the message names the file and says why."""


class SessionBusy(LogError):
    """Another live process holds this session."""

    def __init__(self, path: Path, pid: int | None) -> None:
        who = f"process {pid}" if pid and pid > 0 else "another process"
        super().__init__(f"{path}: session is live in {who}")
        self.path = path
        self.pid = pid


class LogContents(Value, fields=("header", "events", "warnings")):
    header: dict[str, Any] | None
    events: list[dict[str, Any]]
    warnings: list[str]

    def __init__(
        self,
        header: dict[str, Any] | None,
        events: list[dict[str, Any]] | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.header = header
        self.events = [] if events is None else events
        self.warnings = [] if warnings is None else warnings


def log_path(root: Path, cwd: str, session_id: str) -> Path:
    return root / workspace_partition(cwd) / f"{validate_session_id(session_id)}{LOG_SUFFIX}"


def pid_path(path: Path) -> Path:
    """`<id>.pid` beside `<id>.jsonl`: where the holder of a live session writes its pid."""
    stem = path.name[: -len(LOG_SUFFIX)] if path.name.endswith(LOG_SUFFIX) else path.name
    return path.with_name(stem + PID_SUFFIX)


def _encode_line(record: dict[str, Any]) -> bytes:
    try:
        return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # A byte that was not UTF-8 (a directory name, a typed byte) reaches us as a lone surrogate
        # (Python's surrogateescape: byte 0xNN is U+DCNN). JSON's \udcNN escape keeps it exactly, and
        # json.loads gives the same string back: the byte round-trips (documented in dsh(1)).
        return (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")


def _event(type_: str, fields: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(type_, str) or not type_:
        raise ValueError("event type must be a non-empty string")
    for reserved in ("type", "at"):
        if reserved in fields:
            raise ValueError(f"event field {reserved!r} is set by the log itself")
    return {"type": type_, "at": now_iso(), **fields}


def _oserror_text(exc: OSError) -> str:
    if isinstance(exc, IsADirectoryError) or exc.errno == errno.EISDIR:
        return "is a directory, not a session log"
    return exc.strerror or str(exc)


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _lock_or_busy(fd: int, path: Path) -> None:
    # A reader probing liveness holds a shared lock for an instant; retry briefly before saying busy.
    deadline = time.monotonic() + _BUSY_RETRY_SECONDS
    while not _try_lock(fd):
        if time.monotonic() >= deadline:
            raise SessionBusy(path, live_pid(path))
        time.sleep(0.01)


def _write_pid(path: Path) -> None:
    atomic_write(pid_path(path), f"{os.getpid()}\n".encode(), tmp_prefix=".", sync=False)


def _read_pid(path: Path) -> int | None:
    # Never a FIFO or a link: a listing asks every live-looking session, and must not hang on one.
    try:
        text = read_bytes(pid_path(path), 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and int(text) > 0 else None


class SessionLog:
    """The writer side of one session: held live (locked) from create/open until close."""

    def __init__(
        self, path: Path, session_id: str, cwd: str | None, fd: int, header: dict[str, Any] | None = None
    ) -> None:
        self.path = path
        self.id = session_id
        self.cwd = cwd
        self._fd: int | None = fd
        self._header = header  # written again at the top of a log found emptied under this host
        # The log's length after this host's last write: a file shorter than this was truncated.
        self._size = os.fstat(fd).st_size
        # Lines for the user: the log was found removed, replaced or truncated, and what was done.
        self.notices: list[str] = []
        self._failed_repair = ""
        # Lines the disk refused (full, failing), oldest first: written before the next event.
        self._pending: collections.deque[bytes] = collections.deque()
        self._dropped = 0
        # A write failed: the file may end in part of a line, so look before the next one.
        self._maybe_torn = False

    @classmethod
    def create(cls, root: Path, cwd: str, *, session_id: str | None = None, base: Path | None = None) -> SessionLog:
        """Start a new session for `cwd` (absolute) under `root`: header written, marked live.

        Folders are made from `base` down (the dsh home when the root is in it; by default the
        nearest folder of `root` that exists), none of them a link or writable by another user.
        """
        if not os.path.isabs(cwd):
            raise LogError(f"session workspace must be an absolute path, not {cwd!r}")
        sid = validate_session_id(session_id) if session_id is not None else new_session_id()
        path = log_path(root, cwd, sid)
        try:
            ensure_dir(path.parent, base if base is not None else nearest_existing(root))
        except OSError as exc:
            raise LogError(f"cannot create the session folder {path.parent}: {_oserror_text(exc)}") from exc
        try:
            fd = create_new(path)
        except FileExistsError as exc:
            raise LogError(f"{path}: a session with id {sid} already exists") from exc
        except OSError as exc:
            raise LogError(f"{path}: cannot create session log: {_oserror_text(exc)}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _write_pid(path)
            header = {
                "type": HEADER_TYPE,
                "version": LOG_VERSION,
                "id": sid,
                "cwd": cwd,
                "created_at": now_iso(),
                "dsh": __version__,
            }
            append_all(fd, _encode_line(header))
        except BaseException as exc:
            # The file is ours (O_EXCL); a log without its header would only confuse listings.
            os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            with contextlib.suppress(OSError):
                pid_path(path).unlink()
            if isinstance(exc, OSError):
                raise LogError(f"{path}: cannot start session log: {_oserror_text(exc)}") from exc
            raise
        return cls(path, sid, cwd, fd, header)

    @classmethod
    def open_existing(cls, path: Path) -> SessionLog:
        """Take over an existing session (resume): mark it live here and append a `resume` event."""
        path = Path(path)
        sid = _id_from_path(path)
        header = read_header(path)
        _check_writable(path, header)
        try:
            fd = open_rw_append(path)
        except OSError as exc:
            raise LogError(f"{path}: cannot open session log: {_oserror_text(exc)}") from exc
        try:
            _lock_or_busy(fd, path)
            _write_pid(path)
            log = cls(path, sid, header.get("cwd") if isinstance(header.get("cwd"), str) else None, fd, header)
        except BaseException:
            os.close(fd)
            raise
        # A crash (or a full disk) may have cut the last line short: our events start on a line of their own.
        log._maybe_torn = True
        log.append("resume", pid=os.getpid())
        touch_folder(path)
        return log

    @property
    def closed(self) -> bool:
        return self._fd is None

    @property
    def pending(self) -> int:
        """Events waiting for the disk to take them."""
        return len(self._pending)

    def append(self, type: str, **fields: Any) -> None:
        """Append one event line (`type`, `at`, fields) and hand it to the kernel at once.

        When the disk refuses it (ENOSPC, EIO), LogError says so and the event is kept, with any
        refused before it, to be written (in order, on a fresh line) by the next append that succeeds.
        """
        if self._fd is None:
            raise LogError(f"{self.path}: session log is closed")
        self.watch()
        self._pending.append(_encode_line(_event(type, fields)))
        if len(self._pending) > MAX_PENDING:
            self._pending.popleft()
            self._dropped += 1
        self._flush(self._fd)

    def _flush(self, fd: int) -> None:
        while self._pending:
            data = self._pending[0]
            try:
                if self._maybe_torn and ends_torn(fd):
                    data = b"\n" + data
                append_all(fd, data)
            except OSError as exc:
                self._maybe_torn = True
                held = len(self._pending)
                kept = f"; {held} event{'s' if held != 1 else ''} kept until it can be written"
                raise LogError(f"{self.path}: cannot append to session log: {_oserror_text(exc)}{kept}") from exc
            self._maybe_torn = False
            self._pending.popleft()
            self._size = os.fstat(fd).st_size
        if self._dropped:
            dropped, self._dropped = self._dropped, 0
            lost = _event("events_lost", {"count": dropped, "reason": "disk refused writes"})
            self._pending.append(_encode_line(lost))
            self._flush(fd)

    def set_title(self, title: str) -> None:
        self.append("title", title=title)

    def watch(self) -> None:
        """check_file, its line (or why it could not put the log right, once) added to `notices`."""
        try:
            notice = self.check_file()
        except (LogError, OSError) as exc:
            text = exc.args[0] if isinstance(exc, LogError) else _oserror_text(exc)
            notice = f"session log {self.path} is gone and cannot be written again ({text}): its events are kept"
            if notice == self._failed_repair:
                return  # said once; tried again at every append and check
            self._failed_repair = notice
        else:
            self._failed_repair = ""
        if notice:
            self.notices.append(notice)

    def check_file(self) -> str | None:
        """Whether the file at `path` is still this log as this host wrote it, put right when not: a log
        removed (an rm, a removed DSH_HOME) or replaced (another file moved over it) is written again
        from the descriptor held here, which still reads all of it (a file found in its place is kept
        beside it); a log truncated gets its header again. The line that says what happened, or None.
        OSError or LogError when it cannot be put right (the events still go to the descriptor)."""
        fd = self._fd
        if fd is None:
            return None
        mine = os.fstat(fd)
        try:
            there: os.stat_result | None = os.lstat(self.path)
        except FileNotFoundError:
            there = None
        if there is not None and (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino):
            if mine.st_size >= self._size:
                self._size = mine.st_size
                return None
            return self._after_truncation(fd, mine.st_size)
        return self._write_again(fd, aside=there is not None)

    def _after_truncation(self, fd: int, size: int) -> str:
        was, self._size = self._size, size
        self._maybe_torn = True
        if _header_at_top(fd, self.id) or self._header is None:
            return f"this session's log was cut short ({was} bytes to {size}): its events go on after what is left"
        os.ftruncate(fd, 0)  # what is left is a piece of the header at most: nothing a reader could use
        append_all(fd, _encode_line(self._header))
        self._size = os.fstat(fd).st_size
        return f"this session's log was emptied ({was} bytes to {size}): its header is written again"

    def _write_again(self, fd: int, *, aside: bool) -> str:
        folder = self.path.parent
        for level in (folder.parent, folder):  # never through a link planted in place of a folder
            if os.path.lexists(level):
                check_folder(level)
        kept = ""
        if aside:  # whatever is there now is kept, beside the log, never overwritten
            kept_path = self.path.with_name(f"{self.path.name}.replaced-{time.strftime('%Y%m%dT%H%M%S')}")
            os.rename(self.path, kept_path)
            kept = f" (what was in its place is kept beside it as {kept_path.name})"
        ensure_dir(folder, nearest_existing(folder))
        tmp = folder / f".{self.path.name}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        new = create_new(tmp)
        try:
            fcntl.flock(new, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held before the name is: never seen unlocked
            if not _header_at_top(fd, self.id) and self._header is not None:
                append_all(new, _encode_line(self._header))
            offset = 0
            while chunk := os.pread(fd, READ_CHUNK, offset):
                append_all(new, chunk)
                offset += len(chunk)
            os.rename(tmp, self.path)
        except BaseException:
            os.close(new)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        os.close(fd)
        self._fd = new
        self._size = os.fstat(new).st_size
        self._maybe_torn = True
        with contextlib.suppress(OSError):
            _write_pid(self.path)
        touch_folder(self.path)
        what = "replaced" if aside else "removed"
        return f"this session's log was {what}: written again from this host's copy{kept}"

    def close(self) -> None:
        """Append `close`, drop the pid file and the lock. Safe to call twice."""
        fd = self._fd
        if fd is None:
            return
        try:
            self.append("close")
        finally:
            self._fd = None
            if _read_pid(self.path) == os.getpid():
                try:
                    pid_path(self.path).unlink()
                except OSError:
                    pass
            os.close(fd)

    def __enter__(self) -> SessionLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _header_at_top(fd: int, session_id: str) -> bool:
    """Whether the file open as `fd` starts with a whole header line of session `session_id`."""
    first = os.pread(fd, _HEADER_MAX + 1, 0).split(b"\n", 1)
    if len(first) < 2:
        return False
    try:
        header = json.loads(first[0])
    except (ValueError, RecursionError):
        return False
    return isinstance(header, dict) and header.get("type") == HEADER_TYPE and header.get("id") == session_id


def _id_from_path(path: Path) -> str:
    name = path.name
    if not name.endswith(LOG_SUFFIX):
        raise LogError(f"{path}: not a session log (expected a {LOG_SUFFIX} file)")
    try:
        return validate_session_id(name[: -len(LOG_SUFFIX)])
    except InvalidSessionId as exc:
        raise LogError(f"{path}: {exc}") from exc


def append_event(path: Path, type: str, **fields: Any) -> None:
    """Append an event to a log this process does not own (e.g. rename or archive from a picker)."""
    path = Path(path)
    _id_from_path(path)
    try:
        fd = open_rw_append(path)
    except OSError as exc:
        raise LogError(f"{path}: cannot open session log: {_oserror_text(exc)}") from exc
    try:
        if os.fstat(fd).st_size > 0:
            _check_writable(path, read_header(path))
        if os.fstat(fd).st_size == 0:
            raise LogError(f"{path}: empty log (no header); not appending")
        data = _encode_line(_event(type, fields))
        append_all(fd, b"\n" + data if ends_torn(fd) else data)
    except OSError as exc:
        raise LogError(f"{path}: cannot append to session log: {_oserror_text(exc)}") from exc
    finally:
        os.close(fd)
        # Even after a failed write: part of a line may have reached the file.
        touch_folder(path)


def touch_folder(path: Path) -> None:
    """Move the mtime of a log's folder, after appending to a log whose session may be closed: an append
    alone does not move it, and the index's refresh looks in a folder again only when it moved (see
    store/scan.py). The host that holds a session needs none: the refresh stats every open log."""
    with contextlib.suppress(OSError):
        os.utime(path.parent, follow_symlinks=False)


def read_header(path: Path) -> dict[str, Any]:
    """The header of a log, checked: a JSON object of type `session` with a valid id (if any) and cwd."""
    path = Path(path)
    try:
        with open_read(path) as fh:
            first = fh.readline(_HEADER_MAX + 1)
    except OSError as exc:
        raise LogError(f"{path}: cannot read: {_oserror_text(exc)}") from exc
    if not first.strip():
        raise LogError(f"{path}: empty log (no header line)")
    if len(first) > _HEADER_MAX:
        raise LogError(f"{path}:1: header line is too long to be a session header")
    if _too_deep(first):
        raise LogError(f"{path}:1: header is nested deeper than {MAX_DEPTH} levels")
    try:
        header: dict[str, Any] = json.loads(first.decode("utf-8"))  # _check_header refuses what is not
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise LogError(f"{path}:1: header is not valid JSON ({_short(exc)})") from exc
    _check_header(path, header)
    return header


def _check_header(path: str | Path, header: object) -> None:
    if not isinstance(header, dict) or header.get("type") != HEADER_TYPE:
        raise LogError(f"{path}:1: first line is not a session header")
    sid = header.get("id")
    if sid is not None:
        try:
            validate_session_id(sid)
        except InvalidSessionId as exc:
            raise LogError(f"{path}:1: {exc}") from exc
    cwd = header.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise LogError(f"{path}:1: header cwd is not a path")


def _check_writable(path: Path, header: dict[str, Any]) -> None:
    """A log a newer dsh wrote may be read (its events are listed as far as this dsh knows them) but
    not appended to: this dsh's events could break what the newer one expects of its own log."""
    version = header.get("version", LOG_VERSION)
    if not isinstance(version, int) or isinstance(version, bool):
        raise LogError(f"{path}:1: header version {ascii(version)[:40]} is not a number; not writing to this log")
    if version > LOG_VERSION:
        raise LogError(
            f"{path}: written by a newer dsh (log version {version}; this dsh writes version {LOG_VERSION}): "
            "upgrade dsh to resume or change this session"
        )


def _short(exc: Exception, limit: int = 120) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]')


def _depth(raw: bytes) -> int:
    """How deep the arrays and objects of one JSON line nest (brackets inside strings do not count)."""
    depth = deepest = 0
    for token in _TOKENS.findall(raw):
        first = token[:1]
        if first in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif first in (b"]", b"}"):
            depth -= 1
    return deepest


def _too_deep(raw: bytes) -> bool:
    # Counting brackets is one C pass; only a line with that many is scanned properly.
    return raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _depth(raw) > MAX_DEPTH


def read_log(path: Path) -> LogContents:
    """Every readable record of a log. A torn last line and malformed lines are skipped with a warning
    naming the file and line; the lines around them are kept. Raises LogError if the file cannot be read."""
    path = Path(path)
    out = LogContents(header=None)
    try:
        with open_read(path) as fh:
            scan = scan_log(path, fh, out.events.extend)
    except OSError as exc:
        raise LogError(f"{path}: cannot read: {_oserror_text(exc)}") from exc
    out.header, out.warnings = scan.header, scan.warnings
    return out


def parse_log(path: Path, data: bytes) -> LogContents:
    """The records of a log's bytes; see read_log."""
    out = LogContents(header=None)
    scan = scan_log(path, io.BytesIO(data), out.events.extend)
    out.header, out.warnings = scan.header, scan.warnings
    return out


class LogScan(Value, fields=("header", "warnings")):
    """What scan_log found besides the events: the header, and warnings naming file and line."""

    header: dict[str, Any] | None
    warnings: list[str]

    def __init__(self, header: dict[str, Any] | None = None, warnings: list[str] | None = None) -> None:
        self.header = header
        self.warnings = [] if warnings is None else warnings


def scan_log(
    path: str | Path, fh: BinaryIO, each: Callable[[list[dict[str, Any]]], object], chunk: int = READ_CHUNK
) -> LogScan:
    """Read a log a chunk of whole lines at a time, handing each chunk's events to `each`.

    Memory stays bounded by the chunk (and the longest line), not by the log: a 50 MB log is never
    held whole, nor all its records at once.
    """
    scan = LogScan()
    leftover = b""
    line = 0  # lines before the current chunk
    saw_any = False
    while True:
        data = fh.read(chunk)
        if not data:
            break
        data = leftover + data if leftover else data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            leftover = data  # one line longer than a chunk: keep reading until it ends
            continue
        whole, leftover = data[:cut], data[cut:]
        saw_any = True
        each(_parse_chunk(path, whole, line, scan))
        line += whole.count(b"\n")
    if leftover:
        saw_any = True
        each(_parse_lines(path, leftover, line, scan, complete=False))
    if not saw_any:
        scan.warnings.append(f"{path}: empty log (no header line)")
    elif scan.header is None and not any(w.startswith(f"{path}:1:") for w in scan.warnings):
        scan.warnings.append(f"{path}:1: no session header")
    return scan


def _parse_chunk(path: str | Path, data: bytes, line: int, scan: LogScan) -> list[dict[str, Any]]:
    fast = _parse_clean(data, first=line == 0)
    if fast is not None:
        if line == 0:
            scan.header = fast.pop(0)
        return fast
    return _parse_lines(path, data, line, scan, complete=True)


def _parse_clean(data: bytes, *, first: bool = True) -> list[dict[str, Any]] | None:
    """The common case in one C-speed json call: whole lines with no bad one. None means: look line by
    line. With `first`, the first record must be a valid header (it stays first in the list)."""
    if not data.endswith(b"\n") or b"\n\n" in data or data.startswith(b"\n"):
        return None
    count = data.count(b"\n")
    # Each record is an object, so its line holds one "{"; more brackets than MAX_DEPTH beyond those
    # could make one line too deep, and the careful path checks line by line.
    if data.count(b"[") + data.count(b"{") - count >= MAX_DEPTH:
        return None
    try:
        text = data.decode("utf-8")
        # Raw newlines cannot occur inside JSON strings, so each newline ends exactly one record.
        records: list[dict[str, Any]] = json.loads("[" + text[:-1].replace("\n", ",") + "]")
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if len(records) != count:
        return None
    for record in records:
        if type(record) is not dict or type(record.get("type")) is not str:
            return None
    if first:
        head = records[0]
        if head["type"] != HEADER_TYPE:
            return None
        sid, cwd = head.get("id"), head.get("cwd")
        if (sid is not None and not is_valid_session_id(sid)) or (cwd is not None and type(cwd) is not str):
            return None
    return records


def _parse_lines(path: str | Path, data: bytes, line: int, scan: LogScan, *, complete: bool) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    last = len(lines)
    warnings = scan.warnings
    for offset, raw in enumerate(lines, start=1):
        number = line + offset
        if not raw.strip():
            continue
        if _too_deep(raw):
            warnings.append(f"{path}:{number}: malformed line skipped (nested deeper than {MAX_DEPTH} levels)")
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            warnings.append(f"{path}:{number}: invalid UTF-8 bytes shown as U+FFFD")
        try:
            record = json.loads(text)
        except (ValueError, RecursionError) as exc:
            if offset == last and not complete:
                warnings.append(f"{path}:{number}: torn last line (incomplete write) ignored")
            else:
                warnings.append(f"{path}:{number}: malformed line skipped ({_short(exc, 80)})")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            warnings.append(f"{path}:{number}: line is not an event object; skipped")
            continue
        if number == 1 and record["type"] == HEADER_TYPE:
            try:
                _check_header(path, record)
            except LogError as exc:
                warnings.append(str(exc))
                continue
            scan.header = record
            continue
        events.append(record)
    return events


def live_pid(path: Path) -> int | None:
    """The pid of the process holding this session live, or None. Decided by the lock, not the pid file.

    Returns -1 for a session that is held but whose pid file cannot be read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pass
        except OSError:
            return None
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
    finally:
        os.close(fd)
    # Held. The holder writes its pid right after locking; give it a moment if we caught it between.
    for _ in range(20):
        pid = _read_pid(path)
        if pid is not None:
            return pid
        time.sleep(0.005)
    return -1
