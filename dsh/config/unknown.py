"""Keys and tables the config table does not know, each said once with the nearest name it does know."""

from __future__ import annotations

from dsh.config.key_value import join_key
from dsh.config.table import OPTIONS, SCHEMA, TABLES, Table

# What `look` says of a known name: look inside it (a table of the schema), or not (a value, a table of
# the user's own names, or a clash of table and value that the merge reports itself).
INSIDE = "inside"
DONE = "done"

_OPTION_PARTS = frozenset(option.parts for option in OPTIONS.values())
# Every table the schema names: each option's and table's enclosing tables, and the tables themselves.
_TABLE_PARTS = frozenset(
    tuple(item.key.split("."))[:end]
    for item in SCHEMA
    for end in range(1, item.key.count(".") + (2 if isinstance(item, Table) else 1))
)
_ENTRY_TABLES = tuple(table for table in TABLES.values() if table.entries is not None)


def look(parts: tuple[str, ...], is_table: bool) -> str:
    """INSIDE, DONE, or for a name the schema does not know, the line that says so (with the nearest
    known name, else what its table holds)."""
    if parts in _OPTION_PARTS:
        return DONE  # a table given for a value is the merge's to report
    if parts in _TABLE_PARTS:
        table = TABLES.get(".".join(parts))
        if table is not None and table.entries is None:
            return DONE  # [keys]: the keymap checks its own names
        return INSIDE if is_table else DONE
    for table in _ENTRY_TABLES:
        at = tuple(table.key.split("."))
        if parts[: len(at)] != at:
            continue
        entry = parts[: len(at) + 1]
        if len(parts) == len(at) + 1:
            # A machine's or a workspace's own name; a value there is for its reader to refuse.
            return INSIDE if is_table else DONE
        names = [option.key for option in table.entries or ()]
        if len(parts) == len(at) + 2 and parts[-1] in names and not is_table:
            return DONE
        return _unknown(parts, is_table, [join_key((*entry, name)) for name in names], f"a {table.key} entry has")
    if any(parts[:end] in _OPTION_PARTS for end in range(1, len(parts))):
        return DONE  # below a value: the merge reports the clash
    parent = parts[:-1]
    # Never its own enclosing table (`snapshot` for `snapshot.qqqq`): the name is inside it already.
    here = sorted({join_key(p) for p in _OPTION_PARTS | _TABLE_PARTS if p != parts[: len(p)]})
    inside = [join_key(p) for p in sorted(_OPTION_PARTS | _TABLE_PARTS, key=_order) if p[:-1] == parent]
    where = f"[{join_key(parent)}] has" if parent else "the tables are"
    return _unknown(parts, is_table, here, where, [name.rpartition(".")[2] for name in inside])


def unknown_name(parts: tuple[str, ...]) -> str | None:
    """For a whole dotted key (`-o KEY=VALUE`, `dsh config set`): the line saying which of its names the
    schema does not know, or None."""
    for end in range(1, len(parts) + 1):
        verdict = look(parts[:end], end < len(parts))
        if verdict == DONE:
            return None
        if verdict != INSIDE:
            return verdict
    return None


def _order(parts: tuple[str, ...]) -> int:
    for i, item in enumerate(SCHEMA):
        if tuple(item.key.split("."))[: len(parts)] == parts:
            return i
    return len(SCHEMA)


def _unknown(
    parts: tuple[str, ...], is_table: bool, known: list[str], where: str, listed: list[str] | None = None
) -> str:
    from difflib import get_close_matches  # only when something is wrong: not on every start

    key = join_key(parts)
    lowered = {name.lower(): name for name in known}
    near = get_close_matches(key.lower(), list(lowered), n=1, cutoff=0.6)
    if near:
        hint = f"did you mean {lowered[near[0]]}?"
    else:
        names = listed if listed is not None else [name.rpartition(".")[2] for name in known]
        hint = f"{where} {', '.join(names)}"
    return f"{key}: unknown {'table' if is_table else 'key'} ({hint}); ignored"
