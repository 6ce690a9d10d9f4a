"""Pane and tab ids: their allowed shape, and the next free one for a prefix."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeGuard

from dsh.layout.errors import LayoutError
from dsh.store.ids import ID_PATTERN

# Same shape as a session id: ids name files on disk (history/<pane-id>.tail), so never a path.


def is_valid_id(value: object) -> TypeGuard[str]:
    """True when `value` is a string shaped like a pane or tab id."""
    return isinstance(value, str) and ID_PATTERN.fullmatch(value) is not None


def check_id(value: object, what: str = "pane id") -> str:
    """Return `value` if it is a valid id, else raise LayoutError naming `what`."""
    if not is_valid_id(value):
        shown = repr(value)[:40]
        raise LayoutError(f"invalid {what} {shown}: expected letters, digits, '_' or '-' (at most 64)")
    return value


def next_id(prefix: str, existing: Iterable[str]) -> str:
    """The id `prefix<N>` with N one more than the highest N already used with that prefix (from 1).

    Never reusing a lower number keeps a closed pane's files from being mistaken for a new pane's,
    as long as the caller passes every id it has handed out.
    """
    highest = 0
    for name in existing:
        if name.startswith(prefix):
            digits = name[len(prefix) :]
            if digits.isdigit() and digits.isascii():
                highest = max(highest, int(digits))
    return check_id(f"{prefix}{highest + 1}", "id prefix")
