"""Session ids: generated sortable by creation time, validated on every read path (an id is never a path)."""

from __future__ import annotations

import re
import time

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import TypeGuard

# The one shape of every id dsh names a file or a socket with: sessions, and panes and tabs
# (dsh.layout.ids), wherever one is read back (a snapshot, a handoff).
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
MAX_ID_LEN = 64


class InvalidSessionId(ValueError):
    """A session id that does not match `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`."""


def new_session_id() -> str:
    """A fresh id like `20261129T203000Z-3f9a1c`: UTC time first, so ids sort by creation time."""
    import secrets  # here, not at the top: the client validates ids on its start-up path, never makes one

    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)


def is_valid_session_id(s: object) -> TypeGuard[str]:
    return isinstance(s, str) and ID_PATTERN.fullmatch(s) is not None


def validate_session_id(s: object) -> str:
    """Return `s` if it is a valid session id, else raise InvalidSessionId saying what is wrong."""
    if is_valid_session_id(s):
        return s
    raise InvalidSessionId(_why_invalid(s))


def _why_invalid(s: object) -> str:
    if not isinstance(s, str):
        return f"session id must be text, not {type(s).__name__}"
    shown = repr(s) if len(s) <= 80 else repr(s[:77] + "...")
    if not s:
        return "session id is empty"
    if "/" in s or "\\" in s or ".." in s:
        return f"invalid session id {shown}: an id is a name, never a path"
    if len(s) > MAX_ID_LEN:
        return f"invalid session id {shown}: longer than {MAX_ID_LEN} characters"
    if not s[0].isascii() or not s[0].isalnum():
        return f"invalid session id {shown}: must start with a letter or digit"
    return f"invalid session id {shown}: only letters, digits, '_' and '-' are allowed"
