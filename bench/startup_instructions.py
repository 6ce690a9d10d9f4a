"""Start-up and attach counted in instructions (valgrind's cachegrind), which, unlike the wall clock
bench/latency.py reads, do not move with a busy machine: a few per cent show here.

Each path runs in a fresh interpreter of the installed dsh given by --python (a venv's python; its `dsh`
script beside it), in a PTY of 140x40, with a DSH_HOME of its own:

- the client: `dsh` from the interpreter's start to the fork of its session's host (no spawner runs,
  as on a cold start): its imports and its decisions;
- the host: the same process carries on, at that fork, as the forked host would (the client's
  modules loaded, daemonize left out): the view's import, the session, its socket, the first pane,
  and a client's connection (the hello of `dsh attach`, from a coroutine in the same process) until the
  host writes the first frame that shows the status line ("PROMPT") to that socket; counted as this
  run less the client's;
- `dsh attach`: a client from the interpreter's start to its connect to the socket of a running,
  detached host of the same workspace (started beforehand, outside valgrind);
- the host's work for a connection: the host run as above with 6 connections one after another (each
  read to its first frame, then closed, and the host's end of it read) less the run with 2, divided
  by 4: a connection's whole round, its first frame, what the view does after it, and its end;
  and the 6th connection alone, to its first frame: the run with 6 less the run that ends once the
  5th has come and gone (the client has read the host's end of it).

The reference, in the same run: `python -c pass` with the same interpreter. The hooks are the audit
events `os.fork` and `socket.connect` (sys.addaudithook), the frame of `start_host` at the fork, whose
`spec` and `entry` the host is run with, and asyncio's socket transport's `write`, so nothing of dsh is
patched; both trees compared so far (2dde96d and later) have those names.

    python bench/startup_instructions.py [--python VENV/bin/python] [--runs N] [--keep DIR] [--only PATHS]

--keep DIR leaves each run's cachegrind file there, for `cg_annotate` (where the instructions go).
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

ROWS, COLS = 40, 140
# A new connection's cost: the host's run with MANY connections one after another less the run with FEW.
FEW, MANY = 2, 6

# Run with -c in the measured interpreter, so that the count holds nothing of this script's imports.
# argv: mode (client, imports, ready, host, ended, attach), connections, the dsh script, its words.
CHILD = r"""
import os, sys

mode, connections, script = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.argv = [script, *sys.argv[4:]]
sys.path[0] = os.path.dirname(script)
done = []


class Ready:
    answered = False

    def succeed(self, session_id):
        import asyncio

        self.answered = True
        if mode == "ready":
            os._exit(0)
        done.append(asyncio.get_running_loop().create_task(connect(session_id)))

    def fail(self, message):
        self.answered = True
        sys.stderr.write(f"the host failed: {message}\n")
        os._exit(3)


async def connect(session_id):
    import asyncio
    from asyncio.selector_events import _SelectorSocketTransport

    from dsh import protocol
    from dsh.rundir import socket_path

    path = str(socket_path(session_id))
    last = []
    write = _SelectorSocketTransport.write

    def host_writes(transport, data):
        # The count ends as the host writes the last connection's first frame to the socket: what it
        # does next (the index refresh, key bindings, on the loop's next turns) is not that frame's.
        write(transport, data)
        if last and b"PROMPT" in bytes(data):
            os._exit(0)

    _SelectorSocketTransport.write = host_writes
    for n in range(connections):
        if n == connections - 1 and mode == "host":
            last.append(n)
        reader, writer = await asyncio.open_unix_connection(path)
        hello = protocol.hello(rows=40, cols=140, env={"TERM": "xterm-256color"}, pid=os.getpid(), intent={})
        writer.write(hello)
        seen = b""
        while b"PROMPT" not in seen:
            chunk = await reader.read(1 << 16)
            if not chunk:
                sys.stderr.write("the host closed the connection before its first frame\n")
                os._exit(4)
            seen = seen[-8:] + chunk
        writer.write_eof()
        while await reader.read(1 << 16):
            pass
        writer.close()
    os._exit(0)  # mode "ended": every connection came and went


