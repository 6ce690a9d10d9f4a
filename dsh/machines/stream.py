"""Machines listed on the asyncio loop for the picker: rows handed over in batches as each machine's
answer streams in, a machine that fails or passes its time limit ended with one line, never a wait."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

from dsh.machines.config import Machine, MachineConfig
from dsh.machines.listing import Listing, ending_error, listing_argv, quiet_env, too_old, version_of
from dsh.machines.rows import MAX_LINE, RowReader
from dsh.machines.ssh import check_argv, explain, master_argv, try_master_lock

BATCH_SECONDS = 0.05  # rows are handed on at most this often, so 10,000 rows are not 10,000 redraws

RowsCallback = Callable[[Machine, list[dict[str, Any]]], None]
DoneCallback = Callable[[Listing], None]


class MachineStream:
    """Lists `machines` at once: `on_rows(machine, rows)` as rows arrive, `on_done(listing)` once per
    machine (its `error` set when it failed). `cancel()` ends every ssh still running."""

    def __init__(
        self,
        config: MachineConfig,
        machines: list[Machine],
        *,
        on_rows: RowsCallback,
        on_done: DoneCallback,
        agents: bool = False,
    ) -> None:
        self.config = config
        self.machines = machines
        self.on_rows = on_rows
        self.on_done = on_done
        self.agents = agents
        self._tasks: list[asyncio.Task[None]] = []
        self._procs: list[asyncio.subprocess.Process] = []
        self._transports: list[asyncio.SubprocessTransport] = []

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._one(machine)) for machine in self.machines]

    def cancel(self) -> None:
        for task in self._tasks:
            task.cancel()
        for proc in self._procs:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
        for transport in self._transports:
            if transport.get_returncode() is None:
                with contextlib.suppress(ProcessLookupError):
                    transport.kill()
            transport.close()

    async def _master(self, machine: Machine, deadline: float) -> str | None:
        """Make sure `machine`'s master runs; its one-line error when it cannot be started."""
        loop = asyncio.get_running_loop()
        while (lock := try_master_lock(machine)) is None:
            if loop.time() >= deadline:
                return explain(machine, None, "")
            await asyncio.sleep(0.02)
        try:
            check = await asyncio.create_subprocess_exec(
                *check_argv(self.config.ssh_command, machine),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            if await self._wait(check, deadline) == 0:
                return None
            with tempfile.TemporaryFile() as errors:
                # The master lives on in the background with the stderr it was given: a file, not a pipe.
                proc = await asyncio.create_subprocess_exec(
                    *master_argv(self.config.ssh_command, machine, timeout=self.config.timeout),
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=errors,
                    env=quiet_env(),
                    start_new_session=True,
                )
                self._procs.append(proc)
                status = await self._wait(proc, deadline)
                if status == 0:
                    return None
                errors.seek(0)
                return explain(machine, status, errors.read(65536).decode("utf-8", "replace"))
        except OSError as exc:
            return f"{machine.name}: cannot run {self.config.ssh_command[0]}: {exc.strerror or exc}"
        finally:
            os.close(lock)

    async def _wait(self, proc: asyncio.subprocess.Process, deadline: float) -> int | None:
        try:
            return await asyncio.wait_for(proc.wait(), max(0.0, deadline - asyncio.get_running_loop().time()))
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            return None

    async def _one(self, machine: Machine) -> None:
        listing = Listing(machine)
        started = time.monotonic()
        deadline = asyncio.get_running_loop().time() + self.config.timeout
        failed = await self._master(machine, deadline)
        if failed is not None:
            listing.error = failed
            listing.seconds = time.monotonic() - started
            self.on_done(listing)
            return
        loop = asyncio.get_running_loop()
        protocol = _ListingProtocol(machine, RowReader(machine.name, agents=self.agents), self.on_rows)
        try:
            transport, _ = await loop.subprocess_exec(
                lambda: protocol,
                *listing_argv(self.config, machine, agents=self.agents),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=quiet_env(),
                start_new_session=True,
            )
        except OSError as exc:
            listing.error = f"{machine.name}: cannot run {self.config.ssh_command[0]}: {exc.strerror or exc}"
            self.on_done(listing)
            return
        self._transports.append(transport)
        try:
            await asyncio.wait_for(asyncio.shield(protocol.ended), max(0.0, deadline - loop.time()))
        except TimeoutError:
            pass
        finally:
            # Closed, not waited for: the remote side may hold the pipes through the master for as long
            # as it runs.
            if transport.get_returncode() is None:
                with contextlib.suppress(ProcessLookupError):
                    transport.kill()
            transport.close()
        protocol.flush()
        reader = protocol.reader
        status = protocol.status
        listing.seconds = time.monotonic() - started
        listing.version = reader.version_number()
        listing.bad = reader.bad
        text = bytes(protocol.stderr).decode("utf-8", "replace")
        if status and too_old(text) and listing.version is None:
            later = time.monotonic() + 5
            listing.version = await loop.run_in_executor(None, version_of, self.config, machine, later)
        listing.error = ending_error(listing, reader, status, text)
        self.on_done(listing)


class _ListingProtocol(asyncio.SubprocessProtocol):
    """One machine's listing ssh: lines of stdout to its RowReader, rows handed on in batches; `ended`
    resolves once the process has exited and its output is in."""

    def __init__(self, machine: Machine, reader: RowReader, on_rows: RowsCallback) -> None:
        self.machine = machine
        self.reader = reader
        self.on_rows = on_rows
        self.stderr = bytearray()
        self.status: int | None = None
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._partial = bytearray()
        self._last = time.monotonic()
        self._shown = False
        self._transport: asyncio.SubprocessTransport | None = None
        self._exited = False
        self._stdout_open = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]  # a SubprocessTransport, as subprocess_exec makes

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 2:
            if len(self.stderr) < 65536:
                self.stderr += data[: 65536 - len(self.stderr)]
            return
        self._partial += data
        if b"\n" not in data:
            if len(self._partial) > MAX_LINE:
                self.reader.bad += 1  # a line past the bound: left out, and the stream read on
                self._partial.clear()
            return
        *lines, rest = self._partial.split(b"\n")
        self._partial = bytearray(rest)
        for line in lines:
            self.reader.feed(line)
        if self.reader.too_big and self._transport is not None:
            with contextlib.suppress(ProcessLookupError):
                self._transport.kill()
        now = time.monotonic()
        # The first rows are shown the moment they come (the picker is waiting on them); later ones in
        # batches.
        if not self._shown or now - self._last >= BATCH_SECONDS:
            self._last = now
            self.flush()

    def flush(self) -> None:
        rows = self.reader.take()
        if rows:
            self._shown = True
            self.on_rows(self.machine, rows)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self._stdout_open = False
            if self._partial:
                self.reader.feed(bytes(self._partial))
                self._partial.clear()
            self._maybe_end()

    def process_exited(self) -> None:
        if self._transport is not None:
            self.status = self._transport.get_returncode()
        self._exited = True
        self._maybe_end()
        # Output still held open after the exit (by a process the remote command left behind) is not
        # waited for long.
        asyncio.get_running_loop().call_later(1.0, self._end)

    def _maybe_end(self) -> None:
        if self._exited and not self._stdout_open:
            self._end()

    def _end(self) -> None:
        if not self.ended.done():
            self.ended.set_result(None)
