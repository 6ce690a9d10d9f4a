"""Faults under running hosts (issue 28): a stopped host attached, DSH_HOME removed, a log truncated and
replaced, starts that fail for want of file descriptors; what the user waits and what is kept.

    python bench/faults.py [--dsh PATH]    # PATH: the dsh to measure (default: this tree's)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.ptydriver import PtyDriver


class Home:
    def __init__(self, dsh: list[str]) -> None:
        self.dsh = dsh
        self.root = Path(tempfile.mkdtemp(prefix="dsh-faults-"))
        self.home = self.root / "home"
        self.work = self.root / "work"
        self.work.mkdir()
        self.env = dict(os.environ, DSH_HOME=str(self.home), SHELL="/bin/sh", TERM="xterm-256color")
        self.env.pop("XDG_RUNTIME_DIR", None)
        self.env["DSH_SNAPSHOT_DEBOUNCE"] = "0.5"

    def run(self, *args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
        def apply() -> None:
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (limit, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        return subprocess.run(
            [*self.dsh, *args],
            env=self.env,
            cwd=self.work,
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=apply,
        )

    def new(self) -> tuple[str, int]:
        sid = self.run("new", "-d").stdout.strip()
        (pid_file,) = (self.home / "sessions").glob(f"*/{sid}.pid")
        return sid, int(pid_file.read_text())

    def log(self, sid: str) -> Path | None:
        found = list((self.home / "sessions").glob(f"*/{sid}.jsonl"))
        return found[0] if found else None

    def close(self) -> None:
        from tests.conftest import end_processes_of

        end_processes_of(self.home)
        shutil.rmtree(self.root, ignore_errors=True)


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def wait(predicate: Callable[[], bool], limit: float = 30.0) -> float | None:
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.02)
    return None


def stopped_host(h: Home) -> None:
    sid, pid = h.new()
    os.kill(pid, signal.SIGSTOP)
    start = time.monotonic()
    d = PtyDriver([*h.dsh, "attach", sid], env=h.env, cwd=str(h.work), rows=30, cols=120)
    try:
        d.wait_exit(timeout=30)
        took = time.monotonic() - start
        said = " ".join(d.text().split())
    finally:
        d.close()
    start = time.monotonic()
    out = h.run("stop", sid)
    stop_took = time.monotonic() - start
    os.kill(pid, signal.SIGCONT) if os.path.exists(f"/proc/{pid}") else None
    print(f"stopped host: dsh attach ended after {took:.2f} s: {said[:150]!r}")
    print(f"  dsh stop on it: status {out.returncode} after {stop_took:.2f} s: {(out.stdout + out.stderr).strip()!r}")


def listing_stopped_hosts(h: Home) -> None:
    """What a listing costs with hosts stopped (SIGSTOP) among running ones, and whether it keeps them;
    the reference is the same listing once they are continued."""
    running = [h.new() for _ in range(2)]
    stopped = [h.new() for _ in range(3)]
    cases = (
        ("dsh list --all", ("list", "--all")),
        ("dsh sessions", ("sessions",)),
        ("dsh attach (no id)", ("attach",)),
    )

    def timed(args: tuple[str, ...]) -> tuple[list[float], str]:
        took = []
        for _ in range(3):
            start = time.monotonic()
            out = h.run(*args) if args != ("attach",) else _attach_no_id(h)
            took.append(time.monotonic() - start)
        return took, out.stdout + out.stderr

    for _, pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        figures = {}
        for label, args in cases:
            took, text = timed(args)
            kept = sum(1 for sid, _ in stopped if sid in text)
            figures[label] = (took, kept, "stopped" in text)
    finally:
        for _, pid in stopped:
            os.kill(pid, signal.SIGCONT)
    for label, args in cases:
        took, kept, said = figures[label]
        reference, _ = timed(args)
        print(
            f"{label}, 2 running and 3 stopped hosts: {min(took):.2f}-{max(took):.2f} s (3 runs; "
            f"all 5 running: {min(reference):.2f}-{max(reference):.2f} s, ratio {min(took) / min(reference):.1f}); "
            f"stopped rows kept {kept}/3; says stopped: {said}"
        )
    del running


def _attach_no_id(h: Home) -> subprocess.CompletedProcess[str]:
    """`dsh attach` in a PTY (it takes the terminal): it attaches a detached running host; the screen's
    text and the time until its first frame."""
    d = PtyDriver([*h.dsh, "attach"], env=h.env, cwd=str(h.work), rows=30, cols=120)
    try:
        d.wait_for("PROMPT", timeout=30)
        screen = d.text()
    finally:
        d.close()
    return subprocess.CompletedProcess(["dsh", "attach"], 0, screen, "")


def home_removed(h: Home) -> None:
    sid, pid = h.new()
    for n in range(20):
        h.run("rename", "--session", f"title-{n}")  # 20 events in the log
    log = h.log(sid)
    assert log is not None
    time.sleep(1.0)
    lines, before = log.read_bytes().count(b"\n"), fds(pid)
    shutil.rmtree(h.home, ignore_errors=True)  # as rm -rf: a file made meanwhile may keep a folder
    back = wait(lambda: h.log(sid) is not None and (h.home / "run" / f"{sid}.sock").exists())
    time.sleep(2.5)
    log = h.log(sid)
    kept = log.read_bytes().count(b"\n") if log else 0
    listed = h.run("sessions", "--json")
    rows = json.loads(listed.stdout) if listed.returncode == 0 else []
    state = rows[0]["state"] if rows else "not listed"
    reached = h.run("list", "--json").returncode == 0
    print(
        f"DSH_HOME removed: log and socket back after {back if back is None else round(back, 2)} s; "
        f"log lines {lines} before, {kept} after; listed {state}; dsh list reaches it: {reached}; "
        f"host fds {before} before, {fds(pid)} after"
    )


def log_truncated_and_replaced(h: Home) -> None:
    sid, _ = h.new()
    h.run("rename", "--session", "kept-title")
    log = h.log(sid)
    assert log is not None
    log.write_bytes(b"")
    h.run("rename", "--session", "after")
    header = wait(lambda: log.read_bytes().startswith(b'{"type": "session"'), 10)
    rows = json.loads(h.run("sessions", "--json").stdout or "[]")
    print(f"log truncated: header back after {header} s; listed as {[(r['state'], r['title']) for r in rows]}")
    other = log.with_name("other")
    other.write_bytes(b"an editor's copy\n")
    os.rename(other, log)
    h.run("rename", "--session", "after-replace")
    kept = list(log.parent.glob(f"{sid}.jsonl.replaced-*"))
    rows = json.loads(h.run("sessions", "--json").stdout or "[]")
    print(f"log replaced: the copy kept aside: {bool(kept)}; listed as {[(r['state'], r['title']) for r in rows]}")


def failed_starts(h: Home) -> None:
    failures, lines = 0, set()
    for limit in range(6, 16):
        out = h.run("new", "-d", limit=limit)
        if out.returncode != 0:
            failures += 1
            lines.add(out.stderr.strip().split("\n")[0][:100])
    rows = json.loads(h.run("sessions", "--all", "--json").stdout or "[]")
    crashed = sum(1 for row in rows if row["state"] == "crashed")
    print(f"starts with ulimit -n 6..15: {failures} failed, {crashed} sessions left crashed; said:")
    for line in sorted(lines):
        print(f"  {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dsh", default=str(Path(sys.executable).parent / "dsh"))
    parser.add_argument("--only", help="run only this case (a function's name)")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; dsh: {args.dsh}")
    cases = (stopped_host, listing_stopped_hosts, home_removed, log_truncated_and_replaced, failed_starts)
    for bench in [case for case in cases if args.only in (None, case.__name__)]:
        h = Home([args.dsh])
        try:
            bench(h)
        finally:
            h.close()


if __name__ == "__main__":
    main()
