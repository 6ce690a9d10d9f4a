"""The picker's listing of other machines on the asyncio loop, over a real sshd: rows stream in, a slow
machine ends at its time limit and one that is down at once, neither holding up the others."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

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
