"""A program's terminal in a PTY, read into pyte on a thread, for benches that wait on what it shows."""

from __future__ import annotations

import threading
import time

import ptyprocess
import pyte


class Screen:
    """A client's terminal, read into pyte on a thread."""

    def __init__(self, proc: ptyprocess.PtyProcess, rows: int, cols: int) -> None:
        self.proc = proc
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = self.proc.read(65536)
            except EOFError:
                return
            with self.lock:
                self.stream.feed(data)

    def text(self) -> str:
        with self.lock:
            return "\n".join(self.screen.display)

    def wait(self, test, what: str, limit: float = 30.0) -> float:  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        deadline = time.monotonic() + limit
        while not test(self.text()):
            if time.monotonic() > deadline:
                raise SystemExit(f"never saw {what}:\n{self.text()}")
            time.sleep(0.0005)
        return (time.perf_counter() - start) * 1000
