"""Drive a program in a real pseudo-terminal and read its screen with pyte, as a person would."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import ptyprocess
import pyte

from dsh.term.terminal import close_pty


class _ReplyingScreen(pyte.Screen):
    """A pyte screen that answers the child's terminal queries (cursor position, DA)."""

    def __init__(self, cols: int, rows: int, reply) -> None:
        super().__init__(cols, rows)
        self._reply = reply

    def write_process_input(self, data: str) -> None:
        self._reply(data)


def _as_from_a_terminal() -> None:
    """In the child before exec: the signals a program started from a person's terminal has. An xdist
    worker can have SIGINT ignored (a test ignoring it meanwhile, pytest's own handling), and an ignored
    signal survives exec: a client's C-c then did nothing in a CI run (the tty echoed ^C, no SIGINT)."""
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP, signal.SIGTSTP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())


class PtyDriver:
    """One child in a PTY, its output fed to a pyte screen by a reader thread."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        rows: int = 30,
        cols: int = 100,
    ) -> None:
        full_env = dict(env if env is not None else os.environ)
        full_env.setdefault("TERM", "xterm-256color")
        self.proc = ptyprocess.PtyProcess.spawn(
            list(argv),
            env=full_env,
            cwd=str(cwd) if cwd else None,
            dimensions=(rows, cols),
            preexec_fn=_as_from_a_terminal,
        )
        self._lock = threading.Lock()
        self.screen = _ReplyingScreen(cols, rows, self._write_reply)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self._eof = threading.Event()
        self._thread = threading.Thread(target=self._read_loop, daemon=True)
        self._thread.start()

    # -- reading ---------------------------------------------------------------
    def _write_reply(self, data: str) -> None:
        try:
            self.proc.write(data.encode())
        except OSError:
            pass

    def _read_loop(self) -> None:
        while True:
            try:
                data = self.proc.read(65536)
            except (EOFError, OSError):
                break
            if not data:
                break
            with self._lock:
                self.raw.extend(data)
                self.stream.feed(data)
        self._eof.set()

    def text(self) -> str:
        """The visible screen as lines of plain text, trailing blanks stripped."""
        with self._lock:
            return "\n".join(line.rstrip() for line in self.screen.display)

    def flowed(self) -> str:
        """The screen's rows joined with nothing between them and no blank stripped, so a message wrapped
        over whole rows reads as the one line it is, a space that fell at a row's end included."""
        with self._lock:
            return "".join(self.screen.display)

    def lines(self) -> list[str]:
        with self._lock:
            return [line.rstrip() for line in self.screen.display]

    def cursor(self) -> tuple[int, int]:
        with self._lock:
            return self.screen.cursor.y, self.screen.cursor.x

    def wait_for(self, pattern: str, timeout: float = 10.0, *, regex: bool = False) -> str:
        """Wait until the screen shows `pattern`; return the screen. Fails with the screen shown."""
        deadline = time.monotonic() + timeout
        matcher = re.compile(pattern) if regex else None
        while True:
            screen = self.text()
            found = matcher.search(screen) if matcher else pattern in screen
            if found:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {pattern!r}; screen:\n{screen}")
            if self._eof.is_set() and not found:
                # One last look: the final frame may have arrived with EOF.
                screen = self.text()
                if matcher.search(screen) if matcher else pattern in screen:
                    return screen
                raise AssertionError(f"program ended before {pattern!r}; screen:\n{screen}")
            time.sleep(0.05)

    def wait_until(self, predicate, timeout: float = 10.0, what: str = "condition") -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.text()
            if predicate(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{screen}")
            time.sleep(0.05)

    # -- writing ---------------------------------------------------------------
    def send(self, data: str | bytes) -> None:
        self.proc.write(data.encode() if isinstance(data, str) else data)

    def type_line(self, line: str) -> None:
        self.send(line + "\r")

    def resize(self, rows: int, cols: int) -> None:
        with self._lock:
            self.screen.resize(rows, cols)
        self.proc.setwinsize(rows, cols)

    # -- lifetime ---------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_exit(self, timeout: float = 10.0) -> int | None:
        deadline = time.monotonic() + timeout
        while self.proc.isalive():
            if time.monotonic() > deadline:
                raise AssertionError(f"program did not exit; screen:\n{self.text()}")
            time.sleep(0.05)
        self._eof.wait(2)
        return self.proc.exitstatus

    def close(self) -> None:
        if self.proc.isalive():
            try:
                self.proc.terminate(force=True)
            except Exception:
                pass
        self._thread.join(timeout=2)
        close_pty(self.proc)
