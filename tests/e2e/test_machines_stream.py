"""The picker's listing of other machines on the asyncio loop, over a real sshd: rows stream in, a slow
machine ends at its time limit and one that is down at once, neither holding up the others."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dsh import __version__
from dsh.config import load_config
from dsh.machines.config import Machine, read_machines
from dsh.machines.listing import Listing
from dsh.machines.stream import MachineStream
from tests.e2e.machines_fixture import Box, write_config

pytestmark = pytest.mark.slow


def stream(timeout: float) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Listing], dict[str, float]]:
    config = read_machines(load_config(env={}))
    config.timeout = timeout
    rows: dict[str, list[dict[str, Any]]] = {}
    done: dict[str, Listing] = {}
    when: dict[str, float] = {}

    async def main() -> None:
        start = time.monotonic()

        def on_rows(machine: Machine, batch: list[dict[str, Any]]) -> None:
            rows.setdefault(machine.name, []).extend(batch)

        def on_done(listing: Listing) -> None:
            done[listing.machine.name] = listing
            when[listing.machine.name] = time.monotonic() - start

        listing = MachineStream(config, config.machines, on_rows=on_rows, on_done=on_done)
        listing.start()
        while len(done) < len(config.machines):
            await asyncio.sleep(0.02)

    asyncio.run(main())
    return rows, done, when


def test_rows_stream_in_and_a_slow_machine_ends_at_its_limit(box: Box, dsh_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "there"
    work.mkdir()
    ids = box.make_sessions(work, *(f"job {n}" for n in range(30)))
    slow = tmp_path / "slow-dsh"
    slow.write_text("#!/bin/sh\necho 'dsh 0.2.0'\nexec sleep 60\n")  # its version, then nothing
    slow.chmod(0o755)
    write_config(dsh_home, box, extra=f"\n[machines.slow]\nssh = \"box\"\ndsh = '{slow}'\n")
    rows, done, when = stream(timeout=3.0)
    assert sorted(row["id"] for row in rows["box"]) == sorted(ids)
    assert done["box"].error is None and done["box"].version
    assert "gone does not answer" in (done["gone"].error or "")
    assert "slow did not answer in time" in (done["slow"].error or "")
    # The machine that is down and the one that answers are not held up by the slow one.
    assert when["box"] < when["slow"] and when["gone"] < when["slow"]


def test_the_first_rows_are_shown_as_soon_as_they_come(box: Box, dsh_home: Path, tmp_path: Path) -> None:
    # A dsh there that sends its version, then its newest row a moment later, and the rest only once
    # this side has shown that row (the flag file): rows held for a batch would wait for the time limit.
    work = tmp_path / "there"
    work.mkdir()
    (newest,) = box.make_sessions(work, "the newest")
    env = {**os.environ, "DSH_HOME": str(box.home)}
    listed = subprocess.run(
        [sys.executable, "-m", "dsh", "sessions", "--all", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    row = tmp_path / "row.json"
    row.write_text(listed[1] + "\n")
    flag = tmp_path / "shown"
    halting = tmp_path / "halting-dsh"
    halting.write_text(
        f"#!/bin/sh\necho 'dsh {__version__}'\nsleep 0.01\necho '['\ncat {row}\n"
        f"while [ ! -e {flag} ]; do sleep 0.05; done\necho ']'\n"
    )
    halting.chmod(0o755)
    write_config(dsh_home, box, extra=f"\n[machines.halting]\nssh = \"box\"\ndsh = '{halting}'\n")
    config = read_machines(load_config(env={}))
    config.timeout = 5.0
    config.machines = [m for m in config.machines if m.name == "halting"]
    rows: list[str] = []
    done: list[Listing] = []

    async def main() -> None:
        def on_rows(machine: Machine, batch: list[dict[str, Any]]) -> None:
            rows.extend(row["id"] for row in batch)
            flag.touch()

        listing = MachineStream(config, config.machines, on_rows=on_rows, on_done=done.append)
        listing.start()
        while not done:
            await asyncio.sleep(0.02)

    asyncio.run(main())
    assert rows == [newest]
    assert done[0].error is None  # it ended by itself, once its row had been shown
