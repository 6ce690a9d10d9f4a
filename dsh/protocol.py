"""The host/client wire protocol: a versioned JSON handshake line each way, then typed binary frames.

Bump PROTOCOL_VERSION whenever a message changes shape or meaning (tmux's rule for its protocol). The
handshake itself never changes shape: one JSON object per line, so a client and a host of different
versions can always read each other's first line and say so in words.

After the handshake each message is a frame: one byte of kind, four bytes of big-endian length, then
the payload. Client to host: INPUT (raw key bytes), SIZE (JSON rows/cols), CONTROL (JSON). Host to
client: OUTPUT (terminal bytes), CONTROL (JSON). Control messages are objects with a "type":

  host → client   exit    {code, message}      the client restores its terminal, prints message, exits
                  switch  {session, cwd[, argv]} /resume: attach that session (start its host), then
                                               answer `leave`, or `switch_failed` {error}; with
                                               session null and argv, start a new session in cwd
                                               whose first pane runs argv (an agent conversation)
  client → host   leave                        the client is moving to another session
                  switch_failed {error}        it could not; the host says so and carries on
                  redraw                       the client's terminal was reset (SIGCONT): draw it all
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import Any

PROTOCOL_VERSION = 2  # 2: switch may carry argv for a new session (an agent conversation)
MAGIC = "dsh"
# A handshake line longer than this is not a handshake.
HELLO_MAX = 65536
# A frame larger than this is a broken peer, not a message.
FRAME_MAX = 16 << 20

INPUT = b"i"
SIZE = b"s"
OUTPUT = b"o"
CONTROL = b"c"
KINDS = frozenset({INPUT, SIZE, OUTPUT, CONTROL})

_HEADER = struct.Struct(">cI")


class ProtocolError(Exception):
    """The peer sent something this protocol does not allow; the message says what."""


def encode_line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n"


def decode_line(line: bytes) -> dict[str, Any]:
    if len(line) > HELLO_MAX:
        raise ProtocolError("handshake line too long")
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"handshake is not JSON ({exc.__class__.__name__})") from exc
    if not isinstance(message, dict) or message.get("dsh") != MAGIC:
        raise ProtocolError("not a dsh handshake")
    return message


def hello(*, rows: int, cols: int, env: dict[str, str], pid: int, intent: dict[str, Any] | None = None) -> bytes:
    """The client's first line: who it is, its window, and the environment its panes should see."""
    return encode_line(
        {
            "dsh": MAGIC,
            "protocol": PROTOCOL_VERSION,
            "rows": rows,
            "cols": cols,
            "env": env,
            "pid": pid,
            "intent": intent or {},
        }
    )


def welcome(**fields: Any) -> bytes:
    return encode_line({"dsh": MAGIC, "protocol": PROTOCOL_VERSION, "ok": True, **fields})


def refusal(error: str) -> bytes:
    return encode_line({"dsh": MAGIC, "protocol": PROTOCOL_VERSION, "ok": False, "error": error})


def frame(kind: bytes, payload: bytes) -> bytes:
    if kind not in KINDS:
        raise ValueError(f"unknown frame kind {kind!r}")
    return _HEADER.pack(kind, len(payload)) + payload


def control(type_: str, **fields: Any) -> bytes:
    return frame(CONTROL, json.dumps({"type": type_, **fields}, ensure_ascii=True).encode("ascii"))


def size(rows: int, cols: int) -> bytes:
    return frame(SIZE, json.dumps({"rows": rows, "cols": cols}).encode("ascii"))


def parse_json(payload: bytes) -> dict[str, Any]:
    try:
        message = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError("control frame is not JSON") from exc
    if not isinstance(message, dict):
        raise ProtocolError("control frame is not an object")
    return message


def parse_size(payload: bytes) -> tuple[int, int]:
    message = parse_json(payload)
    rows, cols = message.get("rows"), message.get("cols")
    if not (isinstance(rows, int) and isinstance(cols, int)) or not (0 < rows < 10000 and 0 < cols < 10000):
        raise ProtocolError("bad window size")
    return rows, cols


class FrameReader:
    """Cut a byte stream into (kind, payload) frames, however the reads split it."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[tuple[bytes, bytes]]:
        buffer = self._buffer
        buffer += data
        offset = 0
        while len(buffer) - offset >= _HEADER.size:
            kind, length = _HEADER.unpack_from(buffer, offset)
            if kind not in KINDS:
                raise ProtocolError(f"unknown frame kind {kind!r}")
            if length > FRAME_MAX:
                raise ProtocolError("frame too large")
            end = offset + _HEADER.size + length
            if len(buffer) < end:
                break
            yield kind, bytes(buffer[offset + _HEADER.size : end])
            offset = end
        del buffer[:offset]


def version_mismatch(ours: int, theirs: object, *, we_are: str) -> str:
    """One line for a client and host of different protocol versions, with the way forward."""
    other = "host" if we_are == "client" else "client"
    return (
        f"this {we_are} speaks dsh protocol {ours}, the session's {other} speaks {theirs!s:.20}: "
        "`dsh stop ID` ends that session's host (its snapshot is kept) and `dsh --resume=ID` "
        "brings the session back under this dsh"
    )
