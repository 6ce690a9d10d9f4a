"""The one way the `dsh` command writes text to the user's terminal: every part escaped by sanitize()."""

from __future__ import annotations

import sys
from typing import TextIO

from dsh.text import sanitize


def say(*parts: object, to: TextIO | None = None, sep: str = " ") -> None:
    """Write `parts` as one line (to stderr unless `to` says otherwise). Each part may hold text from
    disk or a child (a cwd, a title, a config value): its controls, bidi and format characters and
    bytes that were not UTF-8 are shown escaped, never interpreted. `sep` is dsh's own (a tab)."""
    stream = sys.stderr if to is None else to
    stream.write(sep.join(sanitize(str(part)) for part in parts) + "\n")


def fail(message: str, code: int = 1, more: tuple[str, ...] = ()) -> int:
    """Say `dsh: message` on stderr, then each of `more` on a line of its own (a command to copy, say),
    and return the exit status `code`."""
    say(f"dsh: {message}")
    for line in more:
        say(line)
    return code
