"""The user's shell history files, read only: bash, zsh (plain and extended) and fish formats."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

# A history file bigger than this is read from its end only: the newest lines are the useful ones.
READ_MAX = 4 << 20
_ZSH_EXTENDED = re.compile(r"^: \d+:\d+;(.*)$", re.DOTALL)
_FISH_CMD = re.compile(r"^- cmd: (.*)$")


def history_file(shell: str, env: Mapping[str, str]) -> tuple[str, Path] | None:
    """(format, path) of `shell`'s history file as the user's environment names it, if it exists."""
    name = os.path.basename(shell or "")
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if name == "bash":
        candidates = [("bash", Path(env["HISTFILE"]) if env.get("HISTFILE") else home / ".bash_history")]
    elif name == "zsh":
        candidates = [
            ("zsh", Path(env["HISTFILE"]) if env.get("HISTFILE") else home / ".zsh_history"),
            ("zsh", home / ".histfile"),
        ]
    elif name == "fish":
        data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
        candidates = [("fish", data / "fish" / "fish_history")]
    else:
        return None
    for kind, path in candidates:
        if path.is_file():
            return kind, path
    return None


def read_history(kind: str, path: Path, limit: int = READ_MAX) -> list[str]:
    """The commands of a shell history file, oldest first; what cannot be read is an empty list."""
    try:
        with open(path, "rb", opener=_nonblocking) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                handle.seek(size - limit)
                handle.readline()  # the first line is cut in the middle
            data = handle.read(limit)
    except OSError:
        return []
    text = data.decode("utf-8", "surrogateescape")
    if kind == "bash":
        return parse_bash(text)
    if kind == "zsh":
        return parse_zsh(_unmetafy(data).decode("utf-8", "surrogateescape") if b"\x83" in data else text)
    if kind == "fish":
        return parse_fish(text)
    return []


def parse_bash(text: str) -> list[str]:
    """One command a line; `#<digits>` lines are HISTTIMEFORMAT time stamps, not commands."""
    return [line for line in text.split("\n") if line.strip() and not (line.startswith("#") and line[1:].isdigit())]


def parse_zsh(text: str) -> list[str]:
    """Plain lines, or `: <start>:<elapsed>;<command>` (EXTENDED_HISTORY); a line ending in a
    backslash continues the command on the next one."""
    out: list[str] = []
    pending: list[str] = []
    for line in text.split("\n"):
        pending.append(line[:-1] if line.endswith("\\") else line)
        if line.endswith("\\"):
            continue
        command = "\n".join(pending)
        pending = []
        match = _ZSH_EXTENDED.match(command)
        if match:
            command = match.group(1)
        if command.strip():
            out.append(command)
    return out


def parse_fish(text: str) -> list[str]:
    """`- cmd: <command>` entries (fish escapes a newline as \\n and a backslash as \\\\)."""
    out = []
    for line in text.split("\n"):
        match = _FISH_CMD.match(line)
        if match:
            out.append(match.group(1).replace("\\n", "\n").replace("\\\\", "\\"))
    return out


def _unmetafy(data: bytes) -> bytes:
    """zsh writes bytes 0x83..0xa2 and NUL as 0x83 followed by the byte xor 32."""
    out = bytearray()
    meta = False
    for byte in data:
        if meta:
            out.append(byte ^ 32)
            meta = False
        elif byte == 0x83:
            meta = True
        else:
            out.append(byte)
    return bytes(out)


def _nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NONBLOCK)
