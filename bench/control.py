"""The scripting verbs as whole processes (`dsh send`, `dsh capture`, `dsh report`), tmux's beside them,
and what 100 `dsh send`s in a loop cost the attached client's keystroke echo.

Every figure is from the same run, the commands taken in turns (so the machine's load falls on all
alike): `python -c pass` with dsh's own interpreter (the floor any Python command has), dsh's verbs
against a live session with a client attached, and tmux 3.3a's `send-keys` and `capture-pane` against
a private tmux server. Then the attached client's echo at its prompt, idle and while another process
runs `dsh send` 100 times in a loop into the pane beside.

    python bench/control.py [--runs N] [--dsh PATH]   (use a regular install's dsh: an editable one
                                                       pays its finder on every start)
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
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import latency
import ptyprocess


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def ms(times: list[float]) -> str:
    values = sorted(t * 1000 for t in times)
    p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
    return f"p50 {statistics.median(values):6.1f} ms  p90 {p90:6.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--dsh", default=None, help="the dsh to run (default: the one beside this Python)")
    parser.add_argument("--samples", type=int, default=200, help="echoes timed, idle and under the sends")
    args = parser.parse_args()
    latency.DSH = args.dsh
    dsh = latency.dsh_argv()
    python = _interpreter(dsh[0]) if args.dsh else sys.executable
    home = tempfile.mkdtemp(prefix="dsh-bench-")
    work = tempfile.mkdtemp(prefix="dsh-bench-work-")
    env = {**os.environ, "DSH_HOME": home, "SHELL": "/bin/sh", "TERM": "xterm-256color", "PS1": "$ "}
    env.pop("XDG_RUNTIME_DIR", None)
    for name in ("DSH_SOCKET", "DSH_SESSION_ID", "DSH_PANE_ID", "TMUX"):
        env.pop(name, None)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; dsh {dsh[0]}; python {python}")
    proc = ptyprocess.PtyProcess.spawn(dsh, env=env, cwd=work, dimensions=(30, 100))
    tmux_socket = f"dsh-bench-{os.getpid()}"
    try:
        latency.wait_for(proc, b"PROMPT")
        subprocess.run(
            [*dsh, "split", "-h", "--", "sh", "-c", "stty -echo; cat > /dev/null"], env=env, cwd=work, check=True
        )
        (session,) = json.loads(
            subprocess.run([*dsh, "list", "--json"], env=env, cwd=work, capture_output=True, check=True).stdout
        )
        sid = session["id"]
        target = f"{sid}:p2"
        # The keyboard back on the prompt of p1 (the split gave the new pane the focus).
        subprocess.run([*dsh, "focus", "-t", f"{sid}:p1"], env=env, cwd=work, check=True)
        latency.drain(proc, 0.5)
        hook_env = {**env, "DSH_SOCKET": session["socket"], "DSH_SESSION_ID": sid, "DSH_PANE_ID": "p2"}
        commands = {
            "python -c pass": ([python, "-c", "pass"], env),
            "dsh send": ([*dsh, "send", "-t", target, "x"], env),
            "dsh capture": ([*dsh, "capture", "-t", target], env),
            "dsh report (hook)": ([*dsh, "report", "--state", "working"], hook_env),
        }
        if shutil.which("tmux"):
            subprocess.run(
                ["tmux", "-L", tmux_socket, "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30",
                 "sh -c 'stty -echo; cat > /dev/null'"], check=True,
            )  # fmt: skip
            commands["tmux send-keys"] = (["tmux", "-L", tmux_socket, "send-keys", "-t", "0", "x"], env)
            commands["tmux capture-pane"] = (["tmux", "-L", tmux_socket, "capture-pane", "-p", "-t", "0"], env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv, run_env in commands.values():
            timed(argv, run_env)  # warm the page cache
        for _ in range(args.runs):
            for name, (argv, run_env) in commands.items():
                times[name].append(timed(argv, run_env))
        floor = statistics.median(times["python -c pass"])
        for name, values in times.items():
            print(f"{name:<20} {ms(values)}   (x python -c pass: {statistics.median(values) / floor:4.2f})")
        # The attached client's echo at its prompt: idle, then while 100 sends run in a loop beside it.
        idle = latency.echo_latencies(proc, args.samples, erase=b"\x7f")
        stop = threading.Event()
        sent = [0]

        def sends() -> None:
            while not stop.is_set():
                for _ in range(100):
                    subprocess.run([*dsh, "send", "-t", target, "x"], env=env, stdout=subprocess.DEVNULL, check=False)
                    sent[0] += 1

        worker = threading.Thread(target=sends, daemon=True)
        worker.start()
        busy = latency.echo_latencies(proc, args.samples, erase=b"\x7f")
        stop.set()
        worker.join(60)
        (p50_idle, p99_idle), (p50_busy, p99_busy) = latency.summary(idle), latency.summary(busy)
        print(f"echo at the prompt, idle:             p50 {p50_idle:5.1f} ms  p99 {p99_idle:5.1f} ms")
        print(
            f"echo while dsh send runs in a loop:   p50 {p50_busy:5.1f} ms  p99 {p99_busy:5.1f} ms  ({sent[0]} sends)"
        )
        print(f"p99 cost of the sends: {p99_busy - p99_idle:+.1f} ms (target <= 5); load {os.getloadavg()[0]:.2f}")
    finally:
        latency.end(proc)
        subprocess.run(["tmux", "-L", tmux_socket, "kill-server"], stderr=subprocess.DEVNULL, check=False)
        latency.end_hosts(home)
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _interpreter(script: str) -> str:
    """The Python a console script runs (its #! line)."""
    with open(script, "rb") as handle:
        first = handle.readline().decode("utf-8", "replace")
    return first[2:].strip().split()[0] if first.startswith("#!") else sys.executable


if __name__ == "__main__":
    sys.exit(main())
