"""Keystroke echo latency and start-up time of the installed dsh, driven in a real PTY.

Everything goes through the client and the session's host, as a user's keys do. Prints p50/p99 echo
latency on the REPL prompt and inside a pane, idle and while another pane floods output (`cat` of a
20 MB log, in a loop), the time from spawn to the first frame (a new session: client, host, first
pane; cold, with no dsh process running, and warm, beside another session whose spawner forks the
new host with its imports done), from `dsh attach` to a running host's first full frame, and from
Enter in the /resume picker to the resumed session's first frame in the other workspace. The
reference, measured in the same run, is the same echo through a bare PTY running `cat` (what the
kernel and Python's reading cost, without dsh). A second reference shows the machine's own stalls,
which that echo is too short to meet: a computation of about a frame's length (a few ms of Python),
timed as often and as far apart as the echoes. On a shared virtual machine a computation sometimes
runs several times slower for tens of milliseconds, every few seconds, with nothing else running;
an echo that falls there is slow whatever dsh does.

    python bench/latency.py [--samples N] [--dsh PATH]
    python bench/latency.py --agents N [--samples N] [--dsh PATH]

With --agents N it measures only the echo on the prompt and in a pane with and without the status
line's machine-wide counts: alone, then beside N detached sessions whose (fake) Claude is blocked, so
the status line says "N need you" and the view asks those N hosts every 2 s, then alone again.
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import ptyprocess

TARGET_IDLE_P99_MS = 20.0
TARGET_FLOOD_P99_MS = 30.0
TARGET_START_MS = 300.0
TARGET_ATTACH_MS = 100.0
TARGET_HANDOFF_MS = 600.0


# The dsh to run: --dsh, else the one installed beside this Python.
DSH: str | None = None


def dsh_argv() -> list[str]:
    if DSH:
        return [DSH]
    script = Path(sys.executable).parent / "dsh"
    return [str(script)] if script.exists() else [sys.executable, "-m", "dsh"]


def drain(proc: ptyprocess.PtyProcess, seconds: float) -> bytes:
    out = bytearray()
    end = time.perf_counter() + seconds
    while True:
        left = end - time.perf_counter()
        if left <= 0:
            return bytes(out)
        ready, _, _ = select.select([proc.fd], [], [], left)
        if ready:
            try:
                out += os.read(proc.fd, 1 << 16)
            except OSError:
                return bytes(out)


def wait_for(proc: ptyprocess.PtyProcess, needle: bytes, timeout: float = 15.0) -> float:
    """Seconds until `needle` shows up in the output."""
    start = time.perf_counter()
    seen = bytearray()
    while time.perf_counter() - start < timeout:
        ready, _, _ = select.select([proc.fd], [], [], 0.05)
        if ready:
            try:
                seen += os.read(proc.fd, 1 << 16)
            except OSError:
                break
            if needle in seen:
                return time.perf_counter() - start
            del seen[: max(0, len(seen) - 4096)]
    raise TimeoutError(f"no {needle!r} within {timeout}s")


def echo_latencies(proc: ptyprocess.PtyProcess, samples: int, *, erase: bytes) -> list[float]:
    """Type a letter, time until the terminal shows it, erase it; repeat."""
    times: list[float] = []
    letters = b"qzxjkvy"  # none of them is in the flood's text, which would be taken for the echo
    for i in range(samples):
        ch = letters[i % len(letters) : i % len(letters) + 1]
        drain(proc, 0.01)
        start = time.perf_counter()
        os.write(proc.fd, ch)
        seen = bytearray()
        while time.perf_counter() - start < 5:
            ready, _, _ = select.select([proc.fd], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(proc.fd, 1 << 16)
                except OSError:
                    break
                if ch in seen:
                    times.append(time.perf_counter() - start)
                    break
        os.write(proc.fd, erase)
    return times


def tmux_flood(env: dict[str, str], log: Path, samples: int) -> list[float] | None:
    """The same echo in a tmux pane while the pane beside it cats the same log (None without tmux)."""
    if shutil.which("tmux") is None:
        return None
    import subprocess

    server = ["tmux", "-L", f"dsh-bench-{os.getpid()}", "-f", "/dev/null"]
    proc = ptyprocess.PtyProcess.spawn([*server, "new-session", "sh"], env=env, dimensions=(40, 140))
    try:
        drain(proc, 1.0)
        flood = f"sh -c 'while :; do cat {log}; done'"
        subprocess.run([*server, "split-window", "-h", "-d", flood], env=env, check=True)
        drain(proc, 0.5)
        return echo_latencies(proc, samples, erase=b"\x7f")
    finally:
        subprocess.run([*server, "kill-server"], env=env, check=False)
        end(proc)


def end(proc: ptyprocess.PtyProcess) -> None:
    """Kill the process and close its PTY now. Left to ptyprocess's __del__, the close sleeps 100 ms
    (`delayafterclose`) at whatever moment the object is dropped: when `proc` was bound to the next
    spawn, inside the next measurement (every attach measured at least 100 ms that way)."""
    from dsh.term.terminal import close_pty

    proc.terminate(force=True)
    close_pty(proc)


def computation_times(samples: int) -> list[float]:
    """Seconds taken by a fixed piece of Python work about as long as a keystroke's frame, `samples`
    times, 10 ms apart as the echoes are (the process sleeps between, as dsh's host does)."""
    times: list[float] = []
    for _ in range(samples):
        time.sleep(0.01)
        start = time.perf_counter()
        total = 0
        for i in range(20_000):
            total += i * i
        times.append(time.perf_counter() - start)
    return times


def summary(times: list[float]) -> tuple[float, float]:
    ms = sorted(t * 1000 for t in times)
    if not ms:
        return float("nan"), float("nan")
    p50 = statistics.median(ms)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return p50, p99


def end_hosts(home: str) -> None:
    """Stop every process started with this DSH_HOME (session hosts outlive their clients by design)."""
    import signal

    marker = f"DSH_HOME={home}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker + b"\0" in handle.read() + b"\0":
                    os.kill(int(entry), signal.SIGTERM)
        except OSError:
            pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument(
        "--dsh",
        help="the dsh to run; a regular install (pip install .) as users have it, where the dev venv's "
        "editable install spends about 24 ms of each start in its import finder",
    )
    parser.add_argument(
        "--agents",
        type=int,
        default=0,
        help="only the echo with and without the status line's counts of N other sessions' agents",
    )
    args = parser.parse_args()
    global DSH
    DSH = args.dsh
    if args.agents:
        return counts_echo(args.samples, args.agents)

    # As installed by pip, which byte-compiles: a run with bytecode writes off would time the compiler.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    home = tempfile.mkdtemp(prefix="dsh-bench-home-")
    work = tempfile.mkdtemp(prefix="dsh-bench-work-")
    env = dict(os.environ, DSH_HOME=home, SHELL="/bin/sh", TERM="xterm-256color")
    log = Path(work) / "big.log"
    with log.open("w") as f:
        line = "2026-11-29 20:00:00 INFO build step compiled module with some warnings and notes\n"
        f.write(line * (20_000_000 // len(line)))

    # Reference: a bare PTY running cat echoes a key with no dsh in between.
    ref = ptyprocess.PtyProcess.spawn(["cat"], env=env, dimensions=(30, 100))
    ref_times = echo_latencies(ref, args.samples, erase=b"\n")
    end(ref)
    ref_p50, ref_p99 = summary(ref_times)
    work_p50, work_p99 = summary(computation_times(args.samples * 2))

    # Start-up: spawn to the first frame (the status line), in a fresh workspace each time. Cold: no
    # dsh process of this user is running (the client starts the spawner, which imports everything).
    # Warm: another session is running, so its spawner is too and forks the new host ready-made.
    def start_once(cwd: str) -> float:
        t0 = time.perf_counter()
        proc = ptyprocess.PtyProcess.spawn(dsh_argv(), env=env, cwd=cwd, dimensions=(30, 100))
        wait_for(proc, b"PROMPT")
        took = time.perf_counter() - t0
        os.write(proc.fd, b"/quit\r")
        drain(proc, 0.3)
        end(proc)
        return took

    cold = []
    for n in range(5):
        end_hosts(home)  # no host, no spawner
        time.sleep(0.2)
        cold.append(start_once(tempfile.mkdtemp(prefix=f"cold{n}-", dir=work)))
    start_ms = statistics.median(cold) * 1000
    keeper = ptyprocess.PtyProcess.spawn(dsh_argv(), env=env, cwd=work, dimensions=(30, 100))
    wait_for(keeper, b"PROMPT")
    drain(keeper, 0.5)
    warm = [start_once(tempfile.mkdtemp(prefix=f"warm{n}-", dir=work)) for n in range(5)]
    warm_ms = statistics.median(warm) * 1000
    os.write(keeper.fd, b"/quit\r")
    drain(keeper, 0.3)
    end(keeper)

    # Attach: a detached session's host is running; `dsh attach` to its first full frame.
    proc = ptyprocess.PtyProcess.spawn(dsh_argv(), env=env, cwd=work, dimensions=(30, 100))
    wait_for(proc, b"PROMPT")
    os.write(proc.fd, b"echo attach-me\r")
    drain(proc, 0.5)
    os.write(proc.fd, b"\x02d")  # C-b d
    drain(proc, 0.5)
    end(proc)
    attaches = []
    for _ in range(10):
        t0 = time.perf_counter()
        proc = ptyprocess.PtyProcess.spawn([*dsh_argv(), "attach"], env=env, cwd=work, dimensions=(30, 100))
        wait_for(proc, b"PROMPT")
        attaches.append(time.perf_counter() - t0)
        drain(proc, 0.2)
        os.write(proc.fd, b"\x02d")
        drain(proc, 0.3)
        end(proc)
    attach_ms = statistics.median(attaches) * 1000
    proc = ptyprocess.PtyProcess.spawn([*dsh_argv(), "attach"], env=env, cwd=work, dimensions=(30, 100))
    wait_for(proc, b"PROMPT")
    os.write(proc.fd, b"/quit\r")
    drain(proc, 0.5)
    end(proc)

    # /resume: Enter on a session of another workspace, to the resumed session's first frame.
    other = Path(work) / "bravo-service"
    other.mkdir()
    proc = ptyprocess.PtyProcess.spawn(dsh_argv(), env=env, cwd=str(other), dimensions=(30, 100))
    wait_for(proc, b"PROMPT")
    os.write(proc.fd, b"echo bravo-tail\r")
    drain(proc, 0.5)
    os.write(proc.fd, b"/quit\r")
    drain(proc, 1.0)
    end(proc)
    handoffs = []
    for _ in range(5):
        proc = ptyprocess.PtyProcess.spawn(dsh_argv(), env=env, cwd=work, dimensions=(30, 100))
        wait_for(proc, b"PROMPT")
        os.write(proc.fd, b"/resume\r")
        wait_for(proc, b"This workspace")
        os.write(proc.fd, b"\t")
        wait_for(proc, b"All workspaces")
        os.write(proc.fd, b"bravo")
        drain(proc, 0.5)  # the filtered list (only changed cells are redrawn: nothing to wait for)
        t0 = time.perf_counter()
        os.write(proc.fd, b"\r")
        wait_for(proc, b"moved to")
        handoffs.append(time.perf_counter() - t0)
        os.write(proc.fd, b"/quit\r")
        drain(proc, 0.5)
        end(proc)
    handoff_ms = statistics.median(handoffs) * 1000

    proc = ptyprocess.PtyProcess.spawn(dsh_argv(), env=env, cwd=work, dimensions=(40, 140))
    wait_for(proc, b"PROMPT")
    drain(proc, 0.5)
    prompt_idle = echo_latencies(proc, args.samples, erase=b"\x7f")

    os.write(proc.fd, b"\x1d")  # C-]: into the pane (sh echoes typed keys)
    drain(proc, 0.3)
    pane_idle = echo_latencies(proc, args.samples, erase=b"\x7f")
    os.write(proc.fd, b"\x1d")
    drain(proc, 0.3)

    # Flood: a second pane cats the 20 MB log in a loop; focus comes back to the first pane.
    os.write(proc.fd, f"/split -h sh -c 'while :; do cat {log}; done'\r".encode())
    drain(proc, 0.5)
    os.write(proc.fd, b"/focus left\r")
    drain(proc, 0.5)
    prompt_flood = echo_latencies(proc, args.samples, erase=b"\x7f")
    os.write(proc.fd, b"\x1d")
    drain(proc, 0.3)
    pane_flood = echo_latencies(proc, args.samples, erase=b"\x7f")
    os.write(proc.fd, b"\x1d/quit\r")
    drain(proc, 0.5)
    end(proc)
    end_hosts(home)
    tmux_times = tmux_flood(env, log, args.samples)
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)

    print(f"reference (bare PTY + cat) echo: p50 {ref_p50:.2f} ms  p99 {ref_p99:.2f} ms")
    print(
        f"reference, the machine's stalls: a fixed Python computation p50 {work_p50:.2f} ms  p99 {work_p99:.2f} ms"
        f" ({work_p99 / work_p50:.1f}x its median)"
    )
    print(f"start-up to first frame, cold (no dsh running): {start_ms:.0f} ms (target <= {TARGET_START_MS:.0f} ms)")
    print(
        f"start-up to first frame, warm (another session running): {warm_ms:.0f} ms "
        f"(target <= {TARGET_START_MS:.0f} ms; {warm_ms / start_ms:.2f}x cold)"
    )
    print(
        f"dsh attach to a running host's first frame: {attach_ms:.0f} ms (target <= {TARGET_ATTACH_MS:.0f} ms; "
        f"{attach_ms / start_ms:.2f}x a new session)"
    )
    print(
        f"/resume Enter to the resumed session's first frame: {handoff_ms:.0f} ms "
        f"(target <= {TARGET_HANDOFF_MS:.0f} ms; {handoff_ms / start_ms:.2f}x a cold start)"
    )
    for name, times, target in (
        ("prompt, idle", prompt_idle, TARGET_IDLE_P99_MS),
        ("pane, idle", pane_idle, TARGET_IDLE_P99_MS),
        ("prompt, under flood", prompt_flood, TARGET_FLOOD_P99_MS),
        ("pane, under flood", pane_flood, TARGET_FLOOD_P99_MS),
    ):
        p50, p99 = summary(times)
        ok = "ok" if p99 <= target else "OVER"
        print(
            f"{name:<22} p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  ({len(times)}/{args.samples} echoed)"
            f"  p99 x{p99 / ref_p99 if ref_p99 else float('nan'):.0f} of reference"
            f"  [{ok} vs {target:.0f} ms]"
        )
    if tmux_times is not None:
        p50, p99 = summary(tmux_times)
        _, dsh_p99 = summary(pane_flood)
        print(
            f"{'tmux pane, same flood':<22} p50 {p50:6.1f} ms  p99 {p99:6.1f} ms"
            f"  ({len(tmux_times)}/{args.samples} echoed)"
            f"  dsh pane p99 / tmux p99: {dsh_p99 / p99 if p99 else float('nan'):.1f}x"
        )
    return 0


def counts_echo(samples: int, count: int) -> int:
    """Echo on the prompt and in a pane: alone, beside `count` sessions with a blocked agent each (the
    status line's machine-wide counts, and the view's poll of their hosts every 2 s), alone again."""
    import json
    import subprocess

    fakes = Path(__file__).resolve().parent.parent / "tests" / "fakes" / "bin"
    home = tempfile.mkdtemp(prefix="dsh-bench-home-")
    work = tempfile.mkdtemp(prefix="dsh-bench-work-")
    user = Path(tempfile.mkdtemp(prefix="dsh-bench-user-"))
    (user / ".claude").mkdir()
    env = dict(os.environ, DSH_HOME=home, SHELL="/bin/sh", TERM="xterm-256color", HOME=str(user))
    env["PATH"] = f"{fakes}{os.pathsep}{env.get('PATH', '')}"
    env.pop("CLAUDE_CONFIG_DIR", None)
    ref = ptyprocess.PtyProcess.spawn(["cat"], env=env, dimensions=(30, 100))
    ref_p50, ref_p99 = summary(echo_latencies(ref, samples, erase=b"\n"))
    end(ref)
    proc = ptyprocess.PtyProcess.spawn(dsh_argv(), env=env, cwd=work, dimensions=(40, 140))
    wait_for(proc, b"PROMPT")
    drain(proc, 0.5)

    def both() -> tuple[list[float], list[float]]:
        prompt = echo_latencies(proc, samples, erase=b"\x7f")
        os.write(proc.fd, b"\x1d")  # C-]: into the pane (sh echoes typed keys)
        drain(proc, 0.3)
        pane = echo_latencies(proc, samples, erase=b"\x7f")
        os.write(proc.fd, b"\x1d")
        drain(proc, 0.3)
        return prompt, pane

    results = [("alone", *both())]
    others = []
    for n in range(count):
        where = tempfile.mkdtemp(prefix=f"agent{n}-", dir=work)
        made = subprocess.run(
            [*dsh_argv(), "new", "-d", "--json", "--", "claude"], env=env, cwd=where, capture_output=True, text=True
        )
        sid = json.loads(made.stdout)["session"]
        subprocess.run([*dsh_argv(), "send", "-t", f"{sid}:p1", "ask make deploy\r"], env=env, cwd=where, check=True)
        others.append(sid)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # every agent blocked (the status line is drawn by its changes only)
        listed = subprocess.run([*dsh_argv(), "agents", "--all", "--json"], env=env, capture_output=True, text=True)
        if sum(1 for row in json.loads(listed.stdout or "[]") if row.get("state") == "blocked") >= count:
            break
        drain(proc, 0.5)
    # Two polls of the other hosts behind it: the status line's counts are theirs (a redraw shows them).
    os.write(proc.fd, b"\x0c")  # C-l: a whole frame, so the counts are in this output whole
    shown = drain(proc, 4.5)
    if b"need you" not in shown:
        print("warning: the status line did not show the counts", file=sys.stderr)
    results.append((f"beside {count} blocked agents", *both()))
    for sid in others:
        subprocess.run([*dsh_argv(), "stop", sid], env=env, cwd=work, capture_output=True)
    drain(proc, 2.5)
    results.append(("alone again", *both()))
    os.write(proc.fd, b"/quit\r")
    drain(proc, 0.5)
    end(proc)
    end_hosts(home)
    for folder in (home, work, str(user)):
        shutil.rmtree(folder, ignore_errors=True)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"reference (bare PTY + cat) echo: p50 {ref_p50:.2f} ms  p99 {ref_p99:.2f} ms")
    for name, prompt, pane in results:
        for where, times in (("prompt", prompt), ("pane", pane)):
            p50, p99 = summary(times)
            print(f"{name:<28} {where:<6} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  ({len(times)}/{samples} echoed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
