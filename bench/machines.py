"""Benchmark other machines over a real sshd on 127.0.0.1, with a warm ControlMaster: how soon the first
rows of a machine holding N sessions arrive (as the picker's machines scope lists them), the whole
`dsh sessions --machine` process, and Enter on a live session there to its first frame (the `ssh -t
... dsh attach ID` the client hands its terminal to, in a PTY); beside them, in the same run, the
floor: a bare command through the same master (`true`, with and without a terminal) and the other
machine's `python -c pass`.

Run: `.venv/bin/python bench/machines.py [--sessions 10000] [--samples 15] [--dsh PATH]` (PATH: the dsh
that runs "there", e.g. a regular install's; default this interpreter's).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.store import make_logs  # noqa: E402
from tests.sshd import start_sshd  # noqa: E402

TARGET_FIRST_ROWS_MS = 300.0
TARGET_FIRST_FRAME_MS = 500.0


def first_rows_ms(config: Any) -> float:
    from dsh.machines.stream import MachineStream

    async def main() -> float:
        start = time.perf_counter()
        first: list[float] = []
        done: list[object] = []

        def on_rows(_machine: object, rows: list[dict[str, Any]]) -> None:
            if rows and not first:
                first.append(time.perf_counter() - start)

        stream = MachineStream(config, config.machines, on_rows=on_rows, on_done=done.append)
        stream.start()
        while not done:
            await asyncio.sleep(0.001)
        listing = done[0]
        if getattr(listing, "error", None):
            raise SystemExit(f"listing failed: {listing.error}")  # type: ignore[attr-defined]
        return first[0] * 1000

    return asyncio.run(main())


def whole(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def attach_first_frame_ms(argv: list[str], env: dict[str, str]) -> float:
    """`ssh -t box dsh attach ID` in a PTY of its own, from its start to the other session's first frame
    on screen (its prompt line drawn); then detached again (C-b d) and waited for."""
    import ptyprocess
    import pyte

    screen = pyte.Screen(120, 30)
    stream = pyte.ByteStream(screen)
    start = time.perf_counter()
    proc = ptyprocess.PtyProcess.spawn(argv, env=env, dimensions=(30, 120))
    seen = None
    try:
        while seen is None:
            try:
                stream.feed(proc.read(65536))
            except EOFError:
                raise SystemExit("the attach ended before its first frame") from None
            if any("dsh›" in line for line in screen.display):
                seen = (time.perf_counter() - start) * 1000
        proc.write(b"\x02d")
        while True:
            try:
                proc.read(65536)
            except EOFError:
                break
    finally:
        proc.close(force=True)
    return seen


def summary(name: str, times: list[float]) -> float:
    times = sorted(times)
    p50 = statistics.median(times)
    p90 = times[int(len(times) * 0.9) - 1] if len(times) >= 10 else times[-1]
    print(f"{name:58s} p50 {p50:7.1f} ms  p90 {p90:7.1f} ms  (n={len(times)})")
    return p50


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--dsh", default=str(Path(sys.executable).parent / "dsh"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dsh-bench-machines-") as tmp:
        root = Path(tmp)
        local, remote = root / "local", root / "remote"
        for home in (local, remote):
            home.mkdir(mode=0o700)
        make_logs(remote / "sessions", args.sessions, max(1, args.sessions // 20))
        env = {**os.environ, "DSH_HOME": str(local)}
        env.pop("XDG_RUNTIME_DIR", None)
        os.environ.update(DSH_HOME=str(local))
        os.environ.pop("XDG_RUNTIME_DIR", None)
        there = f"env DSH_HOME={shlex.quote(str(remote))} {shlex.quote(args.dsh)}"
        # The other machine's index, built once (a machine in use has one).
        subprocess.run([*shlex.split(there), "sessions", "--all", "--json"], stdout=subprocess.DEVNULL, check=True)
        sshd = start_sshd(root / "sshd")
        try:
            (local / "config.toml").write_text(
                f'[machines]\nssh_command = "{sshd.ssh_command}"\ntimeout_seconds = 30\n'
                f"[machines.box]\nssh = \"box\"\ndsh = '{there}'\n"
            )
            os.chmod(local / "config.toml", 0o600)
            from dsh.config import load_config
            from dsh.machines.config import read_machines
            from dsh.machines.ssh import control_path

            config = read_machines(load_config(env={}))
            first_rows_ms(config)  # warms the master (and the other machine's page cache)
            ssh = shlex.split(sshd.ssh_command)
            mux = [*ssh, "-T", "-o", "ControlMaster=no", "-o", f"ControlPath={control_path(config.machines[0])}", "box"]
            rows, floor, python, listing = [], [], [], []
            for _ in range(args.samples):
                rows.append(first_rows_ms(config))
                floor.append(whole([*mux, "true"], env))
                python.append(whole([*mux, f"{shlex.quote(sys.executable)} -c pass"], env))
                listing.append(
                    whole(
                        [
                            *shlex.split(str(Path(sys.executable).parent / "dsh")),
                            "sessions",
                            "--machine",
                            "box",
                            "--json",
                        ],
                        env,
                    )
                )
            print(
                f"machines bench: {args.sessions} sessions there; load {os.getloadavg()[0]:.2f}; dsh there: {args.dsh}"
            )
            p50_rows = summary("first rows in the picker's listing (warm master)", rows)
            p50_floor = summary("reference: `true` through the master", floor)
            p50_python = summary("reference: `python -c pass` there through the master", python)
            summary("whole `dsh sessions --machine box --json`", listing)
            print(
                f"first rows: {p50_rows:.0f} ms (target <= {TARGET_FIRST_ROWS_MS:.0f} ms); "
                f"x{p50_rows / p50_python:.2f} of python -c pass there, +{p50_rows - p50_floor:.0f} ms over bare ssh"
            )
            # Enter on a live session there: what the client hands the terminal to, to its first frame.
            from dsh.machines.ssh import attach_argv

            work = root / "work"
            work.mkdir()
            made = subprocess.run(
                [*shlex.split(there), "new", "-d", "--json", "--", "sh"],
                cwd=work,
                capture_output=True,
                text=True,
                check=True,
                env={**env, "SHELL": "/bin/sh"},
            )
            import json

            sid = json.loads(made.stdout)["session"]
            argv = attach_argv(config.ssh_command, config.machines[0], ["attach", sid])
            tty = [*ssh, "-t", "-o", "ControlMaster=no", "-o", f"ControlPath={control_path(config.machines[0])}", "box"]
            attach_env = {**env, "TERM": "xterm-256color"}
            frames, bare = [], []
            for _ in range(args.samples):
                frames.append(attach_first_frame_ms(argv, attach_env))
                bare.append(whole([*tty, "true"], env))
            p50_frame = summary("Enter on a live session there: ssh -t to its first frame", frames)
            p50_bare = summary("reference: `ssh -t box true` through the master", bare)
            over = p50_frame - p50_bare
            goal = TARGET_FIRST_FRAME_MS
            print(f"first frame: {p50_frame:.0f} ms (target <= {goal:.0f} ms), +{over:.0f} ms over bare ssh")
            subprocess.run([*shlex.split(there), "stop", sid], capture_output=True, env=env)
            subprocess.run(
                [*ssh, "-O", "exit", "-o", f"ControlPath={control_path(config.machines[0])}", "box"],
                capture_output=True,
            )
        finally:
            sshd.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
