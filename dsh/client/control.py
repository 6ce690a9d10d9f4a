"""The control client: one request to a session's host and its reply, for `dsh send`, `dsh report` ….

It runs inside every agent turn (hooks call `dsh report`), so it imports next to nothing: `_socket`
and `_json` (the C halves of socket and json, without their enums and regexes), no pathlib, no
argparse, and nothing of dsh's beyond this module until a verb needs a listing of hosts. The wire
format is dsh.protocol's (a test holds these constants to it): the hello line with intent
{kind: "control"}, one CONTROL frame with the request; back, the welcome line and one CONTROL frame.
"""

from __future__ import annotations

import _json
import _socket
import os
import sys
import time

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import Any

MAGIC = "dsh"
PROTOCOL_VERSION = 5
CONTROL = b"c"
CONTROL_MAX = 4 << 20
SEND_MAX = 1 << 20
HELLO_MAX = 65536

# Exit statuses (dsh(1)): no such session or pane, refused, timed out.
NO_TARGET = 2
REFUSED = 3
TIMED_OUT = 124


class ControlError(Exception):
    """A request that failed: one line for the user and the exit status to leave with."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


class Unreachable(ControlError):
    """No host listens where we looked (`dsh report` then says nothing and exits 0)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, NO_TARGET)


# -- JSON without the json package -----------------------------------------------------------
_quote = _json.encode_basestring_ascii


def dumps(value: object) -> str:
    """JSON for what requests hold: dicts with str keys, lists, str, int, float, bool, None."""
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return repr(value) if value == value and value not in (float("inf"), float("-inf")) else "null"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_quote(str(k))}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    raise TypeError(f"cannot send {type(value).__name__}")


def _no_constant(name: str) -> None:
    raise ValueError(f"not JSON: {name}")


class _Decoding:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_no_constant)


# The C scanner reads these attributes, as it reads a JSONDecoder's (typeshed names its own type there).
_scan = _json.make_scanner(_Decoding())  # type: ignore[arg-type]


def loads(text: str) -> Any:
    """The JSON value `text` holds (and nothing after it but blanks); ValueError if it is not JSON."""
    try:
        value, end = _scan(text, len(text) - len(text.lstrip()))
    except Exception as exc:  # the C scanner's errors need the json package to be named
        raise ValueError("not JSON") from exc
    if text[end:].strip():
        raise ValueError("not JSON: more after the value")
    return value


# -- one request -------------------------------------------------------------------------------
def call(path: str, request: dict[str, Any], *, timeout: float | None = 10.0) -> dict[str, Any]:
    """Send `request` to the host at `path`; its reply (ok true), else ControlError (Unreachable when
    nobody listens there)."""
    body = dumps(request).encode("ascii")
    if len(body) > CONTROL_MAX:
        raise ControlError(f"request too large ({len(body)} bytes; at most {CONTROL_MAX})", REFUSED)
    hello = dumps(
        {"dsh": MAGIC, "protocol": PROTOCOL_VERSION, "rows": 1, "cols": 1, "env": {}, "pid": os.getpid(),
         "intent": {"kind": "control"}}
    )  # fmt: skip
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        _connect(sock, path)
        try:
            sock.sendall(hello.encode("ascii") + b"\n" + CONTROL + len(body).to_bytes(4, "big") + body)
            return _read_reply(sock, path)
        except TimeoutError as exc:
            raise ControlError(f"the host at {path} did not answer in time", TIMED_OUT) from exc
        except OSError as exc:
            raise ControlError(f"the host at {path} hung up: {exc.strerror or exc}", REFUSED) from exc
    finally:
        sock.close()


def _connect(sock: _socket.socket, path: str) -> None:
    """Connect through a descriptor of the socket's folder (dsh.rundir's way: no link followed, the
    folder checked on the descriptor, a name short however long the path), then check that the process
    listening is this user's before a byte is sent."""
    directory, _, name = path.rpartition("/")
    try:
        fd = os.open(directory or "/", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise Unreachable(f"no dsh host listens at {path}") from exc
    except OSError as exc:
        raise ControlError(f"cannot use socket folder {directory}: {exc.strerror or exc}", REFUSED) from exc
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise ControlError(f"socket folder {directory} is not yours alone: not used", REFUSED)
        address = f"/proc/self/fd/{fd}/{name}" if os.path.isdir("/proc/self/fd") else path
        waited = 0.0
        while True:
            try:
                sock.connect(address)
                break
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                raise Unreachable(f"no dsh host listens at {path}") from exc
            except BlockingIOError as exc:
                # The host's backlog is full (a burst of calls): it takes them as it can.
                limit = sock.gettimeout()
                if limit is not None and waited >= limit:
                    raise ControlError(f"the host at {path} is too busy to answer", TIMED_OUT) from exc
                time.sleep(0.01)
                waited += 0.01
            except OSError as exc:
                raise Unreachable(f"cannot reach the dsh host at {path}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    try:
        cred = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
        uid = int.from_bytes(cred[4:8], sys.byteorder, signed=True)
    except (OSError, AttributeError):
        uid = -1
    if uid != os.getuid():
        raise ControlError(f"refused {path}: the process listening there is uid {uid}, not you", REFUSED)


def _read_reply(sock: _socket.socket, path: str) -> dict[str, Any]:
    data = bytearray()
    while b"\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ControlError(f"the host at {path} closed the connection", REFUSED)
        data += chunk
        if len(data) > HELLO_MAX and b"\n" not in data:
            raise ControlError(f"the host at {path} did not answer like a dsh host", REFUSED)
    line, _, rest = bytes(data).partition(b"\n")
    welcome = _object(line, path)
    if not welcome.get("ok"):
        error = str(welcome.get("error") or "the host refused")
        if welcome.get("protocol") != PROTOCOL_VERSION:
            error = (
                f"this dsh speaks protocol {PROTOCOL_VERSION}, the session's host speaks "
                f"{str(welcome.get('protocol'))[:20]}: {error}"
            )
        raise ControlError(error, REFUSED)
    frame = bytearray(rest)
    while len(frame) < 5:
        chunk = sock.recv(65536)
        if not chunk:
            raise ControlError(f"the host at {path} closed the connection before answering", REFUSED)
        frame += chunk
    length = int.from_bytes(frame[1:5], "big")
    if frame[:1] != CONTROL or length > CONTROL_MAX:
        raise ControlError(f"the host at {path} did not answer like a dsh host", REFUSED)
    while len(frame) < 5 + length:
        chunk = sock.recv(max(65536, 5 + length - len(frame)))
        if not chunk:
            raise ControlError(f"the host at {path} closed the connection before answering", REFUSED)
        frame += chunk
    reply = _object(bytes(frame[5 : 5 + length]), path)
    if not reply.get("ok"):
        status = reply.get("status")
        raise ControlError(str(reply.get("error") or "refused"), status if isinstance(status, int) else 1)
    return reply


def _object(raw: bytes, path: str) -> dict[str, Any]:
    try:
        value = loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ControlError(f"the host at {path} did not answer like a dsh host", REFUSED) from exc
    if not isinstance(value, dict):
        raise ControlError(f"the host at {path} did not answer like a dsh host", REFUSED)
    return value
