"""A pane of ever-new 24-bit colour (as a video, chafa or lolcat draws) for minutes: the host's
resident memory over time, beside the same pane drawing one colour (the reference, same run).

    python bench/colours.py [--seconds 180]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.ptydriver import PtyDriver

PAINT = """import random, sys
r = random.random
while True:
    cells = "".join(
        "\x1b[38;2;%d;%d;%dm\x1b[48;2;%d;%d;%dm#" % tuple(int(r() * 256) for _ in range(6)) for _ in range(CELLS)
    )
    sys.stdout.write("\x1b[H" + cells)
    sys.stdout.flush()
"""
SAME = """import sys
while True:
    sys.stdout.write("\x1b[H\x1b[38;2;1;2;3m\x1b[48;2;4;5;6m" + "#" * CELLS)
    sys.stdout.flush()
"""


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def run(command: str, seconds: float, dsh: str) -> list[tuple[float, float, int]]:
    home = Path(tempfile.mkdtemp(prefix="dsh-colours-"))
    env = dict(os.environ, DSH_HOME=str(home), SHELL="/bin/sh", TERM="xterm-256color", COLORTERM="truecolor")
    env.pop("XDG_RUNTIME_DIR", None)
    d = PtyDriver([dsh], env=env, cwd=str(home), rows=40, cols=140)
    try:
        d.wait_for("PROMPT", timeout=30)
        (pid,) = [int(p.read_text()) for p in (home / "sessions").glob("*/*.pid")]
        script = home / "paint.py"
        script.write_text(f"CELLS = {120 * 30}\n" + command)
        d.send(f"python3 {script}\r")
        samples, start = [], time.monotonic()
        while (at := time.monotonic() - start) < seconds:
            samples.append((at, rss_mb(pid), fds(pid)))
            time.sleep(min(10.0, seconds / 9))
        samples.append((time.monotonic() - start, rss_mb(pid), fds(pid)))
        return samples
    finally:
        d.close()
        for p in (home / "sessions").glob("*/*.pid"):
            try:
                os.kill(int(p.read_text()), signal.SIGKILL)
            except (OSError, ValueError):
                pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--dsh", default=str(Path(sys.executable).parent / "dsh"))
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}")
    for name, command in (("one colour (reference)", SAME), ("ever-new 24-bit colour", PAINT)):
        samples = run(command, args.seconds, args.dsh)
        shown = ", ".join(f"{at:.0f}s {rss:.0f} MB" for at, rss, _ in samples)
        print(f"{name}: {shown}; fds {samples[0][2]} -> {samples[-1][2]}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
