"""A control connection in the host: one request frame in, one reply frame out, then close.

The request comes after the hello (intent {kind: "control"}), already checked by the server for the
peer's uid and the protocol version. Everything is bounded: the frame's size, the time to send it,
the reply. A verb that fails says why in one line with its exit status (dsh.host.verbs), and a bug in
one answers `internal error` rather than taking the host down.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import struct
from typing import TYPE_CHECKING, Any

from dsh import protocol
from dsh.host.verbs import REFUSED, VerbError, run_verb

if TYPE_CHECKING:
    from dsh.host.server import HostServer

logger = logging.getLogger(__name__)

# Time a control client has to send its request (after the hello).
REQUEST_TIMEOUT = 5.0
# Control connections served at once; more wait for a turn (each holds little, but a burst of waits
# must not grow without end).
CONCURRENT = 256
_HEADER = struct.Struct(">cI")


async def serve_control(server: HostServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Read the request, run its verb, write welcome and reply."""
    session = server.session
    try:
        request = await asyncio.wait_for(_read_request(reader), REQUEST_TIMEOUT)
    except VerbError as exc:
        reply: dict[str, Any] = _error(exc)
    except (TimeoutError, asyncio.IncompleteReadError, ConnectionError, OSError):
        reply = {"ok": False, "error": "no control request came", "status": REFUSED}
    else:
        async with _slots(server):
            ran = await _run_while_connected(server, request, reader)
            if ran is None:
                return  # the client left (a wait it gave up on): nobody to answer
            reply = ran
    writer.write(protocol.welcome(session=session.log.id, pid=os.getpid()))
    writer.write(_reply_frame(reply))
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer.drain(), 5.0)
    after = reply.pop("_after", None) if isinstance(reply, dict) else None
    if callable(after):
        after()  # what must wait until the reply is out (closing the last pane ends the host)


async def _run_while_connected(
    server: HostServer, request: dict[str, Any], reader: asyncio.StreamReader
) -> dict[str, Any] | None:
    """The verb's reply; None when the client hung up first (its verb is cancelled: a `dsh wait`
    killed by its script must not wait on in the host)."""
    verb = asyncio.ensure_future(run_verb(server, request))
    gone = asyncio.ensure_future(reader.read(1))
    try:
        await asyncio.wait([verb, gone], return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if not verb.done():
        left = gone.cancelled() or gone.exception() is not None or gone.result() == b""
        if left:
            verb.cancel()
            return None
        await asyncio.wait([verb])  # bytes after the request: not a hang-up
    try:
        return verb.result()
    except VerbError as exc:
        return _error(exc)
    except Exception as exc:  # a bug in a verb answers, and the host serves on
        logger.exception("control verb failed")
        return {"ok": False, "error": f"internal error: {exc.__class__.__name__}: {exc}", "status": 1}


def _error(exc: VerbError) -> dict[str, Any]:
    return {"ok": False, "error": str(exc), "status": exc.status}


def _reply_frame(reply: dict[str, Any]) -> bytes:
    body = {k: v for k, v in reply.items() if not k.startswith("_")}
    payload = json.dumps(body, ensure_ascii=True).encode("ascii")
    if len(payload) > protocol.CONTROL_MAX:
        payload = json.dumps(
            {"ok": False, "error": "the answer is too large (try fewer --lines)", "status": REFUSED}
        ).encode("ascii")
    return protocol.frame(protocol.CONTROL, payload)


async def _read_request(reader: asyncio.StreamReader) -> dict[str, Any]:
    header = await reader.readexactly(_HEADER.size)
    kind, length = _HEADER.unpack(header)
    if kind != protocol.CONTROL:
        raise VerbError("a control request is one control frame", REFUSED)
    if length > protocol.CONTROL_MAX:
        raise VerbError(f"request too large ({length} bytes; at most {protocol.CONTROL_MAX})", REFUSED)
    payload = await reader.readexactly(length)
    try:
        request = protocol.parse_json(payload)
    except protocol.ProtocolError as exc:
        raise VerbError(f"bad control request: {exc}", REFUSED) from exc
    return request


class _slots:
    """At most CONCURRENT verbs at once per host."""

    def __init__(self, server: HostServer) -> None:
        semaphore = server.control_slots
        if semaphore is None:
            semaphore = server.control_slots = asyncio.Semaphore(CONCURRENT)
        self.semaphore = semaphore

    async def __aenter__(self) -> None:
        await self.semaphore.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.semaphore.release()