def on_event(event, args):
    if done:
        return
    if event == "os.fork":
        done.append(event)
        if mode == "client":
            os._exit(0)
        if mode == "imports":  # what the host's entry imports (cli/run.py's _host_entry), then stop
            import gc

            gc.disable()
            from dsh.ui.host_import import import_view

            import_view()
            from dsh.ui.remote import serve  # noqa: F401

            gc.freeze()
            gc.enable()
            os._exit(0)
        caller = sys._getframe(1)  # start_host, about to fork the host
        caller.f_locals["entry"](caller.f_locals["spec"], Ready())
    elif event == "socket.connect" and mode == "attach" and str(args[1]).endswith(".sock"):
        caller = sys._getframe(1)
        while caller is not None:  # the attach itself, not `dsh attach`'s query of each host
            if caller.f_code.co_name == "attach_or_start":
                os._exit(0)
            caller = caller.f_back


sys.addaudithook(on_event)
with open(script) as handle:
    code = compile(handle.read(), script, "exec")
exec(code, {"__name__": "__main__"})
"""


class Workspace:
    """A DSH_HOME, a HOME and a workspace directory of their own, and the environment to run dsh in."""

    def __init__(self, root: Path, name: str) -> None:
        self.home = root / f"{name}-home"
        self.user = root / f"{name}-user"
        self.work = root / f"{name}-work"
        for folder in (self.home, self.user, self.work):
            folder.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "XDG_", "PYTHON"))}
        env.update(
            DSH_HOME=str(self.home),
            HOME=str(self.user),
            SHELL="/bin/sh",
            ENV="",
            PS1="$ ",
            TERM="xterm-256color",
            PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"),
        )
        self.env = env

    def end_hosts(self) -> None:
        """Stop every process started with this DSH_HOME (hosts and the spawner outlive their clients)."""
        marker = f"DSH_HOME={self.home}".encode() + b"\0"
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if marker in handle.read():
                        os.kill(int(entry), signal.SIGTERM)
            except OSError:
                pass


def terminal() -> tuple[int, int]:
    """A PTY of ROWS x COLS: (master, slave)."""
    master, slave = pty.openpty()
    import fcntl

    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    return master, slave


def drain(master: int, until: bytes, timeout: float) -> bool:
    """Read the PTY until `until` shows (True) or it closes or `timeout` passes (False)."""
    seen = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:
                return False
            if not chunk:
                return False
            seen = seen[-64:] + chunk
            if until and until in seen:
                return True
    return False


def detached_session(python: str, dsh: str, space: Workspace) -> None:
    """Start a session in `space` and detach it (C-b d): its host runs on, for `dsh attach`."""
    master, slave = terminal()
    proc = subprocess.Popen(
        [python, dsh], stdin=slave, stdout=slave, stderr=slave, env=space.env, cwd=space.work, start_new_session=True
    )
    os.close(slave)
    try:
        if not drain(master, b"PROMPT", 30):
            raise SystemExit("the session for `dsh attach` did not show its first frame")
        drain(master, b"", 1.0)
        os.write(master, b"\x02d")
        drain(master, b"", 2.0)
        proc.wait(10)
    finally:
        os.close(master)


def count(python: str, argv: list[str], space: Workspace, out: Path, keep: Path | None, name: str) -> int:
    """Instructions of one run of `argv` (the measured interpreter's arguments) in a PTY."""
    logs = out / f"{name}-log"
    logs.mkdir()
    grind = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        f"--cachegrind-out-file={keep / f'{name}.%p' if keep else '/dev/null'}",
        f"--log-file={logs}/%p",
    ]
    master, slave = terminal()
    with open(out / f"{name}.stderr", "wb") as err:
        proc = subprocess.Popen(
            [*grind, python, *argv], stdin=slave, stdout=slave, stderr=err, env=space.env, cwd=space.work
        )
    os.close(slave)
    try:
        while proc.poll() is None:
            drain(master, b"", 0.5)
    finally:
        os.close(master)
    log = (logs / str(proc.pid)).read_text()
    found = re.search(r"I\s+refs:\s+([\d,]+)", log)
    if proc.returncode != 0 or found is None:
        raise SystemExit(
            f"{name}: status {proc.returncode}\n{log[-1500:]}\n{(out / f'{name}.stderr').read_text()[-1500:]}"
        )
    return int(found[1].replace(",", ""))


