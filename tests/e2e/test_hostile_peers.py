"""Another user's process planted at a host's or the spawner's socket is never talked to (issue 28)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.rundir import socket_path
from tests.e2e.conftest import Launch
from tests.hostile import assert_clean, run_dsh

pytestmark = pytest.mark.skipif(os.getuid() != 0, reason="planting another uid's listener needs root (CI is root)")

OTHER_UID = 65534


class Planted:
    """A listener bound at `path` by this user, listening and accepting as another uid (as one who
    swapped a socket in would be): it counts the connections it got and the bytes sent to it."""

    def __init__(self, path: Path) -> None:
        self._read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the child
            try:
                os.close(self._read)
                sock = socket.socket(socket.AF_UNIX)
                sock.bind(str(path))
                os.setgroups([])
                os.setgid(OTHER_UID)
                os.setuid(OTHER_UID)
                sock.listen(8)
                os.write(write, b"L")
                while True:
                    conn, _ = sock.accept()
                    os.write(write, b"A")
                    conn.settimeout(2.0)
                    try:
                        while chunk := conn.recv(65536):
                            os.write(write, b"B" * min(len(chunk), 64))
                    except OSError:
                        pass
                    conn.close()
            finally:
                os._exit(0)
        os.close(write)
        assert os.read(self._read, 1) == b"L"
        os.set_blocking(self._read, False)
        self.seen = b""

    def events(self) -> bytes:
        try:
            self.seen += os.read(self._read, 65536)
        except BlockingIOError:
            pass
        return self.seen

    def close(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self._read)


@pytest.fixture
def plant() -> Iterator:  # type: ignore[type-arg]
    planted: list[Planted] = []

    def make(path: Path) -> Planted:
        planted.append(Planted(path))
        return planted[-1]

    yield make
    for one in planted:
        one.close()


def test_attach_and_stop_refuse_a_host_of_another_uid_naming_the_path(
    plant, launch: Launch, dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    sid = "20261201T000000Z-abcdef"
    path = socket_path(sid)
    fake = plant(path)
    d = launch("attach", sid, cwd=tmp_path, env=dsh_env, rows=24, cols=100)
    assert d.wait_exit() != 0
    screen = d.flowed()
    assert f"refused {path}" in screen and f"uid {OTHER_UID}" in screen, screen
    stopped = run_dsh(dsh_cmd, dsh_env, "stop", sid, cwd=tmp_path)
    assert stopped.returncode != 0 and f"refused {path}" in stopped.stderr, stopped.stderr
    assert_clean(stopped)
    listed = run_dsh(dsh_cmd, dsh_env, "attach", cwd=tmp_path)  # the scan of live hosts passes it over
    assert sid not in listed.stdout + listed.stderr
    assert_clean(listed)
    events = fake.events()
    assert b"A" in events and b"B" not in events, events  # reached, and told nothing (no hello, no key)


def _spawner_path_of(dsh_cmd: list[str], env: dict[str, str]) -> Path:
    """The spawner socket the installed dsh uses (its interpreter is part of the name)."""
    script = Path(dsh_cmd[0])
    python = script.read_text().splitlines()[0][2:].strip() if script.name == "dsh" else dsh_cmd[0]
    code = (
        "from dsh.host.spec import install_id; from dsh.rundir import spawner_socket_path as p; print(p(install_id()))"
    )
    out = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=30)
    return Path(out.stdout.strip())


def test_a_spawner_of_another_uid_gets_no_environment_and_the_session_starts_directly(
    plant, launch: Launch, dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    fake = plant(_spawner_path_of(dsh_cmd, dsh_env))
    env = dict(dsh_env, DSH_TEST_SECRET="token-that-must-stay-home")
    d = launch(cwd=tmp_path, env=env, rows=24, cols=100)
    d.wait_for("PROMPT", timeout=30)
    deadline = time.monotonic() + 5
    while b"A" not in fake.events() and time.monotonic() < deadline:
        time.sleep(0.05)
    events = fake.events()
    assert b"A" in events and b"B" not in events, events
