"""Pane throughput and memory: the same streams through stock pyte, dsh's TermScreen, a dsh Terminal
on a real PTY, and tmux.

    python bench/pane.py [--size MB] [--repeat N] [--no-tmux] [--no-pty] [--no-memory]

Prints MB/s per stream: stock pyte (the reference run in this process) and the TermScreen alone,
in this process's CPU time (steadier on a shared machine), and whether their cells are the same
(bench/reference.py); then `cat FILE` through a dsh Terminal on a PTY and through tmux, both wall
clock, spawn to exit (tmux minus an empty run, for server start-up), and their ratio. Last, the
resident memory a pane with 10,000 rows of 200-column coloured history adds, each case measured
in a new process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyte

from bench.reference import ReferenceScreen, differences
from bench.streams import COLS, ROWS, STREAMS, wide_colour
from dsh.term.screen import TermScreen
from dsh.term.terminal import Terminal

CHUNK = 32768  # what a Terminal hands its screen per read callback, at most
TARGETS = {"plain": 25.0, "seq": 10.0, "colour": 10.0, "frames": 10.0, "unicode": 10.0}  # MB/s, on a PTY
MEMORY_TARGET_MB = 40.0
MEMORY_ROWS = 10_000
MEMORY_COLS = 200


def raw_output(data: bytes) -> bytes:
    """What a program writes for `data` to reach the screen: the tty turns LF into CR LF itself."""
    return data.replace(b"\r\n", b"\n")


def feed_pyte(data: bytes) -> tuple[float, pyte.Screen]:
    screen = ReferenceScreen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    start = time.process_time()
    for i in range(0, len(data), CHUNK):
        stream.feed(data[i : i + CHUNK])
    return time.process_time() - start, screen


def feed_dsh(data: bytes, repeat: int) -> tuple[float, TermScreen]:
    best = float("inf")
    screen = TermScreen(COLS, ROWS)
    for _ in range(repeat):
        screen = TermScreen(COLS, ROWS)
        start = time.process_time()
        for i in range(0, len(data), CHUNK):
            screen.feed(data[i : i + CHUNK])
        best = min(best, time.process_time() - start)
    return best, screen


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
    subprocess.run(
        [*base, "new-session", "-d", "-x", str(COLS), "-y", str(ROWS), f"cat {path}; echo done > {fifo}; sleep 5"],
        check=True,
    )
    with open(fifo) as done:
        done.read()
    elapsed = time.perf_counter() - start
    subprocess.run([*base, "kill-server"], check=False, stderr=subprocess.DEVNULL)
    return elapsed


def pty_rates(data: bytes, tmp: Path, target: int, use_tmux: bool) -> tuple[float, float | None]:
    """dsh and tmux MB/s for `data` repeated to about `target` bytes, best of two runs each, the
    two taking turns so a busy moment on the machine hits both alike."""
    times = max(1, target // max(1, len(data)))
    big = tmp / "stream"
    big.write_bytes(raw_output(data) * times)
    size = len(data) * times / 1e6
    base = 0.0
    if use_tmux:
        empty = tmp / "empty"
        empty.write_bytes(b"")
        base = min(tmux_time(str(empty), tmp) for _ in range(3))
    dsh_best = tmux_best = float("inf")
    for _ in range(2):
        dsh_best = min(dsh_best, pty_pane(str(big)))
        if use_tmux:
            tmux_best = min(tmux_best, tmux_time(str(big), tmp) - base)
    return size / dsh_best, (size / max(tmux_best, 1e-6) if use_tmux else None)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def memory_case(case: str) -> float:
    """RSS added by a pane holding MEMORY_ROWS rows of MEMORY_COLS-column coloured history."""
    data = wide_colour(MEMORY_ROWS + 60, MEMORY_COLS)
    gc.collect()
    before = rss_mb()
    screen = TermScreen(MEMORY_COLS, 50, scrollback=MEMORY_ROWS)
    if case == "cells":
        # every line drawn at an address (as a full-screen program would): all rows keep cells
        for line in data.split(b"\r\n"):
            screen.feed(b"\x1b[50;1H\n" + line)
    else:
        for i in range(0, len(data), CHUNK):
            screen.feed(data[i : i + CHUNK])
    if case == "compacted":
        while screen.compact_history(10_000):
            pass
    gc.collect()
    assert len(screen.history) == MEMORY_ROWS
    return rss_mb() - before


def rewrap_times() -> list[tuple[str, float]]:
    """Milliseconds to rewrap 10,000 rows of history when few rows change and when all do."""
    out = []
    for label, line in (
        ("short lines (none changes)", b"short line of log text %d"),
        ("150-character lines (every one changes)", b"y" * 150 + b" %d"),
    ):
        screen = TermScreen(COLS, ROWS, scrollback=MEMORY_ROWS)
        screen.feed(b"".join(line % i + b"\r\n" for i in range(MEMORY_ROWS + ROWS)))
        best = float("inf")
        for columns in (COLS - 20, COLS + 20, COLS):
            start = time.perf_counter()
            screen.resize(columns=columns)
            best = min(best, time.perf_counter() - start)
        out.append((label, best * 1000))
    return out


MEMORY_CASES = {
    "as fed (kept as sent)": "fed",
    "every row drawn cell by cell": "cells",
    "cell rows after idle compaction": "compacted",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=2.0, help="MB per stream (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="TermScreen runs per stream, best taken")
    parser.add_argument("--no-tmux", action="store_true")
    parser.add_argument("--no-pty", action="store_true")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--memory-case", choices=sorted(MEMORY_CASES.values()), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_case:
        print(f"{memory_case(args.memory_case):.2f}")
        return 0
    size = int(args.size * 1_000_000)
    use_tmux = not args.no_tmux and shutil.which("tmux") is not None
    print(f"{COLS}x{ROWS} screen, {args.size:g} MB per stream, python {sys.version.split()[0]}", flush=True)
    header = f"{'stream':8} {'pyte':>7} {'dsh':>7} {'x pyte':>7} {'same':>5}"
    if not args.no_pty:
        header += f" {'dsh pty':>8}"
        if use_tmux:
            header += f" {'tmux':>7} {'dsh/tmux':>8}"
        header += f" {'target':>7}"
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
            same = not differences(ref, mine, ROWS, COLS) and (ref.cursor.x, ref.cursor.y) == (
                mine.cursor.x,
                mine.cursor.y,
            )
            row = f"{name:8} {mb / t_pyte:7.2f} {mb / t_dsh:7.2f} {t_pyte / t_dsh:6.1f}x {'yes' if same else 'NO':>5}"
            if not args.no_pty:
                dsh_rate, tmux_rate = pty_rates(data, tmp, 16_000_000, use_tmux)
                row += f" {dsh_rate:8.2f}"
                if tmux_rate is not None:
                    row += f" {tmux_rate:7.2f} {dsh_rate / tmux_rate:8.2f}"
                row += f" {'>= ' + format(TARGETS[name], 'g'):>7}"
            print(row, flush=True)
    print(f"\nRewrap of {MEMORY_ROWS:,} rows of history on a width change (best of 3):", flush=True)
    for label, ms in rewrap_times():
        print(f"  {label:42} {ms:7.1f} ms", flush=True)
    if not args.no_memory:
        print(
            f"\nRSS a pane adds for {MEMORY_ROWS:,} rows of {MEMORY_COLS}-column coloured history "
            f"(target < {MEMORY_TARGET_MB:g} MB):",
            flush=True,
        )
        for label, case in MEMORY_CASES.items():
            out = subprocess.run(
                [sys.executable, __file__, "--memory-case", case], check=True, capture_output=True, text=True
            ).stdout.strip()
            print(f"  {label:34} {float(out):6.1f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
