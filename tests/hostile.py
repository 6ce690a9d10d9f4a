"""Helpers for the hostile-input tests: sessions in a temp home, files outside it that must not change,
the installed `dsh` run with a time limit, and a small disk that can be filled and freed."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dsh.config import load_config
from dsh.persist.records import PaneRecord
from dsh.store.store import Store

# Bytes that must never reach the user's terminal from text dsh read: ESC, CSI/OSC in C1, BEL, bidi.
RAW_CONTROLS = ("\x1b", "\x9b", "\x9d", "\x07", "\u202e", "\u2066")


def make_sessions(cwd: Path | str, *titles: str) -> list[str]:
    """Closed sessions in `cwd`, one per title (its first input); returns their ids."""
    store = Store(load_config(env={}))
    ids = []
    for title in titles:
        log = store.create_session(str(cwd))
        log.append("input", text=title)
        log.close()
        ids.append(log.id)
    store.close()
    return ids


def exited_pane(pane_id: str) -> PaneRecord:
    """A snapshot's record of a plain `sh` pane that has exited (0), in tab t1."""
    return PaneRecord(
        id=pane_id,
        tab="t1",
        title="sh",
        cwd="/",
        argv=["sh"],
        env={},
        rows=24,
        cols=80,
        agent=None,
        lifecycle="exited",
        exit_status=0,
        attention=False,
        last_message=None,
        created_at="2026-01-01T00:00:00.000Z",
    )


def run_dsh(
    dsh_cmd: list[str], env: dict[str, str], *args: str, cwd: Path | str | None = None, timeout: float = 20.0
) -> subprocess.CompletedProcess[str]:
    """The installed dsh, its output as text (bytes that are not UTF-8 shown as U+FFFD); a hang fails
    the test by the timeout, never the suite."""
    return subprocess.run(
        [*dsh_cmd, *args], env=env, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=timeout
    )


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    """No traceback, and nothing from disk reached the terminal raw."""
    for stream in (result.stdout, result.stderr):
        assert "Traceback" not in stream, stream
        for ch in RAW_CONTROLS:
            assert ch not in stream, (ch, stream)


@contextlib.contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail with TimeoutError instead of hanging (a blocking open of a FIFO is interrupted by the alarm)."""
    import signal

    def expired(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"still blocked after {seconds} s: something waited on a FIFO or a device")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Outside:
    """Files outside DSH_HOME that a hostile home points at; check() proves them byte-for-byte unchanged."""

    folder: Path
    files: dict[Path, tuple[str, int]] = field(default_factory=dict)

    def add(self, name: str, data: bytes, mode: int = 0o644) -> Path:
        path = self.folder / name
        path.write_bytes(data)
        os.chmod(path, mode)
        self.files[path] = self._state(path)
        return path

    def add_sqlite(self, name: str) -> Path:
        import sqlite3

        path = self.folder / name
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE precious (v TEXT)")
        conn.execute("INSERT INTO precious VALUES ('keep me')")
        conn.commit()
        conn.close()
        os.chmod(path, 0o644)
        self.files[path] = self._state(path)
        return path

    @staticmethod
    def _state(path: Path) -> tuple[str, int]:
        return hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mode

    def check(self) -> None:
        for path, state in self.files.items():
            assert self._state(path) == state, f"{path} changed"
        names = {p.name for p in self.files}
        extra = sorted(p.name for p in self.folder.iterdir() if p.name not in names)
        assert extra == [], f"files appeared outside DSH_HOME: {extra}"


class SmallDisk:
    """A folder on a disk that can be filled and freed: a 4 MiB tmpfs where mounting works (we are
    root on the dev machine); else os.write in dsh's safe-file helpers raising ENOSPC while "full",
    as the kernel does. `real` says which."""

    def __init__(self, path: Path, real: bool, monkeypatch: pytest.MonkeyPatch) -> None:
        self.path = path
        self.real = real
        self._monkeypatch = monkeypatch
        self._filler = path / f".filler-{uuid.uuid4().hex}"
        self.is_full = False

    def fill(self, leave: int = 0) -> None:
        """Use up the disk, leaving about `leave` bytes (whole pages on a tmpfs)."""
        self.is_full = True
        if not self.real:
            budget = [leave]

            def write(fd: int, data: bytes | memoryview) -> int:
                if budget[0] <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                n = min(len(data), budget[0])
                budget[0] -= n
                return os.write(fd, bytes(data[:n]))

            self._monkeypatch.setattr("dsh.safefile._write", write)
            return
        fd = os.open(self._filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for size in (65536, 4096, 1):
                with contextlib.suppress(OSError):
                    while True:
                        os.write(fd, b"\0" * size)
        finally:
            os.close(fd)
        if leave:
            size = self._filler.stat().st_size
            os.truncate(self._filler, max(0, size - leave))

    def free(self) -> None:
        self.is_full = False
        if not self.real:
            self._monkeypatch.setattr("dsh.safefile._write", os.write)
            return
        with contextlib.suppress(FileNotFoundError):
            self._filler.unlink()


@contextlib.contextmanager
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, mount: bool = True) -> Iterator[SmallDisk]:
    folder = tmp_path / "disk"
    folder.mkdir(mode=0o700)
    mounted = mount and _run_ok(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(folder)])
    try:
        yield SmallDisk(folder, mounted, monkeypatch)
    finally:
        if mounted:
            _run_ok(["umount", "-l", str(folder)])


@contextlib.contextmanager
def read_only_mount(tmp_path: Path) -> Iterator[Path | None]:
    """A read-only tmpfs holding a dsh home (0700) with a config.toml, or None where mounting is not
    possible."""
    mount = tmp_path / "ro"
    mount.mkdir(mode=0o700)
    if not _run_ok(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)]):
        yield None
        return
    try:
        (mount / "config.toml").write_text('[ui]\nprefix = "c-a"\n')
        os.chmod(mount / "config.toml", 0o600)
        yield mount if _run_ok(["mount", "-o", "remount,ro", str(mount)]) else None
    finally:
        _run_ok(["umount", "-l", str(mount)])


def _run_ok(argv: list[str]) -> bool:
    """Whether a command (mount, umount) ran and succeeded; False where it is missing or not allowed."""
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
