"""Finding the host process of a session in a test's DSH_HOME (the pid file beside its log)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path


def host_pid(home: Path, session_id: str | None = None) -> int:
    """The pid of `session_id`'s host (or of the only live session's), waiting briefly for its pid file."""
    pattern = f"*/{session_id}.pid" if session_id else "*/*.pid"
    deadline = time.monotonic() + 5.0
    while True:
        found = sorted((home / "sessions").glob(pattern))
        if len(found) == 1:
            return int(found[0].read_text())
        if time.monotonic() > deadline:
            raise AssertionError(f"expected one host pid file for {pattern}, found {found}")
        time.sleep(0.05)


def kill_host(home: Path, sig: int = signal.SIGKILL, session_id: str | None = None) -> int:
    """Signal a session's host (SIGKILL: as a crash or a power loss would end it) and wait until it is gone."""
    pid = host_pid(home, session_id)
    os.kill(pid, sig)
    deadline = time.monotonic() + 10.0
    while alive(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"host {pid} did not end after signal {sig}")
        time.sleep(0.05)
    return pid


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


def running(home: Path, cmdline: str) -> list[int]:
    """Pids of live processes started under this DSH_HOME whose command line is `cmdline` (as pgrep -f
    would match it, but only ours: other tests and other sessions run the same commands)."""
    marker = f"DSH_HOME={home}".encode()
    wanted = cmdline.encode().split()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                argv = [part for part in handle.read().split(b"\0") if part]
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read().split(b"\0")
        except OSError:
            continue
        if argv == wanted and marker in environ and alive(int(entry)):
            found.append(int(entry))
    return found


def wait_saved(home: Path, *needles: bytes, timeout: float = 15.0) -> None:
    """Wait until the session's snapshot (and its tails) hold every one of `needles`: what a restore
    will find, whatever the load on the machine (a fixed sleep past the debounce is not enough). A write
    puts the tails first and snapshot.json last, so the write is whole only once snapshot.json is there
    and no older than its tails: a new session writes its first snapshot at its first tick, and a host
    killed between the two left no snapshot.json to restore from."""
    deadline = time.monotonic() + timeout
    while True:
        saved = b""
        for path in (home / "state").glob("*/snapshot.json"):
            saved += _read(path)
        for path in (home / "state").glob("*/history/*.tail"):
            saved += _read(path)
        if all(needle in saved for needle in needles) and _writes_whole(home):
            return
        if time.monotonic() > deadline:
            missing = [n for n in needles if n not in saved]
            raise AssertionError(f"the snapshot never held {missing!r}")
        time.sleep(0.1)


def _writes_whole(home: Path) -> bool:
    """Every state folder with tails has a snapshot.json written after them."""
    for folder in (home / "state").glob("*"):
        try:
            tails = [path.stat().st_mtime_ns for path in folder.glob("history/*.tail")]
            written = (folder / "snapshot.json").stat().st_mtime_ns if tails else 0
        except OSError:  # a tail replaced while looked at, or no snapshot.json yet
            return False
        if tails and written < max(tails):
            return False
    return True


def wait_pane_cwd_saved(home: Path, cwd: str, timeout: float = 15.0) -> None:
    """Wait until a pane's record in snapshot.json itself says it is in `cwd` (the tails, written first,
    can hold what was typed and printed there before snapshot.json records the move)."""
    deadline = time.monotonic() + timeout
    while True:
        for path in (home / "state").glob("*/snapshot.json"):
            try:
                panes = json.loads(_read(path) or b"{}").get("panes") or []
            except ValueError:
                continue
            if any(isinstance(pane, dict) and pane.get("cwd") == cwd for pane in panes):
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"no snapshot recorded a pane in {cwd}")
        time.sleep(0.1)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""
