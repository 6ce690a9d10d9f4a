"""What the kernel says about a running agent: argv, cwd, environment, executable, start time, open files."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

# Reads of /proc are capped: an environment or an argv is small, but this is untrusted input.
_MAX_PROC_READ = 1 << 20
_MAX_OPEN_FILES = 4096


@dataclass(frozen=True)
class ProcessFacts:
    """One process as /proc shows it. Any part may be missing (another user's process, a race with exit)."""

    pid: int
    argv: tuple[str, ...] = ()
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    exe: str | None = None
    # Start time in clock ticks since boot (/proc/PID/stat field 22): with the pid, it names one process
    # for good (a pid is reused, this pair is not). Claude Code records it as `procStart`.
    start_ticks: int | None = None
    started_at: float | None = None  # wall-clock seconds, from start_ticks and the boot time
    open_files: tuple[str, ...] = ()


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(_MAX_PROC_READ)
    except OSError:
        return None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def parse_environ(raw: bytes) -> dict[str, str]:
    env: dict[str, str] = {}
    for entry in raw.split(b"\0"):
        key, sep, value = entry.partition(b"=")
        if sep and key:
            env[_text(key)] = _text(value)
    return env


def parse_stat_start(raw: bytes) -> int | None:
    """Field 22 (starttime) of /proc/PID/stat; the command name (field 2) may hold spaces and parens."""
    close = raw.rfind(b")")
    if close < 0:
        return None
    fields = raw[close + 2 :].split()
    # Fields after the name start at field 3, so starttime (22) is the 20th of them.
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def boot_time(proc: str = "/proc") -> float | None:
    raw = _read(f"{proc}/stat")
    if raw is None:
        return None
    for line in raw.splitlines():
        if line.startswith(b"btime "):
            try:
                return float(line.split()[1])
            except (IndexError, ValueError):
                return None
    return None


def _open_files(proc: str, pid: int) -> tuple[str, ...]:
    folder = f"{proc}/{pid}/fd"
    try:
        names = os.listdir(folder)[:_MAX_OPEN_FILES]
    except OSError:
        return ()
    out: list[str] = []
    for name in names:
        try:
            target = os.readlink(f"{folder}/{name}")
        except OSError:
            continue
        if target.startswith("/") and not target.startswith(("/dev/", "/proc/")):
            out.append(target)
    return tuple(out)


# pid -> (its start in clock ticks, whether it runs in a dsh pane). A process's environment is fixed at
# its exec, so once read it holds for as long as that process lives; the start time tells a reused pid.
_IN_DSH: dict[int, tuple[int, bool]] = {}
_IN_DSH_MAX = 4096


def in_dsh_pane(pid: int, *, proc: str = "/proc") -> bool:
    """Whether the process runs in a dsh pane (its environment names one); one that cannot be read
    counts as not. /agents asks this of every Claude Code session record on each open, so a process
    already read is known again from its start time alone, not its whole environment."""
    stat = _read(f"{proc}/{pid}/stat")
    start = parse_stat_start(stat) if stat is not None else None
    if start is None:
        _IN_DSH.pop(pid, None)
        return False
    known = _IN_DSH.get(pid)
    if known is not None and known[0] == start:
        return known[1]
    raw = _read(f"{proc}/{pid}/environ")
    if raw is None:
        return False  # another user's process, or gone: asked again next time
    inside = b"\0DSH_PANE_ID=" in b"\0" + raw
    if len(_IN_DSH) >= _IN_DSH_MAX:
        _IN_DSH.clear()
    _IN_DSH[pid] = (start, inside)
    return inside


def read_process(pid: int, *, proc: str = "/proc", with_files: bool = True) -> ProcessFacts | None:
    """What /proc/PID says now, or None when the process is gone."""
    base = f"{proc}/{pid}"
    cmdline = _read(f"{base}/cmdline")
    if cmdline is None:
        return None
    argv = tuple(_text(part) for part in cmdline.split(b"\0") if part)
    try:
        cwd: str | None = os.readlink(f"{base}/cwd")
    except OSError:
        cwd = None
    try:
        exe: str | None = os.readlink(f"{base}/exe")
    except OSError:
        exe = None
    raw_env = _read(f"{base}/environ")
    stat = _read(f"{base}/stat")
    ticks = parse_stat_start(stat) if stat is not None else None
    started_at = None
    if ticks is not None:
        booted = boot_time(proc)
        if booted is not None:
            started_at = booted + ticks / os.sysconf("SC_CLK_TCK")
    return ProcessFacts(
        pid=pid,
        argv=argv,
        cwd=cwd,
        env=parse_environ(raw_env) if raw_env is not None else {},
        exe=exe,
        start_ticks=ticks,
        started_at=started_at,
        open_files=_open_files(proc, pid) if with_files else (),
    )


def children(pid: int, *, proc: str = "/proc") -> list[int]:
    """The direct children of `pid` (every thread's children), for a launcher that runs the real CLI."""
    out: list[int] = []
    try:
        threads = os.listdir(f"{proc}/{pid}/task")
    except OSError:
        return out
    for tid in threads:
        raw = _read(f"{proc}/{pid}/task/{tid}/children")
        if raw:
            out.extend(int(part) for part in raw.split() if part.isdigit())
    return out


def resolve_program(argv0: str, *, path: str | None, cwd: str | None) -> str | None:
    """The absolute path `argv0` ran as: itself when absolute, else found relative to `cwd` or on `path`
    (the PATH the process itself was started with, not dsh's)."""
    if not argv0:
        return None
    if os.path.isabs(argv0):
        return argv0 if _executable(argv0) else None
    if "/" in argv0:
        if cwd is None:
            return None
        full = os.path.normpath(os.path.join(cwd, argv0))
        return full if _executable(full) else None
    for folder in (path or "").split(os.pathsep):
        if not folder:
            continue
        if not os.path.isabs(folder):
            if cwd is None:
                continue
            folder = os.path.join(cwd, folder)
        full = os.path.join(folder, argv0)
        if _executable(full):
            return os.path.normpath(full)
    return None


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def running_with(token: str, programs: tuple[str, ...], *, proc: str = "/proc") -> list[tuple[int, str | None]]:
    """(pid, its terminal) of each process of one of `programs` (by argv[0]'s or argv[1]'s name: a node
    script's too) whose argv holds `token`: a conversation id given to `claude --resume`, say."""
    found: list[tuple[int, str | None]] = []
    own = os.getpid()
    try:
        names = os.listdir(proc)
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or int(name) == own:
            continue
        raw = _read(f"{proc}/{name}/cmdline")
        if not raw or token.encode() not in raw:
            continue
        argv = [_text(part) for part in raw.split(b"\0") if part]
        if not any(os.path.basename(word) in programs for word in argv[:2]) or token not in argv:
            continue
        try:
            tty: str | None = os.readlink(f"{proc}/{name}/fd/0")
        except OSError:
            tty = None
        found.append((int(name), tty if tty and tty.startswith("/dev/") else None))
    return found
