"""Benchmark the memory of listing one big session log (issue 13: a 50 MB log took 4.4x its size).

Writes one log of --mb megabytes (inputs of about 100 bytes, as a long session's are) in a temp home,
then measures the peak of Python's allocations (tracemalloc) while the index reads it, against two
references measured in the same run on the same file: reading the file whole, and reading it whole and
parsing every record at once (what the index did before). Also prints the wall time of the index read
without tracemalloc. Run: `.venv/bin/python bench/memory.py [--mb 50]`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from dsh.store.index import SessionIndex
from dsh.store.workspace import workspace_partition

SID = "20260101T000000Z-abcdef"


def make_log(root: Path, megabytes: int) -> Path:
    part = root / workspace_partition("/home/dev/src/project")
    part.mkdir(parents=True, mode=0o700)
    path = part / f"{SID}.jsonl"
    header = {
        "type": "session",
        "version": 1,
        "id": SID,
        "cwd": "/home/dev/src/project",
        "created_at": "2026-01-01T00:00:00.000Z",
    }
    target = megabytes * 1024 * 1024
    with path.open("w") as handle:
        handle.write(json.dumps(header) + "\n")
        n = 0
        while handle.tell() < target:
            text = f"make test TARGET=unit-{n} " + "x" * 60
            event = {"type": "input", "at": "2026-01-01T00:00:00.000Z", "text": text}
            handle.write(json.dumps(event) + "\n")
            n += 1
    return path


def peak(action: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def whole_and_parsed(path: Path) -> object:
    data = path.read_bytes()
    return [json.loads(line) for line in data.splitlines()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    opts = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="dsh-bench-"))
    try:
        root = home / "sessions"
        path = make_log(root, opts.mb)
        size = path.stat().st_size

        def index_read(db: str) -> None:
            index = SessionIndex(home / db, root)
            index.refresh()
            index.close()

        ref_whole = peak(path.read_bytes)
        ref_parsed = peak(lambda: whole_and_parsed(path))
        listed = peak(lambda: index_read("traced.db"))
        t0 = time.perf_counter()
        index_read("timed.db")
        seconds = time.perf_counter() - t0
        print(f"one log of {size / 1e6:.1f} MB (cpus: {os.cpu_count()})\n")
        print(f"{'index read (peak of allocations)':<40} {listed / 1e6:8.1f} MB  {listed / size:5.2f}x the log")
        print(f"{'reference: read whole':<40} {ref_whole / 1e6:8.1f} MB  {ref_whole / size:5.2f}x the log")
        print(
            f"{'reference: read whole, parse every line':<40} {ref_parsed / 1e6:8.1f} MB  "
            f"{ref_parsed / size:5.2f}x the log"
        )
        print(
            f"\nindex read / read whole: {listed / ref_whole:.2f}x; index read time (untraced): {seconds * 1000:.0f} ms"
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
