"""What asking the live hosts for their agents adds to `dsh sessions`: N live sessions with a blocked
(fake) Claude each; the listing's wall time, text and --json, beside the hosts' query alone
(hostquery.Asking, in this process), the listing with one host stopped (it waits the bound), and the
same listing once every session is closed (the reference: no host to ask).

    .venv/bin/python bench/sessions_agents.py [--sessions 20] [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def dsh(*args: str, env: dict[str, str], cwd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dsh", *args], env=env, cwd=cwd, capture_output=True, text=True)


def timed(runs: int, action) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    home, work, user = (tempfile.mkdtemp(prefix=f"dsh-bench-{n}-") for n in ("home", "work", "user"))
    Path(user, ".claude").mkdir()
    env = dict(os.environ, DSH_HOME=home, SHELL="/bin/sh", TERM="xterm-256color", HOME=user)
    env["PATH"] = f"{ROOT / 'tests' / 'fakes' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.pop("XDG_RUNTIME_DIR", None)
    sids = []
    for _ in range(args.sessions):
        made = dsh("new", "-d", "--json", "--", "claude", env=env, cwd=work)
        sid = json.loads(made.stdout)["session"]
        dsh("send", "-t", f"{sid}:p1", "ask make deploy\r", env=env, cwd=work)
        sids.append(sid)
    for sid in sids:
        dsh("wait", "-t", f"{sid}:p1", "--state", "blocked", "--timeout", "30", env=env, cwd=work)
    listed = dsh("sessions", env=env, cwd=work).stdout
    shown = listed.count("1 needs you")
    text = timed(args.runs, lambda: dsh("sessions", env=env, cwd=work))
    as_json = timed(args.runs, lambda: dsh("sessions", "--json", env=env, cwd=work))

    os.environ["DSH_HOME"] = home
    from dsh.cli.live_agents import LiveAgents
    from dsh.hostquery import listening_sockets

    def ask() -> None:
        live = LiveAgents(listening_sockets())
        assert len(live.by_session()) == args.sessions
        live.close()

    query = timed(args.runs * 5, ask)
    pid = int(next(Path(home, "sessions").glob(f"*/{sids[0]}.pid")).read_text())
    os.kill(pid, signal.SIGSTOP)
    try:
        stopped = timed(args.runs, lambda: dsh("sessions", env=env, cwd=work))
    finally:
        os.kill(pid, signal.SIGCONT)
    for sid in sids:
        dsh("stop", sid, env=env, cwd=work)
    # The reference: the same listing once every session is closed (no host to ask).
    closed = timed(args.runs, lambda: dsh("sessions", env=env, cwd=work))
    load = os.getloadavg()
    print(
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
        f"{args.sessions} live sessions, {shown} rows say 1 needs you"
    )
    for name, times in (
        ("dsh sessions (whole process)", text),
        ("dsh sessions --json (whole process)", as_json),
        ("the hosts' query alone (in this process)", query),
        ("dsh sessions, one host stopped", stopped),
        ("reference: dsh sessions, all of them closed", closed),
    ):
        print(f"{name:<44} median {statistics.median(times):7.1f} ms   max {max(times):7.1f} ms  ({len(times)} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
