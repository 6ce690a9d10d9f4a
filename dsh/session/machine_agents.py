"""Every live session's agents, each host asked as `dsh attach` asks them (its query handshake), on
the event loop and all at once, so the view's keys never wait for it; and the agents of the
configured machines whose `attention_seconds` asks for it, over their ssh masters, off the loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from dsh import protocol
from dsh.attention.rows import AgentRow, rows_of
from dsh.attention.states import session_line
from dsh.machines.config import read_machines
from dsh.rundir import SOCKET_SUFFIX, RunDirError, connect_private, host_sockets

if TYPE_CHECKING:
    from dsh.machines.config import Machine
    from dsh.machines.listing import Listing
    from dsh.session.session import Session

logger = logging.getLogger("dsh.attention")
# While a client is attached, the other sessions are asked this often (their counts in the status line).
POLL_SECONDS = 2.0
QUERY_TIMEOUT = 1.0
# Another machine's agents kept at most (its answer is untrusted and could list any number).
MAX_REMOTE_ROWS = 256


class MachineAgents:
    """The other live sessions' agent rows as last asked (this machine's, then other machines'), and
    the asking."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.local_rows: list[AgentRow] = []
        self.asked_at = 0.0
        self._task: asyncio.Task[None] | None = None
        # Other machines: their rows, when each was last asked, why the last ask failed.
        self.remote_rows: dict[str, list[AgentRow]] = {}
        self.remote_asked: dict[str, float] = {}
        self.remote_errors: dict[str, str] = {}
        self._remote: asyncio.Future[None] | None = None

    @property
    def rows(self) -> list[AgentRow]:
        return self.local_rows + [row for rows in self.remote_rows.values() for row in rows]

    def states(self) -> list[str | None]:
        return [row.state for row in self.rows]

    def due(self, now: float) -> bool:
        local = self._task is None and now - self.asked_at >= POLL_SECONDS
        return local or bool(self._remote_due(now))

    def refresh(self) -> asyncio.Task[None] | None:
        """Ask every other host now (in the background), and the machines whose turn it is; the task
        asking the hosts, or the one already asking."""
        self._ask_machines(time.monotonic())
        if self._task is not None:
            return self._task
        self._task = self.session.loop.create_task(self._refresh())
        return self._task

    def _remote_due(self, now: float) -> list[Machine]:
        if self._remote is not None:
            return []

        machines = read_machines(self.session.config).machines
        return [
            m for m in machines if m.attention > 0 and now - self.remote_asked.get(m.name, -math.inf) >= m.attention
        ]

    def _ask_machines(self, now: float) -> None:
        due = self._remote_due(now)
        if not due:
            return
        from dsh.machines.listing import run_attention

        config = read_machines(self.session.config)
        for machine in due:
            self.remote_asked[machine.name] = now
        future = self.session.loop.run_in_executor(None, run_attention, config, due)
        self._remote = asyncio.ensure_future(self._machines_answered(future, config.machines))

    async def _machines_answered(self, asking: asyncio.Future[list[Listing]], configured: list[Machine]) -> None:
        try:
            listings = await asking
        except Exception:
            logger.exception("asking the other machines for their agents failed")
            listings = []
        finally:
            self._remote = None
        before = self.rows
        for listing in listings:
            name = listing.machine.name
            if listing.error:
                # A machine that does not answer shows none of its agents rather than stale ones.
                if self.remote_errors.get(name) != listing.error:
                    logger.warning("agents of machine %s: %s", name, listing.error)
                self.remote_errors[name] = listing.error
                self.remote_rows.pop(name, None)
                continue
            self.remote_errors.pop(name, None)
            rows = [row for item in listing.rows if (row := AgentRow.from_dict(item)) is not None]
            self.remote_rows[name] = rows[:MAX_REMOTE_ROWS]
        names = {m.name for m in configured if m.attention > 0}
        for gone in set(self.remote_rows) - names:  # no longer configured, or no longer asked
            del self.remote_rows[gone]
        if self.rows != before:
            self.session.observer.on_changed()

    async def _refresh(self) -> None:
        try:
            from dsh.attention.outside import agents_json

            # Claude Code's own background agents, asked meanwhile off the loop (at most once a minute).
            outside = self.session.loop.run_in_executor(None, agents_json, dict(self.session.env))
            rows = await ask_hosts(exclude=self.session.log.id)
            await outside
        except Exception:
            logger.exception("asking the other sessions for their agents failed")
            rows = self.local_rows
        finally:
            self._task = None
            self.asked_at = time.monotonic()
        if rows != self.local_rows:
            self.local_rows = rows
            self.session.observer.on_changed()


def live_agents_line(session: Session, session_id: str) -> str:
    """Another live session's agents' states as its host last said them ("1 needs you · 2 working"), for
    its row in /resume; this session's own, as they are."""

    if session_id == session.log.id:
        states = [pane.agent_state.state for pane in session.panes.values() if pane.agent_state is not None]
    else:
        states = [row.state for row in session.machine.local_rows if row.session == session_id]
    return session_line(states)


async def ask_hosts(exclude: str | None = None) -> list[AgentRow]:
    """Every listening host's agent rows (but `exclude`'s), asked in parallel."""
    try:
        paths = host_sockets()
    except (OSError, RunDirError):
        return []
    if exclude is not None:
        paths = [path for path in paths if path.name != f"{exclude}{SOCKET_SUFFIX}"]
    answers = await asyncio.gather(*(ask_host(str(path)) for path in paths))
    return [row for rows in answers for row in rows]


async def ask_host(path: str) -> list[AgentRow]:
    """One host's answer to a query handshake, as agent rows ([] for no host, or a bad answer)."""

    writer = None
    try:
        # Checked as every connector is (dsh.rundir): the folder on its descriptor, the listener's uid.
        sock = connect_private(Path(path), QUERY_TIMEOUT)
        if sock is None:
            return []
        sock.setblocking(False)
        async with asyncio.timeout(QUERY_TIMEOUT):
            reader, writer = await asyncio.open_unix_connection(sock=sock, limit=protocol.HELLO_MAX + 1)
            intent = {"kind": protocol.IntentKind.QUERY}
            writer.write(protocol.hello(rows=1, cols=1, env={}, pid=os.getpid(), intent=intent))
            line = await reader.readline()
        answer = protocol.decode_line(line.rstrip(b"\n"))
    except (OSError, TimeoutError, ValueError, protocol.ProtocolError, RunDirError):
        return []
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
    return rows_of(answer)


def focus_in_host(session_id: str, pane_id: str) -> bool:
    """Ask another session's host to focus one of its panes before this client attaches it (its
    control channel's `focus`); False when it could not be asked (the attach happens all the same)."""
    from dsh import hostquery

    return hostquery.focus_in_host(session_id, pane_id)
