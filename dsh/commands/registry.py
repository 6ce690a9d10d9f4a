"""The slash-command registry: one decorator per command; help and completion read the same table."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

from dsh.commands.args import Given, Takes
from dsh.commands.completion import CompletionItem, quote_if_needed, split_words
from dsh.commands.errors import CommandError, UsageError, one_line
from dsh.commands.parse import parse_line
from dsh.text import sanitize
from dsh.values import Value

__all__ = [
    "ArgSpec",
    "Command",
    "CommandError",
    "Commands",
    "Declared",
    "Given",
    "Handler",
    "Registry",
    "Takes",
    "UsageError",
]

# `handler(ctx, args)`: args is a `Given` for a command that declares what it takes, else the words.
Handler: TypeAlias = Callable[[Any, Any], Any]
# Static choices for the first argument, or a callable (ctx, finished args) -> candidates for the word
# under the cursor; a candidate is a value or a (value, meta) pair.
ArgSpec: TypeAlias = Sequence[str] | Callable[[Any, list[str]], Iterable[str | tuple[str, str]]] | None

_NAME = re.compile(r"[a-z][a-z0-9_-]*")


class Command(Value, fields=("name", "handler", "usage", "aliases", "args", "doc", "takes"), frozen=True):
    """One registered command: its handler, usage, aliases, argument completion and docstring; with
    `takes`, its declared arguments, from which the usage comes and which are checked before the
    handler runs (it is then given them read, as a `Given`)."""

    __slots__ = ("aliases", "args", "doc", "handler", "name", "takes", "usage")
    name: str
    handler: Handler
    usage: str
    aliases: tuple[str, ...]
    args: ArgSpec
    doc: str
    takes: Takes | None

    def __init__(
        self,
        name: str,
        handler: Handler,
        usage: str = "",
        aliases: tuple[str, ...] = (),
        args: ArgSpec = None,
        doc: str = "",
        takes: Takes | None = None,
    ) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "name", name)
        setattr_(self, "handler", handler)
        setattr_(self, "usage", takes.usage if takes is not None else usage)
        setattr_(self, "aliases", aliases)
        setattr_(self, "args", args if args is not None or takes is None or not takes.choices else takes.choices)
        setattr_(self, "doc", doc)
        setattr_(self, "takes", takes)

    @property
    def summary(self) -> str:
        """The first line of the docstring."""
        return self.doc.strip().splitlines()[0].strip() if self.doc.strip() else ""

    @property
    def usage_line(self) -> str:
        """`/name usage`, as help and error messages show it."""
        return f"/{self.name} {self.usage}".rstrip()


class Declared(Value, fields=("name", "handler", "takes", "aliases", "args"), frozen=True):
    """A command declared at module level (`Commands.command`), for a registry to add."""

    __slots__ = ("aliases", "args", "handler", "name", "takes")
    name: str
    handler: Handler
    takes: Takes
    aliases: tuple[str, ...]
    args: ArgSpec

    def __init__(self, name: str, handler: Handler, takes: Takes, aliases: tuple[str, ...], args: ArgSpec) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "name", name)
        setattr_(self, "handler", handler)
        setattr_(self, "takes", takes)
        setattr_(self, "aliases", aliases)
        setattr_(self, "args", args)


class Commands:
    """A module's commands, declared at module level (`@COMMANDS.command(...)` on each handler) for a
    registry to add (`Registry.add_declared`), in the order they are defined."""

    def __init__(self) -> None:
        self.declared: list[Declared] = []

    def command(
        self, name: str, takes: Takes, *, aliases: Sequence[str] = (), args: ArgSpec = None
    ) -> Callable[[Handler], Handler]:
        """Declare the decorated handler as `/name`, taking what `takes` declares."""

        def register(handler: Handler) -> Handler:
            self.declared.append(Declared(name, handler, takes, tuple(aliases), args))
            return handler

        return register


def _key(name: str) -> str:
    return name.removeprefix("/").lower()


class Registry:
    """Commands by name and alias. Handlers are `handler(ctx, args)`, plain or `async def`."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._lookup: dict[str, str] = {}

    def command(
        self, name: str, *, usage: str = "", aliases: Sequence[str] = (), args: ArgSpec = None
    ) -> Callable[[Handler], Handler]:
        """Register the decorated function as `/name`; its docstring is the help."""

        def register(handler: Handler) -> Handler:
            self.add(name, handler, usage=usage, aliases=aliases, args=args)
            return handler

        return register

    def add(
        self,
        name: str,
        handler: Handler,
        *,
        usage: str = "",
        aliases: Sequence[str] = (),
        args: ArgSpec = None,
        takes: Takes | None = None,
    ) -> Command:
        """Register `handler` as `/name` (the non-decorator form)."""
        names = [name, *aliases]
        for each in names:
            if not _NAME.fullmatch(each):
                raise ValueError(f"command name {each!r} must be lower-case letters, digits, '-' or '_'")
            if each in self._lookup:
                raise ValueError(f"command name {each!r} is already registered")
        command = Command(name, handler, usage, tuple(aliases), args, inspect.getdoc(handler) or "", takes)
        self._commands[name] = command
        for each in names:
            self._lookup[each] = name
        return command

    def add_declared(self, commands: Commands) -> None:
        """Register each command a module declared."""
        for each in commands.declared:
            self.add(each.name, each.handler, aliases=each.aliases, args=each.args, takes=each.takes)

    def get(self, name: str) -> Command | None:
        """The command called `name` (or with that alias; a leading / and case are ignored)."""
        primary = self._lookup.get(_key(name))
        return self._commands[primary] if primary else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def names(self, *, aliases: bool = False) -> list[str]:
        """Command names, sorted; with `aliases`, every name a command answers to."""
        return sorted(self._lookup if aliases else self._commands)

    async def dispatch(self, ctx: Any, name: str, args: Sequence[str]) -> Any:
        """Run a command and return what its handler returns, awaiting it if needed.

        Every failure comes out as a one-line CommandError: an unknown name, a UsageError (with the
        command's usage appended), or an unexpected exception from the handler (chained as the cause,
        so the app can log the traceback while the user sees one line).
        """
        command = self.get(name)
        if command is None:
            raise CommandError(self.unknown_message(name))
        try:
            given: list[str] | Given = list(args) if command.takes is None else command.takes.parse(command.name, args)
            result = command.handler(ctx, given)
            if inspect.isawaitable(result):
                result = await result
        except UsageError as exc:
            detail = one_line(str(exc))
            if detail and not detail.startswith(f"/{command.name} "):
                detail = f"/{command.name}: {detail}"  # said once: "/close takes no arguments" names it
            prefix = f"{detail} — " if detail else ""
            raise CommandError(f"{prefix}usage: {command.usage_line}") from exc
        except CommandError as exc:
            message = one_line(str(exc))
            if message == str(exc):
                raise
            raise CommandError(message) from exc
        except Exception as exc:
            raise CommandError(one_line(f"/{command.name} failed: {type(exc).__name__}: {exc}")) from exc
        return result

    def unknown_message(self, name: str) -> str:
        """`unknown command /x`, with the nearest command names when some are near (as git says)."""
        import difflib

        near = difflib.get_close_matches(name.lower(), self.names(aliases=True), n=3, cutoff=0.6)
        hint = f" — did you mean {', '.join('/' + n for n in near)}?" if near else " — /help lists commands"
        return f"unknown command /{sanitize(name, 40)}{hint}"

    async def run_line(self, ctx: Any, line: str) -> Any:
        """Parse and run one command line, with or without its leading / (key bindings store them bare)."""
        text = line if line.startswith("/") else "/" + line.lstrip()
        parsed = parse_line(text)
        if parsed.kind != "command":
            raise CommandError(f"not a command line: {sanitize(line, 40)!r}")
        return await self.dispatch(ctx, parsed.name, parsed.args)

    # --- help --------------------------------------------------------------------------------------

    def help_text(self, name: str | None = None) -> str:
        """Every command with its usage and summary, or one command's usage, aliases and full help."""
        if name is None:
            commands = [self._commands[n] for n in self.names()]
            width = min(28, max((len(c.usage_line) for c in commands), default=0))
            return "\n".join(f"{c.usage_line:<{width}}  {c.summary}".rstrip() for c in commands)
        command = self.get(name)
        if command is None:
            raise CommandError(self.unknown_message(name))
        lines = [f"usage: {command.usage_line}"]
        if command.aliases:
            lines.append("aliases: " + ", ".join("/" + a for a in command.aliases))
        if command.doc:
            lines += ["", command.doc]
        return "\n".join(lines)

    # --- completion --------------------------------------------------------------------------------

    def complete(self, text_before_cursor: str, ctx: Any = None) -> list[CompletionItem]:
        """Completions for a prompt line: command names after `/`, then argument values from the table."""
        text = text_before_cursor
        if not text.startswith("/") or text.startswith("//"):
            return []
        body = text[1:]
        if not body or not any(ch.isspace() for ch in body):
            return self._complete_names(body)
        name = body.split(maxsplit=1)[0]
        rest = body[len(name) :]
        command = self.get(name)
        if command is None or command.args is None:
            return []
        words = split_words(rest)
        candidates: Iterable[str | tuple[str, str]]
        if callable(command.args):
            try:
                candidates = list(command.args(ctx, list(words.done)))
            except Exception:  # a completer must never break typing
                return []
        else:
            candidates = command.args if not words.done else []
        typed = words.current.casefold()
        items = []
        for candidate in candidates:
            value, meta = (candidate, "") if isinstance(candidate, str) else candidate
            if value.casefold().startswith(typed):
                items.append(CompletionItem(quote_if_needed(value), -len(words.current_raw), value, meta))
        return items

    def _complete_names(self, typed: str) -> list[CompletionItem]:
        prefix = typed.lower()
        items = [
            CompletionItem(c.name, -len(typed), "/" + c.name, c.summary)
            for c in (self._commands[n] for n in self.names())
            if c.name.startswith(prefix)
        ]
        shown = {item.text for item in items}
        for alias in self.names(aliases=True):
            primary = self._lookup[alias]
            if alias != primary and alias.startswith(prefix) and primary not in shown:
                items.append(CompletionItem(alias, -len(typed), "/" + alias, f"= /{primary}"))
        return items
