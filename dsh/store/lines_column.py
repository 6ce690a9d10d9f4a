"""Lists of lines kept in one index column: newlines and backslashes escaped, split back cheaply."""

from __future__ import annotations

import re
from collections.abc import Sequence

_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def encode_lines(lines: Sequence[str]) -> str | None:
    """Preview lines as one text that splits back cheaply: `\\` and newlines escaped; None for no lines."""
    if not lines:
        return None
    return "\n".join(line.replace("\\", "\\\\").replace("\n", "\\n") for line in lines)


def decode_lines(text: str | None) -> tuple[str, ...]:
    """The lines `encode_lines` stored; the usual line with no backslash costs one split."""
    if text is None:
        return ()
    if "\\" not in text:
        return tuple(text.split("\n"))
    return tuple(_ESCAPED.sub(_unescape, line) for line in text.split("\n"))


def _unescape(found: re.Match[str]) -> str:
    return "\n" if found[1] == "n" else found[1]
