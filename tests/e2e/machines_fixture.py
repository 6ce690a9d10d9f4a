"""Shared set-up of the tests of other machines: a real sshd on 127.0.0.1 standing for a machine
called `box` (a second DSH_HOME is its store), and the local config that names it."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import end_processes_of
from tests.sshd import Sshd, start_sshd


class Box:
    """The other machine: its sshd, its DSH_HOME, and the dsh command line that runs there."""

    def __init__(self, sshd: Sshd, home: Path) -> None:
        self.sshd = sshd
        self.home = home
        script = Path(sys.executable).parent / "dsh"
        # Over ssh the environment is the server's: the wrapper gives the remote dsh its own home, the
        # agents' stores of its own (never the real user's), and the fake agents first on its PATH.
        fakes = Path(__file__).resolve().parent.parent / "fakes" / "bin"
        self.codex_home = home / "codex"
        self.claude_home = home / "claude"
        self.dsh = (
            f"env DSH_HOME={shlex.quote(str(home))} CODEX_HOME={shlex.quote(str(self.codex_home))}"
            f" CLAUDE_CONFIG_DIR={shlex.quote(str(self.claude_home))} PATH={shlex.quote(str(fakes))}:$PATH"
            f" SHELL=/bin/sh {shlex.quote(str(script))}"
        )

    def make_sessions(self, cwd: Path, *titles: str) -> list[str]:
        """Closed sessions in the box's store, made as dsh makes them."""
        from tests.hostile import make_sessions

        saved = os.environ["DSH_HOME"]
        os.environ["DSH_HOME"] = str(self.home)
        try:
            return make_sessions(cwd, *titles)
        finally:
            os.environ["DSH_HOME"] = saved


def write_config(dsh_home: Path, box: Box, *, extra: str = "", box_extra: str = "") -> None:
    """The local config naming `box` (with `box_extra` lines in its table) and `gone`, then `extra`."""
    (dsh_home / "config.toml").write_text(
        f'[machines]\nssh_command = "{box.sshd.ssh_command}"\ntimeout_seconds = 10\n\n'
        f"[machines.box]\nssh = \"box\"\ndsh = '{box.dsh}'\n{box_extra}\n"
        f"[machines.gone]\nssh = \"gone\"\ndsh = '{box.dsh}'\n{extra}"
    )
    os.chmod(dsh_home / "config.toml", 0o600)


@pytest.fixture
def box(tmp_path: Path, dsh_home: Path) -> Iterator[Box]:
    sshd = start_sshd(tmp_path / "sshd")
    home = tmp_path / "box-home"
    home.mkdir(mode=0o700)
    made = Box(sshd, home)
    write_config(dsh_home, made)
    yield made
    stop_masters()
    end_processes_of(home)
    sshd.stop()


def stop_masters() -> None:
    """End the ControlMasters the test's listings left running (ssh renames its process, so the DSH_HOME
    in its environment no longer finds it)."""
    import subprocess

    from dsh.config import load_config
    from dsh.machines.config import read_machines
    from dsh.machines.ssh import control_path

    config = read_machines(load_config(env={}))
    for machine in config.machines:
        path = control_path(machine)
        if path.exists():
            subprocess.run(
                [*config.ssh_command, "-O", "exit", "-o", f"ControlPath={path}", machine.ssh],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=10,
            )
