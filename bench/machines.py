"""Benchmark other machines over a real sshd on 127.0.0.1, with a warm ControlMaster: how soon the first
rows of a machine holding N sessions arrive (as the picker's machines scope lists them), the whole
`dsh sessions --machine` process, and Enter on a live session there to its first frame (the `ssh -t
... dsh attach ID` the client hands its terminal to, in a PTY); beside them, in the same run, the
floor: a bare command through the same master (`true`, with and without a terminal) and the other
machine's `python -c pass`.

Run: `.venv/bin/python bench/machines.py [--sessions 10000] [--samples 15] [--dsh PATH] [--plain-user]`
(PATH: the dsh that runs "there", e.g. a regular install's; default this interpreter's). The ssh login
is this user's (root's, here: its ~/.bashrc runs `pyenv init` for every command ssh runs).
`--plain-user` adds, in turns with it, the first rows and the floor of a login as a plain user the bench
creates (useradd, `/bin/sh`, which reads no rc file for a command, a DSH_HOME of its own with the same
sessions), as a typical machine's login is; the user is removed at the end. Needs root, and an install
that user can run: a venv made from /usr/bin/python3, not from root's pyenv (/root is 0700).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import shutil
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


PLAIN_USER = "dshbench"
SBIN = ("/usr/sbin", "/sbin")


def sbin(name: str) -> str:
    """useradd and the like, which root's PATH here does not hold."""
    return shutil.which(name) or next((f"{d}/{name}" for d in SBIN if os.path.exists(f"{d}/{name}")), name)


def first_rows_ms(config: Any, machine: Any) -> float:
    from dsh.machines.stream import MachineStream

    async def main() -> float:
        start = time.perf_counter()
        first: list[float] = []
        done: list[object] = []

        def on_rows(_machine: object, rows: list[dict[str, Any]]) -> None:
            if rows and not first:
                first.append(time.perf_counter() - start)

        stream = MachineStream(config, [machine], on_rows=on_rows, on_done=done.append)
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


