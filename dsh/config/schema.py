"""One schema for config values: each key's type and bounds from the table, applied to a value given."""

from __future__ import annotations

from typing import Any

from dsh.config.key_value import coerce_like
from dsh.config.table import OPTIONS, Check

# A config nests tables in tables a few levels deep; far deeper is not a config (and would exhaust
# the stack of whatever walks it: the merge, `dsh config`'s printer).
MAX_DEPTH = 16


# The bounds of each key (dsh.config.table). A value outside is reported with its file (or variable, or
# flag) and key, and the value from the layers below is kept.
BOUNDS: dict[tuple[str, ...], Check] = {
    option.parts: option.check for option in OPTIONS.values() if option.check is not None
}


def fit_value(parts: tuple[str, ...], value: Any, default: Any) -> tuple[Any, str | None]:
    """`value` for the key `parts`, fitted to the type of its base `default` and checked against its
    bounds: (value, None), or (None, why not)."""
    fitted, why = coerce_like(value, default)
    if why is None:
        check = BOUNDS.get(parts)
        why = check(fitted) if check is not None else None
    return (None, why) if why is not None else (fitted, None)


def depth(doc: object) -> int:
    """How deep tables and arrays nest in a parsed config (walked without recursion)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(doc, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, level + 1)
        if level + 1 > MAX_DEPTH:
            break  # deep enough to refuse; no need to walk the rest
        stack.extend((child, level + 1) for child in children)
    return deepest
