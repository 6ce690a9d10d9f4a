"""Make untrusted text (titles, inputs, paths from disk or a child) safe to show on a terminal."""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls: any of these could start or steer an escape sequence.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

_NAMED = {"\x1b": "^[", "\t": " ", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x20:
        return "^" + chr(code + 0x40)
    return f"\\x{code:02x}"


def sanitize(text: str, max_len: int | None = None) -> str:
    """Show control characters escaped (ESC as ^[, others as ^X or \\xNN), never interpreted.

    With `max_len`, the result is capped to that many characters, ending in an ellipsis when cut.
    """
    if not isinstance(text, str):
        text = str(text)
    clean = _CONTROL.sub(_escape, text)
    if max_len is not None and len(clean) > max_len:
        clean = clean[: max(0, max_len - 1)] + "…"
    return clean