PATHS = ("pass", "client", "imports", "ready", "host1", f"host{FEW}", f"host{MANY}", f"ended{MANY - 1}", "attach")


def one_round(python: str, dsh: str, root: Path, keep: Path | None, tag: str, only: set[str]) -> dict[str, int]:
    """Every path asked for once, each in a workspace of its own: counts by name."""
    counts: dict[str, int] = {}
    for name in PATHS:
        if name not in only:
            continue
        if name == "pass":
            argv = ["-c", "pass"]
        elif name.startswith(("host", "ended")):
            kind = "host" if name.startswith("host") else "ended"
            argv = ["-c", CHILD, kind, name.removeprefix(kind), dsh]
        elif name == "attach":
            argv = ["-c", CHILD, "attach", "0", dsh, "attach"]
        else:
            argv = ["-c", CHILD, name, "0", dsh]
        space = Workspace(root, f"{tag}-{name}")
        try:
            if name == "attach":
                detached_session(python, dsh, space)
            counts[name] = count(python, argv, space, root, keep, f"{tag}-{name}")
        finally:
            space.end_hosts()
    return counts


# What is printed: a label, and the figure from one round's counts.
FIGURES: tuple[tuple[str, Callable[[dict[str, int]], float]], ...] = (
    ("python -c pass (the reference)", lambda r: r["pass"]),
    ("client: `dsh` to its fork of the host", lambda r: r["client"]),
    ("host: from that fork to its first frame", lambda r: r["host1"] - r["client"]),
    ("  of which its imports (_host_entry's)", lambda r: r["imports"] - r["client"]),
    ("  then the session, listening, its first pane", lambda r: r["ready"] - r["imports"]),
    ("  then a client's connection to its first frame", lambda r: r["host1"] - r["ready"]),
    ("a cold start: the two together", lambda r: r["host1"]),
    ("client: `dsh attach` to its connect", lambda r: r["attach"]),
    (
        f"host: a connection's round, ({MANY}-{FEW} connections)/{MANY - FEW}",
        lambda r: (r[f"host{MANY}"] - r[f"host{FEW}"]) / (MANY - FEW),
    ),
    (
        f"host: connection {MANY} to its first frame, {MANY - 1} gone",
        lambda r: r[f"host{MANY}"] - r[f"ended{MANY - 1}"],
    ),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the installed dsh to count")
    parser.add_argument("--runs", type=int, default=1, help="rounds of every path (to show the spread)")
    parser.add_argument("--keep", type=Path, help="leave the cachegrind files here")
    parser.add_argument("--only", help=f"a comma-separated subset of {','.join(PATHS)}")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    python = os.path.abspath(args.python)
    dsh = str(Path(python).parent / "dsh")
    if not os.path.exists(dsh):
        raise SystemExit(f"no dsh script beside {python}")
    keep = args.keep.resolve() if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    only = set(args.only.split(",")) if args.only else set(PATHS)
    with tempfile.TemporaryDirectory(prefix="dsh-si-") as tmp:
        rounds = [one_round(python, dsh, Path(tmp), keep, f"r{n}", only) for n in range(args.runs)]
    load = os.getloadavg()
    print(
        f"instructions (valgrind's cachegrind), {python}, PYTHONHASHSEED={os.environ.get('PYTHONHASHSEED', '0')}"
        f" (load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end; counts do not move with it)"
    )
    reference = statistics.mean(r["pass"] for r in rounds) if "pass" in only else None
    for label, figure in FIGURES:
        try:
            values = [figure(r) for r in rounds]
        except KeyError:
            continue  # a path left out by --only
        mean = statistics.mean(values)
        ratio = f"{mean / reference:5.2f}x; " if reference else ""
        each = " / ".join(f"{value / 1e6:.1f}" for value in values)
        print(f"  {label:50s} {mean / 1e6:7.1f} M  ({ratio}runs {each})")


if __name__ == "__main__":
    main()
