"""Typed input at the prompt without bracketed paste (a terminal without it, `tmux send-keys`, a script):
the host's peak memory and busy time for 16, 64 and 256 KB, against the same host at rest.

    python bench/paste.py [--sizes 16,64,256]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.ptydriver import PtyDriver


def host_pids(home: Path) -> list[int]:
    return [int(p.read_text()) for p in (home / "sessions").glob("*/*.pid")]


def status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int, quiet: float = 0.5, limit: float = 120.0) -> None:
    """Until the host has used no CPU for `quiet` seconds."""
    deadline = time.monotonic() + limit
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = cpu_seconds(pid)
        if now - last < 0.01:
            return
        last = now


def one(size_kb: int, dsh: list[str]) -> tuple[float, float, float]:
    home = Path(tempfile.mkdtemp(prefix="dsh-paste-"))
    env = dict(os.environ, DSH_HOME=str(home), SHELL="/bin/sh", TERM="xterm-256color", DSH_NO_SPAWNER="1")
    env.pop("XDG_RUNTIME_DIR", None)
    d = PtyDriver(dsh, env=env, cwd=str(home), rows=40, cols=140)
    try:
        d.wait_for("PROMPT", timeout=30)
        (pid,) = host_pids(home)
        settle(pid)
        rss0, cpu0 = status(pid, "VmRSS"), cpu_seconds(pid)
        data = b"a" * (size_kb * 1024)
        for at in range(0, len(data), 4096):  # as a terminal delivers a paste: reads of a few KB
            d.send(data[at : at + 4096])
        settle(pid)
        return (status(pid, "VmHWM") - rss0) / 1024, cpu_seconds(pid) - cpu0, rss0 / 1024
    finally:
        d.close()
        import signal

        for p in host_pids(home):
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="16,64,256")
    parser.add_argument("--dsh", default=str(Path(sys.executable).parent / "dsh"))
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}")
    for size in (int(s) for s in args.sizes.split(",")):
        grown, busy, rest = one(size, [args.dsh])
        print(
            f"{size:5d} KB typed: host +{grown:7.1f} MB peak over {rest:.0f} MB at rest, {busy:6.2f} s CPU "
            f"({busy / size * 1024:.2f} s/MB)"
        )


if __name__ == "__main__":
    main()
