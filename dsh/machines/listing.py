"""Listing another machine's sessions (or agent conversations, or its version) over ssh: one process
per machine, all at once, each with its own time limit; a machine that fails is one line saying why."""

from __future__ import annotations

import os
import selectors
import subprocess
import tempfile
import time
from typing import Any

from dsh import __version__
from dsh.machines.config import Machine, MachineConfig
from dsh.machines.rows import RowReader
from dsh.machines.ssh import batch_argv, check_argv, control_path, explain, master_argv, try_master_lock


class Listing:
    """What one machine answered: its rows, its dsh version, and `error` when it failed (one line)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.rows: list[dict[str, Any]] = []
        self.version: str | None = None
        self.error: str | None = None
        self.bad = 0
        self.seconds = 0.0


def listing_words(*, agents: bool) -> list[str]:
    return ["sessions", "--all", "--json", "--version-first", *(["--agents"] if agents else [])]


def listing_argv(config: MachineConfig, machine: Machine, *, agents: bool) -> list[str]:
    """ssh running `dsh sessions --all --json --version-first` there: its version on the first line,
    then the rows. A dsh too old for that fails on the flag, and is then asked `--version` alone
    (`too_old`), so what to upgrade can still be said."""
    return batch_argv(config.ssh_command, machine, listing_words(agents=agents), timeout=config.timeout)


def too_old(stderr: str) -> bool:
    """Whether a failed listing's stderr says the other dsh does not know the listing's flags."""
    return "unrecognized arguments" in stderr or "invalid choice" in stderr


def attention_words() -> list[str]:
    return ["agents", "--all", "--json", "--version-first"]


def version_argv(config: MachineConfig, machine: Machine) -> list[str]:
    return batch_argv(config.ssh_command, machine, ["--version"], timeout=config.timeout)


def quiet_env() -> dict[str, str]:
    # No terminal for ssh to ask on: with BatchMode it never asks, and SSH_ASKPASS must not pop up either.
    env = dict(os.environ)
    env.pop("SSH_ASKPASS", None)
    env["SSH_ASKPASS_REQUIRE"] = "never"
    return env


def run_listings(config: MachineConfig, machines: list[Machine], *, agents: bool = False) -> list[Listing]:
    """Every machine's listing, their ssh processes run side by side; each stops at the time limit."""
    return _run(config, machines, lambda m: listing_argv(config, m, agents=agents), agents=agents)


def run_attention(config: MachineConfig, machines: list[Machine]) -> list[Listing]:
    """Every machine's agent panes with their states (`dsh agents --all --json` there), as rows of
    `AgentRow.to_dict()` carrying the machine's name."""

    def argv_for(machine: Machine) -> list[str]:
        return batch_argv(config.ssh_command, machine, attention_words(), timeout=config.timeout)

    return _run(config, machines, argv_for, agents=False, attention=True)


def run_versions(config: MachineConfig, machines: list[Machine]) -> list[Listing]:
    """Each machine's `dsh --version` (its `version`, or its `error`)."""
    return _run(config, machines, lambda m: version_argv(config, m), agents=False)


