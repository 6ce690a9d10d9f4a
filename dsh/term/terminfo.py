"""A terminal's compiled terminfo entry read by name, extended capabilities (Smulx, Setulc …) included."""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping
from pathlib import Path

__all__ = ["Terminfo", "find_entry", "parse_entry", "read_terminfo"]

_MAGIC_16 = 0o432  # numbers of two bytes
_MAGIC_32 = 0o1036  # numbers of four bytes (ncurses 6.1's extended format)
_MAX_SIZE = 65536  # a real entry is a few KiB; anything bigger is not one
_NUMBER_NAMES = {13: "colors"}  # the standard numbers asked for, by their place in the table
_DEFAULT_DIRS = ("/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo", "/usr/lib/terminfo")


class Terminfo:
    """The capabilities of one entry, by name: booleans present, numbers and strings with their values.
    Standard strings are not kept (only the extended ones are asked for, by name)."""

    def __init__(self, flags: frozenset[str], numbers: dict[str, int], strings: dict[str, bytes]) -> None:
        self.flags = flags
        self.numbers = numbers
        self.strings = strings

    def has(self, name: str) -> bool:
        return name in self.flags or name in self.numbers or name in self.strings


def _even(offset: int) -> int:
    return offset + (offset & 1)


def parse_entry(data: bytes) -> Terminfo:
    """Read a compiled entry (term(5)); ValueError or struct.error for anything else."""
    magic, names_size, bools, nums, strs, table_size = struct.unpack_from("<6h", data, 0)
    if magic not in (_MAGIC_16, _MAGIC_32) or min(names_size, bools, nums, strs, table_size) < 0:
        raise ValueError("not a compiled terminfo entry")
    width, fmt = (2, "<h") if magic == _MAGIC_16 else (4, "<i")
    pos = _even(12 + names_size + bools)
    numbers: dict[str, int] = {}
    for index, name in _NUMBER_NAMES.items():
        if index < nums:
            value = struct.unpack_from(fmt, data, pos + index * width)[0]
            if value >= 0:
                numbers[name] = value
    pos = _even(pos + nums * width + strs * 2 + table_size)
    flags: set[str] = set()
    strings: dict[str, bytes] = {}
    if pos + 10 <= len(data):  # the extended capabilities
        ext_bools, ext_nums, ext_strs, _items, ext_size = struct.unpack_from("<5h", data, pos)
        if min(ext_bools, ext_nums, ext_strs, ext_size) < 0:
            raise ValueError("bad extended header")
        pos += 10
        bool_values = data[pos : pos + ext_bools]
        pos = _even(pos + ext_bools)
        num_values = [struct.unpack_from(fmt, data, pos + i * width)[0] for i in range(ext_nums)]
        pos += ext_nums * width
        total = ext_bools + ext_nums + ext_strs
        offsets = struct.unpack_from(f"<{ext_strs + total}h", data, pos)
        table = data[pos + 2 * len(offsets) : pos + 2 * len(offsets) + ext_size]
        # The table holds the strings' values, then every extended name, each ending in a NUL: the
        # names are its last `total` pieces.
        pieces = table.split(b"\0")
        if pieces and pieces[-1] == b"":
            pieces.pop()
        if len(pieces) < total:
            raise ValueError("short extended names")
        names = [p.decode("ascii", "replace") for p in pieces[len(pieces) - total :]]
        flags = {name for name, value in zip(names[:ext_bools], bool_values, strict=False) if value == 1}
        for name, value in zip(names[ext_bools : ext_bools + ext_nums], num_values, strict=True):
            if value >= 0:
                numbers[name] = value
        for name, offset in zip(names[ext_bools + ext_nums :], offsets[:ext_strs], strict=True):
            if 0 <= offset < len(table):
                strings[name] = table[offset : table.index(b"\0", offset)]
    return Terminfo(frozenset(flags), numbers, strings)


def find_entry(term: str, env: Mapping[str, str]) -> Path | None:
    """Where ncurses would find `term`'s entry: $TERMINFO, ~/.terminfo, $TERMINFO_DIRS, then the
    system's folders (each as `x/xterm` or `78/xterm`)."""
    if not term or "/" in term or term.startswith("."):
        return None
    dirs: list[str] = []
    if env.get("TERMINFO"):
        dirs.append(env["TERMINFO"])
    if env.get("HOME"):
        dirs.append(os.path.join(env["HOME"], ".terminfo"))
    for part in env.get("TERMINFO_DIRS", "").split(":") if env.get("TERMINFO_DIRS") else ():
        dirs.extend(_DEFAULT_DIRS if part == "" else (part,))
    dirs.extend(_DEFAULT_DIRS)
    for folder in dirs:
        for sub in (term[0], f"{ord(term[0]):02x}"):
            path = Path(folder, sub, term)
            if path.is_file():
                return path
    return None


def read_terminfo(term: str, env: Mapping[str, str]) -> Terminfo | None:
    """`term`'s entry, or None when there is none or it cannot be read."""
    path = find_entry(term, env)
    if path is None:
        return None
    try:
        with path.open("rb") as f:
            return parse_entry(f.read(_MAX_SIZE))
    except (OSError, ValueError, IndexError, struct.error):
        return None
