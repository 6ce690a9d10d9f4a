"""A private tmux server for tests that compare with tmux or run dsh inside one (tmux is installed by .ci/run)."""

from __future__ import annotations

import itertools
import os
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping

import pytest

_names = itertools.count()


class TmuxServer:
    """One tmux server on its own socket (`-L`, so the path stays short), no config file; every
    session it starts ends with it."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.name = f"dsh-test-{os.getpid()}-{next(_names)}"
        self.env = {k: v for k, v in (env or os.environ).items() if not k.startswith("TMUX")}

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def start(self, session: str, command: str, columns: int, rows: int, cwd: str | None = None) -> None:
        """A detached session running `command` (a shell line) in a window of that size."""
        where = ["-c", cwd] if cwd else []
        self.run("new-session", "-d", "-s", session, "-x", str(columns), "-y", str(rows), *where, command)
        self.run("set-option", "-t", session, "status", "off")

    def screen(self, session: str) -> list[str]:
        return self.run("capture-pane", "-p", "-t", session).split("\n")[:-1]

    def cursor(self, session: str) -> tuple[int, int]:
        x, y = self.run("display-message", "-p", "-t", session, "#{cursor_x},#{cursor_y}").strip().split(",")
        return int(x), int(y)

    def keys(self, session: str, *keys: str, literal: bool = False) -> None:
        self.run("send-keys", "-t", session, *(["-l"] if literal else []), *keys)

    def wait(self, what: str, test: Callable[[], bool], timeout: float = 20.0) -> None:
        end = time.monotonic() + timeout
        while not test():
            if time.monotonic() > end:
                raise AssertionError(f"tmux: {what} within {timeout:.0f} s")
            time.sleep(0.05)

    def version(self) -> str:
        return subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=True).stdout.split()[-1]

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.name, "kill-server"], capture_output=True, env=self.env, timeout=30)


@pytest.fixture
def tmux() -> Iterator[TmuxServer]:
    server = TmuxServer()
    yield server
    server.kill()
