"""Slash commands: parsing, the registry, help and completion."""

from dsh.commands.completion import CompletionItem
from dsh.commands.errors import CommandError, UsageError
from dsh.commands.parse import ParsedLine, parse_line
from dsh.commands.registry import Command, Registry

__all__ = ["Command", "CommandError", "CompletionItem", "ParsedLine", "Registry", "UsageError", "parse_line"]
