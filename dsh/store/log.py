"""Session logs: one append-only JSONL file per session, its writer, its tolerant reader, and its live marker.

Layout: `<root>/<workspace-partition>/<id>.jsonl`, first line the header, then one event per line.
A running session holds an flock on its log (the kernel drops it if the process dies) and writes its
pid to the sibling `<id>.pid`; the pid file alone proves nothing, the lock decides.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dsh import __version__
from dsh.store.ids import InvalidSessionId, is_valid_session_id, new_session_id, validate_session_id
from dsh.store.timefmt import now_iso
from dsh.store.workspace import workspace_partition

LOG_SUFFIX = ".jsonl"
PID_SUFFIX = ".pid"
HEADER_TYPE = "session"
LOG_VERSION = 1
# A header longer than this is not a header; it keeps read_header from swallowing a huge first line.
_HEADER_MAX = 1 << 20
_BUSY_RETRY_SECONDS = 0.3


class LogError(Exception):
    """A session log cannot be used; the message names the file and says why."""


class SessionBusy(LogError):
    """Another live process holds this session."""

    def __init__(self, path: Path, pid: int | None) -> None:
        who = f"process {pid}" if pid and pid > 0 else "another process"
        super().__init__(f"{path}: session is live in {who}")
        self.path = path
        self.pid = pid


@dataclass
class LogContents:
    header: dict[str, Any] | None
    events: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


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
        # Lone surrogates (undecodable terminal bytes) cannot be UTF-8; JSON escapes keep them.
        return (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _ends_torn(fd: int) -> bool:
    """True when the file does not end in a newline (a crash cut the last line short)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return False
    return os.pread(fd, 1, size - 1) != b"\n"


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
    target = pid_path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        _write_all(fd, f"{os.getpid()}\n".encode())
    finally:
        os.close(fd)
    os.replace(tmp, target)


def _read_pid(path: Path) -> int | None:
    try:
        text = pid_path(path).read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and int(text) > 0 else None


