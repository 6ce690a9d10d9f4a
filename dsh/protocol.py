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
                  remote  {argv}               Enter on another machine's row: the client answers
                                               `leave`, hands the terminal to argv (ssh there), and
                                               when it ends attaches this session again
                  pong                         the answer to `ping`
                  detach_keys {keys}           the keys that detach changed (/reload): the client
                                               reads these itself when the host stops answering
                                               (a client of 5 ignores it, keeping its welcome's)
  client → host   leave                        the client is moving to another session
                  switch_failed {error}        it could not; the host says so and carries on
                  redraw                       the client's terminal was reset (SIGCONT): draw it all
                  ping                         keys went unanswered a while: is the host there?

The types are ToClient's and ToHost's names; a message of any other type is refused (ProtocolError,
the frame passed over), never guessed at.

A control client (`dsh send`, `dsh list` … : dsh.client.control) says intent {kind: "control"} and,
right after its hello line, sends one CONTROL frame: the request {verb, …}. The host answers its welcome
line and one CONTROL frame: the reply {ok: true, …} or {ok: false, error, status}; then it closes. No
view is made and the attached client is not disturbed (dsh.host.control, dsh.host.verbs).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import Any, Final, Literal, TypeAlias, TypeVar

    # The names of each set below, as types: mypy refuses another string where one is wanted, and a
    # comparison with a string that is none of them.
    ToClientType: TypeAlias = Literal["exit", "switch", "remote", "pong", "detach_keys"]
    ToHostType: TypeAlias = Literal["leave", "switch_failed", "redraw", "ping"]
    IntentKindType: TypeAlias = Literal["attach", "query", "stop", "control"]
    AttachModeType: TypeAlias = Literal["share", "takeover", "readonly"]
    Kind = TypeVar("Kind", ToClientType, ToHostType)

# 2: switch may carry argv for a new session (an agent conversation). 3: the control intent (a host of
# 2 would have attached a control client as a view, taking the session from its terminal). 4: several
# clients on one session: an attach shares it unless its intent says `attach: takeover`, and `readonly`
# ignores the client's keys (a host of 3 would take the session over and let a read-only client type).
# 5: `remote` (a client of 4 would ignore it, and Enter on another machine's row would do nothing).
PROTOCOL_VERSION = 5
MAGIC = "dsh"
# A handshake line longer than this is not a handshake.
HELLO_MAX = 65536
# A frame larger than this is a broken peer, not a message.
FRAME_MAX = 16 << 20
# What a client may send in one frame: its reads of the terminal are 64 KB, and a size or a control
# message is a short JSON object (issue 28: every size bounded where it enters).
CLIENT_FRAME_MAX = {b"i": 1 << 20, b"s": 4096, b"c": 1 << 16}
# A window larger than this is drawn in its top-left corner (a 100000-column hello grew a host to 1.6 GB).
MAX_ROWS = 1000
MAX_COLS = 2000
# What a host says of a session in a query answer is cut to this (a title is one line of a listing).
TEXT_MAX = 500
# A control request or reply larger than this is refused (a `dsh send` takes at most SEND_MAX of text).
CONTROL_MAX = 4 << 20
SEND_MAX = 1 << 20

INPUT = b"i"
SIZE = b"s"
OUTPUT = b"o"
CONTROL = b"c"
KINDS = frozenset({INPUT, SIZE, OUTPUT, CONTROL})

_HEADER = struct.Struct(">cI")


# The names below are classes of constants, typed by the Literal aliases above, not enums: the client's
# imports took 3.0 M instructions more (of 117 M, cachegrind) with these and OutcomeKind as StrEnums.


class ToClient:
    """The `type` of a CONTROL message from the host to the client it draws for (the table above)."""

    EXIT: Final = "exit"
    SWITCH: Final = "switch"
    REMOTE: Final = "remote"
    PONG: Final = "pong"
    DETACH_KEYS: Final = "detach_keys"
    ALL: Final[tuple[ToClientType, ...]] = (EXIT, SWITCH, REMOTE, PONG, DETACH_KEYS)


class ToHost:
    """The `type` of a CONTROL message from an attached client to its host (the table above)."""

    LEAVE: Final = "leave"
    SWITCH_FAILED: Final = "switch_failed"
    REDRAW: Final = "redraw"
    PING: Final = "ping"
    ALL: Final[tuple[ToHostType, ...]] = (LEAVE, SWITCH_FAILED, REDRAW, PING)


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


def control(type_: ToClientType | ToHostType, **fields: Any) -> bytes:
    return frame(CONTROL, json.dumps({"type": type_, **fields}, ensure_ascii=True).encode("ascii"))


def parse_control(payload: bytes, kinds: tuple[Kind, ...]) -> tuple[Kind, dict[str, Any]]:
    """A CONTROL frame's type, as one of `kinds` (ToClient.ALL or ToHost.ALL; that very constant), and
    its whole message. ProtocolError when it is not a JSON object or its type is none of those."""
    message = parse_json(payload)
    type_ = message.get("type")
    for kind in kinds:
        if kind == type_:
            return kind, message
    raise ProtocolError(f"unknown control message type {repr(type_)[:40]}")


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
    return window_size(message.get("rows"), message.get("cols"))


def window_size(rows: object, cols: object) -> tuple[int, int]:
    """A client's window size as the host uses it: whole numbers of at least 1 (else ProtocolError),
    at most MAX_ROWS x MAX_COLS (a larger window is drawn in its corner)."""
    if type(rows) is not int or type(cols) is not int or rows < 1 or cols < 1:
        raise ProtocolError("bad window size")
    return min(rows, MAX_ROWS), min(cols, MAX_COLS)


def check_hello(message: dict[str, Any]) -> dict[str, Any]:
    """A client's hello with its fields checked (ProtocolError names the bad one); the window clamped."""
    rows, cols = window_size(message.get("rows", 24), message.get("cols", 80))
    env = message.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ProtocolError("the hello's env is not a map of strings")
    pid = message.get("pid")
    if pid is not None and (type(pid) is not int or pid < 0):
        raise ProtocolError("the hello's pid is not a process id")
    intent = message.get("intent", {})
    if intent is None:
        intent = {}
    if not isinstance(intent, dict):
        raise ProtocolError("the hello's intent is not an object")
    kind = intent.get("kind", IntentKind.ATTACH)
    if not isinstance(kind, str) or kind not in INTENTS:  # (a list is no key of a set: TypeError)
        # An unknown kind is refused: taken for an attach, it would take the session over.
        raise ProtocolError(f"unknown intent {str(kind)[:40]!r}")
    from_cwd = intent.get("from_cwd")
    if from_cwd is not None and not isinstance(from_cwd, str):
        raise ProtocolError("the hello's from_cwd is not text")
    mode = intent.get("attach", AttachMode.SHARE)
    if not isinstance(mode, str) or mode not in ATTACH_MODES:
        raise ProtocolError(f"unknown attach mode {str(mode)[:40]!r}")
    return {**message, "rows": rows, "cols": cols, "env": env, "pid": pid, "intent": intent}


class IntentKind:
    """What a client's hello asks of a host (its intent's `kind`); a new kind is added here (an old host
    refuses it cleanly). dsh.client.control writes `control` itself: its path imports no protocol."""

    ATTACH: Final = "attach"
    QUERY: Final = "query"
    STOP: Final = "stop"
    CONTROL: Final = "control"
    ALL: Final[tuple[IntentKindType, ...]] = (ATTACH, QUERY, STOP, CONTROL)


class AttachMode:
    """How an attach joins the clients already there (its intent's `attach`)."""

    SHARE: Final = "share"  # beside them
    TAKEOVER: Final = "takeover"  # in their place (`dsh attach -d`)
    READONLY: Final = "readonly"  # beside them, without typing (`dsh attach -r`)
    ALL: Final[tuple[AttachModeType, ...]] = (SHARE, TAKEOVER, READONLY)


INTENTS = frozenset(IntentKind.ALL)
ATTACH_MODES = frozenset(AttachMode.ALL)


def intent_kind(intent: dict[str, Any]) -> IntentKindType:
    """The kind of a checked hello's intent (attach when it names none)."""
    kind = intent.get("kind", IntentKind.ATTACH)
    return next(k for k in IntentKind.ALL if k == kind)


def attach_mode(intent: dict[str, Any]) -> AttachModeType:
    """The attach mode of a checked hello's intent (share when it names none)."""
    mode = intent.get("attach", AttachMode.SHARE)
    return next(m for m in AttachMode.ALL if m == mode)


class FrameReader:
    """Cut a byte stream into (kind, payload) frames, however the reads split it; `limits` bounds each
    kind's length (a host reads its clients with CLIENT_FRAME_MAX)."""

    def __init__(self, limits: dict[bytes, int] | None = None) -> None:
        self._buffer = bytearray()
        self._limits = limits or {}

    def feed(self, data: bytes) -> Iterator[tuple[bytes, bytes]]:
        buffer = self._buffer
        buffer += data
        offset = 0
        while len(buffer) - offset >= _HEADER.size:
            kind, length = _HEADER.unpack_from(buffer, offset)
            if kind not in KINDS:
                raise ProtocolError(f"unknown frame kind {kind!r}")
            if length > self._limits.get(kind, FRAME_MAX):
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
