"""/reload everywhere: every other live host of this user and DSH_HOME reads its config again (the
control verb `reload`), so that no two sessions run with different prefixes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path

from dsh import protocol
from dsh.home import dsh_home
from dsh.rundir import SOCKET_SUFFIX, RunDirError, connect_private, host_sockets

# Each host has this long to read its config and answer; they are asked all at once.
RELOAD_TIMEOUT = 2.0


async def reload_other_hosts(session_id: str) -> int:
    """Ask every listening host but `session_id`'s to reload its config; how many did."""
    try:
        paths = [path for path in host_sockets() if path.name != f"{session_id}{SOCKET_SUFFIX}"]
    except (OSError, RunDirError):
        return 0
    request = {"verb": "reload", "from": session_id, "home": str(dsh_home())}
    answers = await asyncio.gather(*(_ask(path, request) for path in paths))
    return sum(answers)


async def _ask(path: Path, request: dict[str, str]) -> bool:
    """One host's control request; True when it answered ok (False: gone, refused, too slow, older)."""
    writer: asyncio.StreamWriter | None = None
    try:
        # Checked as every connector is (dsh.rundir): the folder on its descriptor, the listener's uid.
        sock = connect_private(path, RELOAD_TIMEOUT)
        if sock is None:
            return False
        sock.setblocking(False)
        async with asyncio.timeout(RELOAD_TIMEOUT):
            reader, writer = await asyncio.open_unix_connection(sock=sock, limit=protocol.HELLO_MAX + 1)
            body = json.dumps(request).encode("ascii")
            writer.write(
                protocol.hello(rows=1, cols=1, env={}, pid=os.getpid(), intent={"kind": protocol.IntentKind.CONTROL})
                + protocol.frame(protocol.CONTROL, body)
            )
            if not protocol.decode_line((await reader.readline()).rstrip(b"\n")).get("ok"):
                return False
            header = await reader.readexactly(5)
            length = int.from_bytes(header[1:], "big")
            if header[:1] != protocol.CONTROL or length > protocol.CONTROL_MAX:
                return False
            reply = protocol.parse_json(await reader.readexactly(length))
    except (OSError, TimeoutError, ValueError, asyncio.IncompleteReadError, protocol.ProtocolError, RunDirError):
        return False
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
    return reply.get("ok") is True