class SessionLog:
    """The writer side of one session: held live (locked) from create/open until close."""

    def __init__(self, path: Path, session_id: str, cwd: str | None, fd: int) -> None:
        self.path = path
        self.id = session_id
        self.cwd = cwd
        self._fd: int | None = fd

    @classmethod
    def create(cls, root: Path, cwd: str, *, session_id: str | None = None) -> SessionLog:
        """Start a new session for `cwd` (absolute) under `root`: header written, marked live."""
        if not os.path.isabs(cwd):
            raise LogError(f"session workspace must be an absolute path, not {cwd!r}")
        sid = validate_session_id(session_id) if session_id is not None else new_session_id()
        path = log_path(root, cwd, sid)
        _make_dirs(root)
        _make_dirs(path.parent)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
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
            _write_all(fd, _encode_line(header))
        except BaseException as exc:
            # The file is ours (O_EXCL); a log without its header would only confuse listings.
            os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            if isinstance(exc, OSError):
                raise LogError(f"{path}: cannot start session log: {_oserror_text(exc)}") from exc
            raise
        return cls(path, sid, cwd, fd)

    @classmethod
    def open_existing(cls, path: Path) -> SessionLog:
        """Take over an existing session (resume): mark it live here and append a `resume` event."""
        path = Path(path)
        sid = _id_from_path(path)
        header = read_header(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError as exc:
            raise LogError(f"{path}: cannot open session log: {_oserror_text(exc)}") from exc
        try:
            _lock_or_busy(fd, path)
            _write_pid(path)
            if _ends_torn(fd):
                # Close off the torn fragment so our events start on a line of their own.
                _write_all(fd, b"\n")
            log = cls(path, sid, header.get("cwd") if isinstance(header.get("cwd"), str) else None, fd)
        except BaseException:
            os.close(fd)
            raise
        log.append("resume", pid=os.getpid())
        return log

    @property
    def closed(self) -> bool:
        return self._fd is None

    def append(self, type: str, **fields: Any) -> None:
        """Append one event line (`type`, `at`, fields) and hand it to the kernel at once."""
        if self._fd is None:
            raise LogError(f"{self.path}: session log is closed")
        try:
            _write_all(self._fd, _encode_line(_event(type, fields)))
        except OSError as exc:
            raise LogError(f"{self.path}: cannot append to session log: {_oserror_text(exc)}") from exc

    def set_title(self, title: str) -> None:
        self.append("title", title=title)

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


def _make_dirs(path: Path) -> None:
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise LogError(f"{path}: exists and is not a directory") from exc
    except OSError as exc:
        raise LogError(f"{path}: cannot create folder: {_oserror_text(exc)}") from exc


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
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        raise LogError(f"{path}: cannot open session log: {_oserror_text(exc)}") from exc
    try:
        if os.fstat(fd).st_size == 0:
            raise LogError(f"{path}: empty log (no header); not appending")
        data = _encode_line(_event(type, fields))
        if _ends_torn(fd):
            data = b"\n" + data
        _write_all(fd, data)
    finally:
        os.close(fd)


def read_header(path: Path) -> dict[str, Any]:
    """The header of a log, checked: a JSON object of type `session` with a valid id (if any) and cwd."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            first = fh.readline(_HEADER_MAX + 1)
    except OSError as exc:
        raise LogError(f"{path}: cannot read: {_oserror_text(exc)}") from exc
    if not first.strip():
        raise LogError(f"{path}: empty log (no header line)")
    if len(first) > _HEADER_MAX:
        raise LogError(f"{path}:1: header line is too long to be a session header")
    try:
        header = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise LogError(f"{path}:1: header is not valid JSON ({_short(exc)})") from exc
    _check_header(path, header)
    return header


def _check_header(path: Path, header: object) -> None:
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


def _short(exc: Exception, limit: int = 120) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_log(path: Path) -> LogContents:
    """Every readable record of a log. A torn last line and malformed lines are skipped with a warning
    naming the file and line; the lines around them are kept. Raises LogError if the file cannot be read."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise LogError(f"{path}: cannot read: {_oserror_text(exc)}") from exc
    return parse_log(path, data)


def parse_log(path: Path, data: bytes) -> LogContents:
    """The records of a log's bytes; see read_log."""
    if not data:
        return LogContents(header=None, warnings=[f"{path}: empty log (no header line)"])
    fast = _parse_clean(data)
    if fast is not None:
        return fast
    return _parse_line_by_line(path, data)


def _parse_clean(data: bytes) -> LogContents | None:
    """The common case in one C-speed json call: a log with no bad line. None means: look line by line."""
    if not data.endswith(b"\n") or b"\n\n" in data:
        return None
    try:
        text = data.decode("utf-8")
        # Raw newlines cannot occur inside JSON strings, so each newline ends exactly one record.
        records = json.loads("[" + text[:-1].replace("\n", ",") + "]")
    except (UnicodeDecodeError, ValueError):
        return None
    if len(records) != text.count("\n"):
        return None
    for record in records:
        if type(record) is not dict or type(record.get("type")) is not str:
            return None
    first = records[0]
    if first["type"] != HEADER_TYPE:
        return None
    sid, cwd = first.get("id"), first.get("cwd")
    if (sid is not None and not is_valid_session_id(sid)) or (cwd is not None and type(cwd) is not str):
        return None
    return LogContents(header=first, events=records[1:])


def _parse_line_by_line(path: Path, data: bytes) -> LogContents:
    out = LogContents(header=None)
    lines = data.split(b"\n")
    complete = lines[-1] == b""
    if complete:
        lines.pop()
    last = len(lines)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            out.warnings.append(f"{path}:{number}: invalid UTF-8 bytes shown as U+FFFD")
        try:
            record = json.loads(text)
        except ValueError as exc:
            if number == last and not complete:
                out.warnings.append(f"{path}:{number}: torn last line (incomplete write) ignored")
            else:
                out.warnings.append(f"{path}:{number}: malformed line skipped ({_short(exc, 80)})")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            out.warnings.append(f"{path}:{number}: line is not an event object; skipped")
            continue
        if number == 1 and record["type"] == HEADER_TYPE:
            try:
                _check_header(path, record)
            except LogError as exc:
                out.warnings.append(str(exc))
                continue
            out.header = record
            continue
        out.events.append(record)
    if out.header is None and not any(w.startswith(f"{path}:1:") for w in out.warnings):
        out.warnings.append(f"{path}:1: no session header")
    return out


def live_pid(path: Path) -> int | None:
    """The pid of the process holding this session live, or None. Decided by the lock, not the pid file.

    Returns -1 for a session that is held but whose pid file cannot be read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
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
