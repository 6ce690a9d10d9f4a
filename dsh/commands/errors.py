"""Errors a slash command reports to the user as one message line."""

from __future__ import annotations


def one_line(text: str) -> str:
    """Fold `text` onto one line: the message line under the prompt has room for nothing else."""
    return " ".join(text.split())


class CommandError(Exception):
    """A command could not run; str() of it is the one line to show the user."""


class UsageError(CommandError):
    """Raised by a handler whose arguments are wrong; the registry adds the command's usage."""
