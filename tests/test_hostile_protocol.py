"""A fuzz of the handshake's fields and the frames against a live host: its attached client stays served."""

from __future__ import annotations

import asyncio
import json
import os
import random
from pathlib import Path

from dsh import protocol
from tests.test_host_server import (
    RawClient,
    plain_shell,  # noqa: F401  (the fixture: a plain sh in panes)
    serving,
)

# Values no field of a hello may take (each is refused; none is taken for a default).
BAD = {
    "rows": [None, 0, -3, "24", 24.0, True, [], {}],
    "cols": [None, 0, -1, "80", 1.5, False, [80]],
    "env": [None, "TERM=x", ["TERM"], {"TERM": 1}, {"A": None}, 7],
    "pid": ["me", -5, 1.0, [], {}],
    "intent": ["stop", 5, [], {"kind": "junk"}, {"kind": None}, {"kind": ["attach"]}, {"from_cwd": 3}],
    "protocol": [None, 0, protocol.PROTOCOL_VERSION + 1, str(protocol.PROTOCOL_VERSION), -1],
    "dsh": [None, "tmux", 0, "DSH"],
}


def _bad_hellos(rng: random.Random, count: int) -> list[bytes]:
    base = json.loads(protocol.hello(rows=24, cols=80, env={"TERM": "xterm"}, pid=os.getpid()))
    lines = [b"\n", b"garbage\n", b"[1,2,3]\n", b'{"dsh": "dsh"\n', b"\xff\xfe\n", b"{" * 5000 + b"\n"]
    lines.append(json.dumps({**base, "pad": "x" * (protocol.HELLO_MAX + 10)}).encode() + b"\n")
    while len(lines) < count:
        message = dict(base)
        for name in rng.sample(sorted(BAD), rng.randint(1, 3)):
            message[name] = rng.choice(BAD[name])
        lines.append(json.dumps(message).encode() + b"\n")
    return lines


def _junk_frames(rng: random.Random, count: int) -> list[bytes]:
    payloads = [
        b"",
        b"null",
        b"[]",
        b"\xff",
        b'{"type": "junk"}',
        b'{"type": "leave"}',
        b'{"type": "switch_failed", "error": 5}',
        b'{"rows": "a"}',
        b'{"rows": -1, "cols": 2}',
        b"{" * 3000,
    ]
    frames = []
    for _ in range(count):
        kind = rng.choice((protocol.SIZE, protocol.CONTROL))
        payload = rng.choice(payloads) if rng.random() < 0.7 else rng.randbytes(rng.randint(1, 200))
        frames.append(protocol.frame(kind, payload))
    return frames


def test_junk_handshakes_and_frames_never_take_or_break_the_attached_client(tmp_path: Path) -> None:
    rng = random.Random(28)

    async def body() -> None:
        session, server = await serving(tmp_path)
        sock = tmp_path / "s.sock"
        try:
            client, welcome = await RawClient.connect(sock)
            assert welcome["ok"]
            await client.until(lambda: b"PROMPT" in client.output, "the first frame")
            attached = server.current
            for round_ in range(4):
                for line in _bad_hellos(rng, 40):
                    reader, writer = await asyncio.open_unix_connection(str(sock), limit=1 << 20)
                    writer.write(line)
                    writer.write_eof()
                    answer = await asyncio.wait_for(reader.read(), 10)
                    writer.close()
                    first = answer.split(b"\n", 1)[0]
                    reply = json.loads(first) if first else {}
                    assert reply.get("ok") is not True, (line[:200], answer[:200])
                    assert server.current is attached and server.attaches == 1, line[:200]
                for data in _junk_frames(rng, 50):
                    client.send(data)
                # A window far too big is drawn in its corner, not allocated; then back to normal.
                client.send(protocol.size(10**9, 10**9))
                client.send(protocol.size(24, 80))
                mark = f"alive-{round_}".encode()
                client.send(protocol.frame(protocol.INPUT, b"echo " + mark + b"\r"))
                await client.until(lambda mark=mark: client.output.count(mark) >= 2, f"round {round_}'s echo")
                assert server.current is attached and (attached.rows, attached.cols) == (24, 80)
            assert not client.controls, client.controls  # never told to go
            client.writer.close()
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())
