"""Tell a prompt line apart: empty, a slash command with shlex-split arguments, or a shell line."""

from __future__ import annotations

import re
import shlex
from typing import Literal

from dsh.commands.errors import CommandError
from dsh.text import sanitize
from dsh.values import Value

_NAME_AND_REST = re.compile(r"(\S+)(.*)", re.DOTALL)


class ParsedLine(Value, fields=("kind", "name", "args", "text"), frozen=True):
    """One prompt line: `kind` "empty"; "command" with `name` and `args`; or "shell" with `text` to send."""

    __slots__ = ("args", "kind", "name", "text")
    kind: Literal["empty", "command", "shell"]
    name: str
    args: list[str]
    text: str

    def __init__(
        self,
        kind: Literal["empty", "command", "shell"],
        name: str = "",
        args: list[str] | None = None,
        text: str = "",
    ) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "kind", kind)
        setattr_(self, "name", name)
        setattr_(self, "args", [] if args is None else args)
        setattr_(self, "text", text)


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