def make_plain_user(remote: Path, dsh: str, made: list[Path]) -> tuple[Path, str]:
    """A plain user (no rc files: `/bin/sh` reads none for a command) with a home outside this bench's
    private temp folder, its DSH_HOME a copy of `remote`'s sessions, its index built as that user; the
    folder and the `dsh` command line that runs dsh as that user."""
    subprocess.run([sbin("userdel"), PLAIN_USER], capture_output=True)  # left by a run that was killed
    base = Path(tempfile.mkdtemp(prefix="dsh-bench-plain-"))
    made.append(base)  # removed at the end, whatever happens
    os.chmod(base, 0o755)
    home = base / "home"
    # No password ("*", not useradd's "!": sshd without PAM refuses a locked account even a key).
    subprocess.run([sbin("useradd"), "-M", "-p", "*", "-d", str(home), "-s", "/bin/sh", PLAIN_USER], check=True)
    home.mkdir(mode=0o700)
    dsh_home = home / "dsh"
    dsh_home.mkdir(mode=0o700)
    shutil.copytree(remote / "sessions", dsh_home / "sessions")
    subprocess.run(["chown", "-R", f"{PLAIN_USER}:", str(home)], check=True)
    there = f"env DSH_HOME={shlex.quote(str(dsh_home))} {shlex.quote(dsh)}"
    # Its index, built once as that user (and the install shown readable to it).
    built = subprocess.run(
        [sbin("runuser"), "-u", PLAIN_USER, "--", *shlex.split(there), "sessions", "--all", "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
    )
    if built.returncode != 0:
        raise SystemExit(f"{dsh} does not run as {PLAIN_USER} (an install it can read?): {built.stderr.strip()}")
    return base, there


def plain_ssh_host(sshd: Any, home: Path) -> None:
    """`Host plain` in the bench's ssh_config: the same sshd and key, logging in as the plain user (the
    key authorized in its home, as `also_authorized` names it)."""
    key = sshd.folder / "authorized_keys"
    mine = home / ".dsh-bench-authorized_keys"
    shutil.copy(key, mine)
    shutil.chown(mine, PLAIN_USER)
    os.chmod(mine, 0o600)
    block = sshd.config.read_text().split("Host gone")[0]
    with sshd.config.open("a") as out:
        out.write(block.replace("Host box", "Host plain").replace(f"User {_me()}", f"User {PLAIN_USER}"))


def _me() -> str:
    import getpass

    return getpass.getuser()


def summary(name: str, times: list[float]) -> float:
    times = sorted(times)
    p50 = statistics.median(times)
    p90 = times[int(len(times) * 0.9) - 1] if len(times) >= 10 else times[-1]
    print(f"{name:86s} p50 {p50:7.1f} ms  p90 {p90:7.1f} ms  (n={len(times)})")
    return p50


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--dsh", default=str(Path(sys.executable).parent / "dsh"))
    parser.add_argument("--plain-user", action="store_true", help="also log in as a plain user the bench creates")
    args = parser.parse_args()
    made: list[Path] = []  # the plain user's folder, once made
    try:
        with tempfile.TemporaryDirectory(prefix="dsh-bench-machines-") as tmp:
            run(Path(tmp), args, made)
    finally:
        if args.plain_user:
            subprocess.run([sbin("userdel"), PLAIN_USER], capture_output=True)
            for folder in made:
                shutil.rmtree(folder, ignore_errors=True)
    return 0


def run(root: Path, args: argparse.Namespace, made: list[Path]) -> None:
    """The bench in the private folder `root`; the plain user's folder, when there is one, into `made`."""
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
    plain_base, plain_there = make_plain_user(remote, args.dsh, made) if args.plain_user else (None, "")
    sshd = start_sshd(root / "sshd", also_authorized="%h/.dsh-bench-authorized_keys" if plain_base else "")
    try:
        machines = f"[machines.box]\nssh = \"box\"\ndsh = '{there}'\n"
        if plain_base is not None:
            plain_ssh_host(sshd, plain_base / "home")
            machines += f"[machines.plain]\nssh = \"plain\"\ndsh = '{plain_there}'\n"
        (local / "config.toml").write_text(
            f'[machines]\nssh_command = "{sshd.ssh_command}"\ntimeout_seconds = 30\n{machines}'
        )
        os.chmod(local / "config.toml", 0o600)
        from dsh.config import load_config
        from dsh.machines.config import read_machines
        from dsh.machines.ssh import control_path

        config = read_machines(load_config(env={}))
        named = {machine.name: machine for machine in config.machines}
        box, plain = named["box"], named.get("plain")
        ssh = shlex.split(sshd.ssh_command)
        for machine in config.machines:
            first_rows_ms(config, machine)  # warms the master (and the other machine's page cache)

        # `python -c pass` with the interpreter of the dsh there (the one its script names).
        first_line = Path(args.dsh).read_text().split("\n", 1)[0]
        python_there = shlex.quote(first_line[2:].strip() if first_line.startswith("#!") else sys.executable)

        def mux(machine: Any) -> list[str]:
            return [*ssh, "-T", "-o", "ControlMaster=no", "-o", f"ControlPath={control_path(machine)}", machine.ssh]

        rows, floor, python, listing = [], [], [], []
        plain_rows, plain_floor, plain_python = [], [], []
        for _ in range(args.samples):
            rows.append(first_rows_ms(config, box))
            floor.append(whole([*mux(box), "true"], env))
            python.append(whole([*mux(box), f"{python_there} -c pass"], env))
            if plain is not None:
                plain_rows.append(first_rows_ms(config, plain))
                plain_floor.append(whole([*mux(plain), "true"], env))
                plain_python.append(whole([*mux(plain), f"{python_there} -c pass"], env))
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
        print(f"machines bench: {args.sessions} sessions there; load {os.getloadavg()[0]:.2f}; dsh there: {args.dsh}")
        who = f" (login: {_me()})" if plain is not None else ""
        p50_rows = summary(f"first rows in the picker's listing (warm master){who}", rows)
        p50_floor = summary(f"reference: `true` through the master{who}", floor)
        p50_python = summary(f"reference: `python -c pass` there through the master{who}", python)
        summary("whole `dsh sessions --machine box --json`", listing)
        print(
            f"first rows{who}: {p50_rows:.0f} ms (target <= {TARGET_FIRST_ROWS_MS:.0f} ms); "
            f"x{p50_rows / p50_python:.2f} of python -c pass there, +{p50_rows - p50_floor:.0f} ms over bare ssh"
        )
        if plain is not None:
            who = f" (login: {PLAIN_USER}, no rc files)"
            p50_plain = summary(f"first rows in the picker's listing (warm master){who}", plain_rows)
            p50_pfloor = summary(f"reference: `true` through the master{who}", plain_floor)
            p50_ppython = summary(f"reference: `python -c pass` there through the master{who}", plain_python)
            print(
                f"first rows{who}: {p50_plain:.0f} ms (target <= {TARGET_FIRST_ROWS_MS:.0f} ms); "
                f"x{p50_plain / p50_ppython:.2f} of python -c pass there, "
                f"+{p50_plain - p50_pfloor:.0f} ms over bare ssh"
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
        argv = attach_argv(config.ssh_command, box, ["attach", sid])
        tty = [*ssh, "-t", "-o", "ControlMaster=no", "-o", f"ControlPath={control_path(box)}", "box"]
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
        for machine in config.machines:
            subprocess.run(
                [*ssh, "-O", "exit", "-o", f"ControlPath={control_path(machine)}", machine.ssh],
                capture_output=True,
            )
    finally:
        sshd.stop()


if __name__ == "__main__":
    raise SystemExit(main())
