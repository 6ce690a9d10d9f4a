"""Tell a prompt line apart: empty, a slash command with shlex-split arguments, or a shell line."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Literal

from dsh.commands.errors import CommandError
from dsh.text import sanitize

_NAME_AND_REST = re.compile(r"(\S+)(.*)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """One prompt line: `kind` "empty"; "command" with `name` and `args`; or "shell" with `text` to send."""

    kind: Literal["empty", "command", "shell"]
    name: str = ""
    args: list[str] = field(default_factory=list)
    text: str = ""


def parse_line(line: str) -> ParsedLine:
    """Read a prompt line.

    `/name args…` is a command (arguments split like a shell would, with shlex); `//text` is the shell
    line `/text`; anything else is a shell line kept exactly as typed. An unbalanced quote raises
    CommandError.
    """
    if not line.strip():
        return ParsedLine("empty")
    if line.startswith("//"):
        return ParsedLine("shell", text=line[1:])
    if not line.startswith("/"):
        return ParsedLine("shell", text=line)
    match = _NAME_AND_REST.fullmatch(line[1:])
    if match is None or line[1].isspace():
        raise CommandError("type a command name right after / — /help lists commands")
    name, rest = match.group(1), match.group(2)
    try:
        args = shlex.split(rest)
    except ValueError as exc:
        reason = str(exc).lower()
        raise CommandError(f"/{sanitize(name, 40)}: {reason} — close the quote, or escape it with a backslash") from exc
    return ParsedLine("command", name=name, args=args, text=line[1:])
