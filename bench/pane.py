"""Pane throughput: the same streams through stock pyte, dsh's TermScreen, a dsh Terminal on a PTY, and tmux.

    python bench/pane.py [--size MB] [--repeat N] [--no-tmux] [--no-pty]

Prints MB/s per stream and ratios against stock pyte (the reference run in this process), and
whether the screens are cell-for-cell identical to stock pyte's. The pyte and dsh feed columns
use this process's CPU time (steadier on a shared machine); the PTY and tmux columns are wall
clock, spawn to exit (tmux minus an empty run, for server start-up).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyte

from bench.streams import COLS, ROWS, STREAMS
from dsh.term.screen import TermScreen
from dsh.term.terminal import Terminal

CHUNK = 65536
_FIELDS = len(pyte.screens.Char._fields)


def raw_output(data: bytes) -> bytes:
    """What a program writes for `data` to reach the screen: the tty turns LF into CR LF itself."""
    return data.replace(b"\r\n", b"\n")


def feed_pyte(data: bytes) -> tuple[float, pyte.Screen]:
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    start = time.process_time()
    for i in range(0, len(data), CHUNK):
        stream.feed(data[i:i + CHUNK])
    return time.process_time() - start, screen


def feed_dsh(data: bytes, repeat: int) -> tuple[float, TermScreen]:
    best = float("inf")
    screen = TermScreen(COLS, ROWS)
    for _ in range(repeat):
        screen = TermScreen(COLS, ROWS)
        start = time.process_time()
        for i in range(0, len(data), CHUNK):
            screen.feed(data[i:i + CHUNK])
        best = min(best, time.process_time() - start)
    return best, screen


def identical(ref: pyte.Screen, mine: TermScreen) -> bool:
    cells = all(tuple(ref.buffer[y][x]) == tuple(mine.buffer[y][x])[:_FIELDS]
                for y in range(ROWS) for x in range(COLS))
    return cells and (ref.cursor.x, ref.cursor.y) == (mine.cursor.x, mine.cursor.y)


def pty_pane(path: str) -> float:
    """`cat FILE` in a dsh Terminal on an asyncio loop, spawn to exit."""

    async def run() -> float:
        done = asyncio.Event()
        term = Terminal(["cat", path], cwd="/", rows=ROWS, cols=COLS, on_exit=lambda _c: done.set())
        start = time.perf_counter()
        term.start()
        await done.wait()
        return time.perf_counter() - start

    return asyncio.run(run())


_tmux_runs = 0


def tmux_time(path: str, tmp: Path) -> float:
    """Seconds from starting a tmux server running `cat FILE` to the cat finishing (signalled on a FIFO)."""
    global _tmux_runs
    _tmux_runs += 1
    sock = f"dsh-bench-{os.getpid()}-{_tmux_runs}"  # a fresh server: a killed one lingers a moment
    base = ["tmux", "-L", sock, "-f", "/dev/null"]
    fifo = tmp / "tmux-done"
    if not fifo.exists():
        os.mkfifo(fifo)
    start = time.perf_counter()
    subprocess.run([*base, "new-session", "-d", "-x", str(COLS), "-y", str(ROWS),
                    f"cat {path}; echo done > {fifo}; sleep 5"], check=True)
    with open(fifo) as done:
        done.read()
    elapsed = time.perf_counter() - start
    subprocess.run([*base, "kill-server"], check=False, stderr=subprocess.DEVNULL)
    return elapsed


def tmux_rate(data: bytes, tmp: Path, target: int) -> float:
    """tmux MB/s for `data` repeated to about `target` bytes, minus an empty run (server start)."""
    times = max(1, target // max(1, len(data)))
    big = tmp / "tmux-stream"
    big.write_bytes(raw_output(data) * times)
    empty = tmp / "tmux-empty"
    empty.write_bytes(b"")
    base = min(tmux_time(str(empty), tmp) for _ in range(3))
    full = min(tmux_time(str(big), tmp) for _ in range(2))
    return len(data) * times / max(full - base, 1e-6) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=2.0, help="MB per stream (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="dsh runs per stream, best taken")
    parser.add_argument("--no-tmux", action="store_true")
    parser.add_argument("--no-pty", action="store_true")
    args = parser.parse_args()
    size = int(args.size * 1_000_000)
    use_tmux = not args.no_tmux and shutil.which("tmux") is not None
    print(f"{COLS}x{ROWS} screen, {args.size:g} MB per stream, python {sys.version.split()[0]}", flush=True)
    header = f"{'stream':8} {'pyte':>7} {'dsh':>7} {'x pyte':>7} {'same':>5}"
    if not args.no_pty:
        header += f" {'dsh pty':>8}"
    if use_tmux:
        header += f" {'tmux':>7} {'dsh/tmux':>8}"
    print(header + "   (MB/s)", flush=True)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for name, make in STREAMS.items():
            data = make(size)
            compare = data
            if name == "frames":  # stock pyte has no alternate screen: compare before leaving it
                compare = data[: data.rindex(b"\x1b[?25h\x1b[?1049l")]
            t_pyte, ref = feed_pyte(compare)
            t_dsh, mine = feed_dsh(compare, args.repeat)
            mb = len(compare) / 1e6
            row = (f"{name:8} {mb / t_pyte:7.2f} {mb / t_dsh:7.2f} {t_pyte / t_dsh:6.1f}x "
                   f"{'yes' if identical(ref, mine) else 'NO':>5}")
            if not args.no_pty:
                path = tmp / f"{name}.bin"
                path.write_bytes(raw_output(data))
                row += f" {len(data) / 1e6 / pty_pane(str(path)):8.2f}"
            if use_tmux:
                rate = tmux_rate(data, tmp, 16_000_000)
                row += f" {rate:7.2f} {mb / t_dsh / rate:8.2f}"
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
