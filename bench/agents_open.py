"""`/agents` opened over 50 live sessions x 4 agent panes, end to end: 50 detached sessions of the dsh
under test, each with four fake Claude Code panes blocked on a permission (their hooks report it, as
the real CLI's do), and a client attached to a session of its own in a PTY; `C-b a` is pressed and timed
until the list is drawn on that terminal with the other sessions' asks in it (read back into pyte),
then Esc. The reference, in turns with it: `C-b ?`, the help drawn over the panes in the same place.

    .venv/bin/python bench/agents_open.py [--sessions 50] [--panes 4] [--runs 20] [--python PY]

PY: the interpreter whose dsh is measured (a regular install's: `pip install .` into a venv).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ptyprocess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pty_screen import Screen  # noqa: E402

TARGET_MS = 150.0


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--panes", type=int, default=4)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    dsh = [args.python, "-P", "-m", "dsh"]
    fakes = ROOT / "tests" / "fakes" / "bin"
    home = tempfile.mkdtemp(prefix="dsh-bench-agents-home-")
    work = Path(tempfile.mkdtemp(prefix="dsh-bench-agents-work-"))
    user = Path(tempfile.mkdtemp(prefix="dsh-bench-agents-user-"))
    (user / ".claude").mkdir()
    env = dict(os.environ, DSH_HOME=home, SHELL="/bin/sh", TERM="xterm-256color", HOME=str(user))
    env["PATH"] = f"{fakes}{os.pathsep}{env.get('PATH', '')}"
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("XDG_RUNTIME_DIR", None)
    wanted = args.sessions * args.panes
    started = time.monotonic()
    try:
        for s in range(args.sessions):
            where = work / f"project-{s:02d}"
            where.mkdir()
            made = subprocess.run(
                [*dsh, "new", "-d", "--json", "--", "claude"], env=env, cwd=where, capture_output=True, text=True
            )
            sid = json.loads(made.stdout)["session"]
            for _ in range(args.panes - 1):
                subprocess.run([*dsh, "split", "-t", sid, "--", "claude"], env=env, cwd=where, capture_output=True)
            for p in range(1, args.panes + 1):
                ask = f"ask make deploy-{s}-{p}\r"
                subprocess.run([*dsh, "send", "-t", f"{sid}:p{p}", ask], env=env, cwd=where, capture_output=True)
        deadline = time.monotonic() + 180
        blocked = 0
        while time.monotonic() < deadline:
            listed = subprocess.run([*dsh, "agents", "--all", "--json"], env=env, capture_output=True, text=True)
            blocked = sum(1 for row in json.loads(listed.stdout or "[]") if row.get("state") == "blocked")
            if blocked >= wanted:
                break
            time.sleep(1)
        print(f"{args.sessions} sessions x {args.panes} agent panes: {blocked} blocked, set up in "
              f"{time.monotonic() - started:.0f} s")  # fmt: skip
        rows, cols = 40, 140
        mine = work / "here"
        mine.mkdir()
        client = ptyprocess.PtyProcess.spawn(dsh, env=env, cwd=str(mine), dimensions=(rows, cols))
        screen = Screen(client, rows, cols)
        screen.wait(lambda text: "need you" in text, "the status line's counts", limit=60)
        time.sleep(2.5)  # a poll of the other hosts behind it, as a client that has been attached a while
        opened, helped = [], []
        for _ in range(args.runs):
            client.write(b"\x02?")
            helped.append(screen.wait(lambda text: "detach" in text and "C-b" in text, "the help"))
            client.write(b"\x1b")
            screen.wait(lambda text: "dsh›" in text and "deploy-" not in text, "the prompt again")
            time.sleep(0.2)
            client.write(b"\x02a")
            # Drawn: the list, holding other sessions' asks, a screenful of them.
            opened.append(
                screen.wait(lambda text: text.count("allow Bash: make deploy-") >= min(wanted, rows - 10), "/agents")
            )
            client.write(b"\x1b")
            screen.wait(lambda text: "allow Bash: make deploy-" not in text, "the list closed")
            time.sleep(0.2)
        client.write(b"/quit\r")
        time.sleep(0.5)
        client.close(force=True)
    finally:
        listed = subprocess.run([*dsh, "list", "--all", "--json"], env=env, capture_output=True, text=True)
        for session in json.loads(listed.stdout or "[]"):
            subprocess.run([*dsh, "stop", session["id"]], env=env, capture_output=True, timeout=30)
        for folder in (home, str(work), str(user)):
            shutil.rmtree(folder, ignore_errors=True)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; dsh measured: {' '.join(dsh)}")
    help_p50, help_p99 = statistics.median(helped), pct(helped, 99)
    print(f"C-b ? (the help drawn, reference)      p50 {help_p50:7.2f} ms  p99 {help_p99:7.2f} ms")
    p50 = statistics.median(opened)
    print(
        f"C-b a (/agents drawn, {wanted} rows)        p50 {p50:7.2f} ms  p99 {pct(opened, 99):7.2f} ms"
        f"  x{p50 / statistics.median(helped):.2f} of the reference (target <= {TARGET_MS:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
