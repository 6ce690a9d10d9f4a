"""A real OpenSSH server on 127.0.0.1 for the tests of other machines: its own host key, a user key made
for the test, its own port, and an ssh_config naming it, so `ssh -F CONFIG box` reaches it."""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


class Sshd:
    """A running sshd: `config` is an ssh_config with `Host box` pointing at it; `stop()` ends it."""

    def __init__(self, folder: Path, proc: subprocess.Popen[bytes], port: int, config: Path) -> None:
        self.folder = folder
        self.proc = proc
        self.port = port
        self.config = config

    @property
    def ssh_command(self) -> str:
        return f"ssh -F {self.config}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


def start_sshd(folder: Path, also_authorized: str = "") -> Sshd:
    """An sshd serving this user on a free port of 127.0.0.1, keys and config under `folder`;
    `also_authorized`, one more AuthorizedKeysFile (sshd's tokens: %h, %u), for another user, who cannot
    read `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    host_key, user_key = folder / "host_key", folder / "user_key"
    _keygen(host_key)
    _keygen(user_key)
    authorized = folder / "authorized_keys"
    authorized.write_text((folder / "user_key.pub").read_text())
    os.chmod(authorized, 0o600)
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # its privilege separation folder
    user = getpass.getuser()
    for _attempt in range(5):
        port = _free_port()
        server_config = folder / "sshd_config"
        server_config.write_text(
            f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nPidFile {folder / 'sshd.pid'}\n"
            f"AuthorizedKeysFile {authorized} {also_authorized}\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "UsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\nAllowTcpForwarding no\n"
            "X11Forwarding no\nPrintMotd no\nLogLevel ERROR\nMaxSessions 50\nMaxStartups 50\n"
        )
        known = folder / "known_hosts"
        known.write_text(f"[127.0.0.1]:{port} {(folder / 'host_key.pub').read_text()}")
        client_config = folder / "ssh_config"
        client_config.write_text(
            f"Host box\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {user_key}\n"
            f"  IdentitiesOnly yes\n  UserKnownHostsFile {known}\n  StrictHostKeyChecking yes\n"
            "  LogLevel ERROR\n"
            # A machine that is not there: a port nothing listens on.
            f"Host gone\n  HostName 127.0.0.1\n  Port {_free_port()}\n  User {user}\n  IdentityFile {user_key}\n"
            f"  UserKnownHostsFile {known}\n  LogLevel ERROR\n"
        )
        proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(server_config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return Sshd(folder, proc, port, client_config)
            except OSError:
                time.sleep(0.05)
        proc.kill()
        proc.wait()
    raise RuntimeError(f"sshd did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
