"""The client's terminal's own colours, read from its answers to OSC 10/11/4 queries in the key stream.

The view asks once per attach (QUERIES, written after the first frame: nothing waits for an answer, and
a terminal that never answers costs nothing). The answers come back mixed with the keys; `ColourReplies`
takes them out before the keys are parsed (prompt_toolkit would read one as Alt+] and text), for a
while after the questions only, and keeps what they say for the panes' own colour queries.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

__all__ = ["QUERIES", "ColourReplies"]

# The default foreground, background and the 16 ANSI colours, each asked with ST.
QUERIES = "\x1b]10;?\x1b\\\x1b]11;?\x1b\\" + "".join(f"\x1b]4;{i};?\x1b\\" for i in range(16))
LISTEN_SECONDS = 3.0  # answers are taken out of the keys this long after the questions
_REPLY = re.compile(
    rb"\x1b\](10|11|4;(\d{1,2}));rgb:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})(?:\x07|\x1b\\)"
)
# The start of an answer cut at the end of a read: held for the next one.
_PARTIAL = re.compile(rb"\x1b\](?:[0-9;]{0,5}(?:r(?:g(?:b(?::[0-9a-fA-F/]{0,14}(?:\x1b)?)?)?)?)?)?\Z")


def _hex8(part: bytes) -> str:
    value = int(part, 16)
    return f"{round(value * 255 / (16 ** len(part) - 1)):02x}"


class ColourReplies:
    """Takes the answers out of a client's key bytes; `colours` holds what they said: "fg", "bg", and
    0-15, each rrggbb."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._until = 0.0
        self._held = b""
        self.colours: dict[str | int, str] = {}

    def asked(self) -> None:
        """The questions were written to the client's terminal just now."""
        self._until = self._clock() + LISTEN_SECONDS

    def take(self, data: bytes) -> tuple[bytes, bool]:
        """`data` without the answers in it, and whether any came."""
        if self._held:
            data, self._held = self._held + data, b""
        if self._clock() > self._until or b"\x1b]" not in data:
            return data, False
        found = False

        def keep(match: re.Match[bytes]) -> bytes:
            nonlocal found
            found = True
            which, index = match.group(1), match.group(2)
            colour = "".join(_hex8(match.group(i)) for i in (3, 4, 5))
            key: str | int = "fg" if which == b"10" else "bg" if which == b"11" else int(index)
            if not isinstance(key, int) or key < 16:
                self.colours[key] = colour
            return b""

        data = _REPLY.sub(keep, data)
        partial = _PARTIAL.search(data)
        if partial is not None and len(data) - partial.start() < 40:
            self._held = data[partial.start() :]  # the next read (or `flush`, soon) tells
            data = data[: partial.start()]
        return data, found

    def holding(self) -> bool:
        return bool(self._held)

    def flush(self) -> bytes:
        """What is held (an answer's start no next read completed): keys after all."""
        held, self._held = self._held, b""
        return held
