"""The ssh command lines dsh runs: a batch one per listing, through one ControlMaster per machine, and
the foreground one that attaches there; and what a failed ssh means, said as what to do."""

from __future__ import annotations

import os
import shlex
import zlib
from pathlib import Path

from dsh.machines.config import Machine

# ssh makes its master's socket as ControlPath plus a 17-character temporary suffix before renaming it,
# and a socket's path holds 107 bytes.
_CONTROL_PATH_MAX = 107 - 17
CONTROL_PERSIST = "300"  # seconds a master outlives its last listing: a second listing needs no handshake


def control_path(machine: Machine) -> Path:
    """The ControlMaster socket for `machine`: in the run directory, or a short private folder in the
    system temp folder when that path is too long for a socket."""
    from dsh.rundir import run_dir, short_dir_for

    tag = f"ssh-{zlib.crc32(machine.ssh.encode('utf-8', 'surrogateescape')):08x}"
    folder = run_dir()
    path = folder / tag
    if len(os.fsencode(str(path))) <= _CONTROL_PATH_MAX:
        return path
    return short_dir_for(folder) / tag


def try_master_lock(machine: Machine) -> int | None:
    """An fd holding the lock on starting `machine`'s master (None: another process holds it now):
    two masters started at once on one socket would leave the second as a plain connection for good."""
    import fcntl

    socket = control_path(machine)
    path = socket.with_name(socket.name + ".lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def remote_command(machine: Machine, words: list[str]) -> str:
    """The command line for the other machine's shell: its dsh command (a wrapper may come with its own
    words) and `words`, each quoted."""
    return " ".join([machine.dsh, *(shlex.quote(word) for word in words)])


def batch_argv(ssh_command: list[str], machine: Machine, words: list[str], *, timeout: float) -> list[str]:
    """ssh for a background listing: never a prompt (BatchMode), no terminal, through the machine's
    master when it runs (a direct connection otherwise)."""
    return [
        *ssh_command,
        "-T",
        *_batch_options(timeout),
        *mux_options(machine),
        machine.ssh,
        remote_command(machine, words),
    ]


def attach_argv(
    ssh_command: list[str], machine: Machine, words: list[str], *, before: list[str] | None = None
) -> list[str]:
    """ssh in the foreground with a terminal: its own prompts (a password, a host key) work. `before`:
    a dsh command run there first, whose failure does not stop the attach (focusing a pane)."""
    command = remote_command(machine, words)
    if before:
        command = f"{remote_command(machine, before)}; {command}"
    return [*ssh_command, "-t", *mux_options(machine), machine.ssh, command]


def check_argv(ssh_command: list[str], machine: Machine) -> list[str]:
    """Whether the machine's master is running (exit 0) — a local question, no connection made."""
    return [*ssh_command, "-O", "check", "-o", f"ControlPath={control_path(machine)}", machine.ssh]


def master_argv(ssh_command: list[str], machine: Machine, *, timeout: float) -> list[str]:
    """Start the machine's master in the background once it has logged in (`-f -N -M`): it serves the
    listings after it for CONTROL_PERSIST seconds. Started apart from any listing, so that it holds
    none of a listing's pipes open while it lives."""
    return [
        *ssh_command,
        "-f",
        "-N",
        "-M",
        *_batch_options(timeout),
        "-o",
        f"ControlPath={control_path(machine)}",
        "-o",
        f"ControlPersist={CONTROL_PERSIST}",
        machine.ssh,
    ]


def _batch_options(timeout: float) -> list[str]:
    return ["-o", "BatchMode=yes", "-o", f"ConnectTimeout={max(1, int(timeout))}"]


def mux_options(machine: Machine) -> list[str]:
    # ControlMaster=no: use the master when its socket is there, never become one (a listing's ssh
    # turned master would keep the listing's pipes, and an attach's the terminal).
    return ["-o", "ControlMaster=no", "-o", f"ControlPath={control_path(machine)}"]


def explain(machine: Machine, status: int | None, stderr: str) -> str:
    """One line saying why ssh to `machine` failed and what to do (`status` None: it timed out)."""
    name = machine.name
    text = stderr.lower()
    if status is None:
        return f"{name} did not answer in time (ssh {machine.ssh}); is it up? [machines] timeout_seconds sets the wait"
    if "host key verification failed" in text or "no matching host key" in text:
        return f"{name}: its host key is not known; run `ssh {machine.ssh}` once to check and accept it"
    if "permission denied" in text or "too many authentication failures" in text:
        return (
            f"{name}: ssh {machine.ssh} wants a password or a key it was not given; listings never ask"
            " (BatchMode): add your key there (ssh-copy-id) or load it into ssh-agent"
        )
    if "could not resolve" in text or "name or service not known" in text:
        return f"{name}: no such host {machine.ssh}; check [machines.{name}] ssh or ~/.ssh/config"
    if "connection refused" in text or "timed out" in text or "no route" in text or "unreachable" in text:
        return f"{name} does not answer on ssh ({machine.ssh}): is it up, and sshd running?"
    if status == 127 or "command not found" in text or "no such file" in text:
        return f'{name} has no dsh at `{machine.dsh}`: install dsh there, or set [machines.{name}] dsh = "/path/to/dsh"'
    last = next((line for line in reversed(stderr.strip().splitlines()) if line.strip()), "")
    return f"{name}: ssh {machine.ssh} failed (exit {status})" + (f": {last[:200]}" if last else "")
