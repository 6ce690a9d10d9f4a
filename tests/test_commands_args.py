"""Declared arguments: each command's arity, flags and usage come from its declaration, checked alike."""

from __future__ import annotations

import asyncio

import pytest

from dsh.commands.args import Given, Takes
from dsh.commands.errors import CommandError, UsageError
from dsh.session.commands import build_registry

SPLIT = Takes(flags=("-h|-v", "-c DIR"), words="[CMD ...]", upper=None, command=True, needs={"-c": "a directory"})


def test_the_usage_comes_from_the_declaration() -> None:
    assert SPLIT.usage == "[-h|-v] [-c DIR] [CMD ...]"
    assert Takes(choices=("on", "off"), lower=1, upper=1).usage == "on|off"
    assert Takes().usage == ""
    assert hash(SPLIT) == hash(
        Takes(flags=("-h|-v", "-c DIR"), words="[CMD ...]", upper=None, command=True, needs={"-c": "a directory"})
    )


def test_flags_stop_at_a_command_and_the_last_of_a_group_counts() -> None:
    assert SPLIT.parse("split", ["-h", "-c", "/tmp", "-v", "vim", "-h"]) == Given(
        {"-c": "/tmp", "-v": ""}, ["vim", "-h"]
    )


def test_flags_may_come_anywhere_when_the_words_are_no_command() -> None:
    takes = Takes(flags=("-f",), words="[TAB]", upper=1)
    assert takes.parse("kill-tab", ["2", "-f"]) == Given({"-f": ""}, ["2"])


@pytest.mark.parametrize(
    ("takes", "args", "message"),
    [
        (SPLIT, ["-x"], "unknown option -x"),
        (SPLIT, ["-c"], "-c needs a directory"),
        (Takes(flags=("-t TAB",)), ["-t"], "-t needs TAB"),
        (Takes(flags=("-t TAB",)), ["3"], "unknown argument 3"),
        (Takes(), ["now"], "/close takes no arguments"),
        (Takes(upper=1), ["a", "b"], "too many arguments"),
        (Takes(choices=("left", "right"), lower=1, upper=1, hint="say which way"), ["up"], "say which way"),
        (Takes(choices=("left", "right"), lower=1, upper=1, hint="say which way"), [], "say which way"),
    ],
)
def test_what_a_declaration_refuses(takes: Takes, args: list[str], message: str) -> None:
    with pytest.raises(UsageError) as info:
        takes.parse("close", args)
    assert str(info.value) == message


def test_a_negative_number_is_a_word_where_no_flags_are_declared() -> None:
    assert Takes(words="DIR [CELLS]", lower=1, upper=2).parse("resize", ["left", "-3"]).words == ["left", "-3"]


def test_every_built_in_command_declares_what_it_takes() -> None:
    registry = build_registry()
    undeclared = [name for name in registry.names() if registry.get(name).takes is None]  # type: ignore[union-attr]
    assert undeclared == []


def test_every_command_refuses_too_many_arguments_with_its_usage() -> None:
    """Arity from the declaration: none of them ignores extra words (seven did), none runs its handler."""
    registry = build_registry()
    checked = 0
    for name in registry.names():
        command = registry.get(name)
        assert command is not None and command.takes is not None
        if command.takes.upper is None:
            continue
        words = [command.takes.choices[0] if command.takes.choices else "x"] * (command.takes.upper + 1)
        with pytest.raises(CommandError) as info:
            asyncio.run(registry.dispatch(None, name, words))  # no client: the handler must not run
        message = str(info.value)
        assert message.endswith(f" — usage: {command.usage_line}"), message
        assert message.startswith(f"/{name}") and not message.startswith(f"/{name}: /{name}"), message
        checked += 1
    assert checked >= 25
