"""parse_line: empty lines, shell lines kept as typed, //escapes, commands with shlex arguments."""

from __future__ import annotations

import pytest

from dsh.commands import CommandError, ParsedLine, parse_line


@pytest.mark.parametrize("line", ["", "   ", "\t"])
def test_empty(line: str) -> None:
    assert parse_line(line) == ParsedLine("empty")


@pytest.mark.parametrize("line", ["ls -la", "  echo 'x'  ", 'echo "unbalanced', " /not-a-command", "a/b"])
def test_shell_line_kept_exactly(line: str) -> None:
    parsed = parse_line(line)
    assert parsed.kind == "shell" and parsed.text == line


def test_double_slash_sends_single_slash_literally() -> None:
    assert parse_line("//usr/bin/env 'x") == ParsedLine("shell", text="/usr/bin/env 'x")
    assert parse_line("//") == ParsedLine("shell", text="/")


def test_command_with_quoted_args() -> None:
    parsed = parse_line("/split -h vim 'my file.txt' \"a b\" c\\ d")
    assert parsed.kind == "command"
    assert parsed.name == "split"
    assert parsed.args == ["-h", "vim", "my file.txt", "a b", "c d"]


def test_command_without_args_and_hash_is_not_a_comment() -> None:
    assert parse_line("/zoom") == ParsedLine("command", name="zoom", args=[], text="zoom")
    assert parse_line("/tab rename #1").args == ["rename", "#1"]


@pytest.mark.parametrize("line", ["/split -h 'oops", '/tab rename "x', "/new echo \\"])
def test_unbalanced_quote_is_a_clear_error(line: str) -> None:
    with pytest.raises(CommandError) as info:
        parse_line(line)
    message = str(info.value)
    assert message.startswith("/") and ("quotation" in message or "escaped" in message)
    assert "\n" not in message


@pytest.mark.parametrize("line", ["/", "/ help"])
def test_missing_command_name(line: str) -> None:
    with pytest.raises(CommandError, match="command name"):
        parse_line(line)