def start_masters(config: MachineConfig, machines: list[Machine], deadline: float) -> dict[str, str]:
    """Make sure each machine's master runs (a local check first; a login only where none runs); the
    one-line error of each machine whose master could not start."""
    failed: dict[str, str] = {}
    by_path: dict[str, list[Machine]] = {}
    for machine in machines:
        by_path.setdefault(str(control_path(machine)), []).append(machine)
    starting = []
    for same in by_path.values():
        machine = same[0]
        lock = _lock(machine, deadline)
        if lock is None:
            failed.update({m.name: explain(m, None, "") for m in same})
            continue
        check = subprocess.Popen(
            check_argv(config.ssh_command, machine),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if _finish(check, deadline) == 0:
            os.close(lock)
            continue
        # The master lives on in the background with the stderr it was given: a file, not a pipe.
        errors = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen(
                master_argv(config.ssh_command, machine, timeout=config.timeout),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=errors,
                env=quiet_env(),
                start_new_session=True,
            )
        except OSError as exc:
            errors.close()
            os.close(lock)
            why = f"cannot run {config.ssh_command[0]}: {exc.strerror or exc}"
            failed.update({m.name: f"{m.name}: {why}" for m in same})
            continue
        starting.append((same, proc, errors, lock))
    for same, proc, errors, lock in starting:
        status = _finish(proc, deadline)
        os.close(lock)
        if status != 0:
            errors.seek(0)
            text = errors.read(65536).decode("utf-8", "replace")
            failed.update({m.name: explain(m, status, text) for m in same})
        errors.close()
    return failed


def _lock(machine: Machine, deadline: float) -> int | None:
    while True:
        fd = try_master_lock(machine)
        if fd is not None or time.monotonic() >= deadline:
            return fd
        time.sleep(0.02)


def _run(
    config: MachineConfig, machines: list[Machine], argv_for: Any, *, agents: bool, attention: bool = False
) -> list[Listing]:
    started = time.monotonic()
    deadline = started + config.timeout
    results = [Listing(machine) for machine in machines]
    failed = start_masters(config, machines, deadline)
    selector = selectors.DefaultSelector()
    running: dict[int, tuple[Listing, subprocess.Popen[bytes], RowReader, bytearray, bytearray]] = {}
    for listing in results:
        if listing.machine.name in failed:
            listing.error = failed[listing.machine.name]
            listing.seconds = time.monotonic() - started
            continue
        try:
            proc = subprocess.Popen(
                argv_for(listing.machine),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=quiet_env(),
                start_new_session=True,  # no terminal: ssh cannot open /dev/tty to ask anything
            )
        except OSError as exc:
            listing.error = f"{listing.machine.name}: cannot run {config.ssh_command[0]}: {exc.strerror or exc}"
            continue
        reader = RowReader(listing.machine.name, agents=agents, attention=attention)
        assert proc.stdout is not None and proc.stderr is not None
        state = (listing, proc, reader, bytearray(), bytearray())
        for stream in (proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)
            selector.register(stream, selectors.EVENT_READ, state)
            running[stream.fileno()] = state
    while selector.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for key, _ in selector.select(timeout=left):
            listing, proc, reader, out, err = key.data
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                selector.unregister(key.fileobj)
                continue
            if proc.stdout is not None and key.fd == proc.stdout.fileno():
                out += chunk
                *lines, rest = out.split(b"\n")
                out[:] = rest
                for line in lines:
                    reader.feed(line)
            elif len(err) < 65536:
                err += chunk
    for fd in list(selector.get_map()):
        selector.unregister(fd)
    selector.close()
    done: set[int] = set()
    for listing, proc, reader, out, err in running.values():
        if id(listing) in done:
            continue
        done.add(id(listing))
        if out:
            reader.feed(bytes(out))
        status = _finish(proc, deadline)
        listing.seconds = time.monotonic() - started
        listing.version = reader.version_number()
        listing.rows = reader.take()
        listing.bad = reader.bad
        stderr = err.decode("utf-8", "replace")
        if status and too_old(stderr) and listing.version is None:
            listing.version = version_of(config, listing.machine, deadline)
        listing.error = ending_error(listing, reader, status, stderr)
    return results


def ending_error(listing: Listing, reader: RowReader, status: int | None, stderr: str) -> str | None:
    """What to say of a listing that ended with `status` (None: it ran out of time), or None when it
    went well. `listing.version` is already the other dsh's, asked apart when it was too old to list."""
    machine = listing.machine
    if status is None:
        return explain(machine, None, stderr)
    if reader.too_big:
        return f"{machine.name} sent more than 64 MB; the rest was not read"
    if status != 0:
        return skew_message(listing, stderr) or explain(machine, status, stderr)
    if reader.version is not None and listing.version is None:
        return f"{machine.name}: `{machine.dsh} --version` did not print dsh's version"
    return None


def version_of(config: MachineConfig, machine: Machine, deadline: float) -> str | None:
    """`dsh --version` there (for a dsh too old to list): its version number, or None."""
    try:
        done = subprocess.run(
            version_argv(config, machine),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=quiet_env(),
            timeout=max(1.0, deadline - time.monotonic()),
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    reader = RowReader(machine.name)
    reader.feed(done.stdout.split(b"\n", 1)[0])
    return reader.version_number()


def _finish(proc: subprocess.Popen[bytes], deadline: float) -> int | None:
    """The exit status, or None after killing an ssh still running at the deadline."""
    try:
        return proc.wait(timeout=max(0.0, deadline - time.monotonic()) + 0.05)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    finally:
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def skew_message(listing: Listing, stderr: str) -> str | None:
    """When the listing failed on a dsh of another version: say which to upgrade."""
    theirs = listing.version
    if theirs is None or theirs == __version__:
        return None
    if "unrecognized arguments" in stderr or "invalid choice" in stderr or "usage:" in stderr:
        which = "there" if _older(theirs, __version__) else "here"
        return (
            f"{listing.machine.name} runs dsh {theirs}, this is dsh {__version__}: "
            f"it cannot list for this one; upgrade dsh {which}"
        )
    return None


def _older(a: str, b: str) -> bool:
    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(p) if p.isdigit() else 0 for p in v.split("."))

    return parts(a) < parts(b)
