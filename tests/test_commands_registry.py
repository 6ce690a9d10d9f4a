"""The registry: dispatch (sync and async), usage errors, unknown commands, help, completion."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from dsh.commands import CommandError, CompletionItem, Registry, UsageError

DIRECTIONS = ["left", "right", "up", "down", "next", "prev"]


def make_registry() -> Registry:
    reg = Registry()

    @reg.command("focus", usage="left|right|up|down|next|prev", args=DIRECTIONS)
    def focus(ctx: list[Any], args: list[str]) -> str:
        """Move focus to another pane.

        Directions are geometric: the pane across the active pane's border.
        """
        if len(args) != 1 or args[0] not in DIRECTIONS:
            raise UsageError("expected one direction")
        ctx.append(("focus", args[0]))
        return args[0]

    @reg.command("split", usage="[-h|-v] [CMD...]", args=["-h", "-v"])
    async def split(ctx: list[Any], args: list[str]) -> list[str]:
        """Split the active pane."""
        await asyncio.sleep(0)
        ctx.append(("split", args))
        return args

    def tab_args(ctx: Any, done: list[str]) -> list[Any]:
        if not done:
            return ["next", "prev", ("rename", "rename the tab"), "select"]
        if done == ["select"]:
            return [str(i) for i in range(len(ctx or []) + 3)]
        return []

    @reg.command("tab", usage="next|prev|rename NAME|select N", args=tab_args)
    def tab(ctx: Any, args: list[str]) -> None:
        """Switch or rename tabs."""
        if not args:
            raise UsageError("")

    @reg.command("quit", aliases=["q", "exit"])
    def quit_(ctx: Any, args: list[str]) -> str:
        """Quit dsh, saving the session."""
        return "bye"

    @reg.command("broken")
    def broken(ctx: Any, args: list[str]) -> None:
        """Fail the way a bug would."""
        raise KeyError("pane\nid")

    @reg.command("sessions", args=lambda ctx, done: 1 / 0)
    def sessions(ctx: Any, args: list[str]) -> None:
        """List sessions."""

    return reg


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_dispatch_sync_and_async_handlers() -> None:
    reg = make_registry()
    ctx: list[Any] = []
    assert run(reg.dispatch(ctx, "focus", ["left"])) == "left"
    assert run(reg.dispatch(ctx, "split", ["-h", "vim"])) == ["-h", "vim"]
    assert ctx == [("focus", "left"), ("split", ["-h", "vim"])]


def test_aliases_case_and_slash_resolve() -> None:
    reg = make_registry()
    assert run(reg.dispatch(None, "q", [])) == "bye"
    assert run(reg.dispatch(None, "/EXIT", [])) == "bye"
    assert reg.get("exit") is reg.get("quit")
    assert "q" in reg and "nope" not in reg


def test_unknown_command() -> None:
    reg = make_registry()
    with pytest.raises(CommandError) as info:
        run(reg.dispatch(None, "x", []))
    assert str(info.value) == "unknown command /x — /help lists commands"  # nothing near /x


def test_unknown_command_name_is_sanitized() -> None:
    with pytest.raises(CommandError) as info:
        run(make_registry().dispatch(None, "a\x1b[2Jb", []))
    assert "\x1b" not in str(info.value)


def test_usage_error_appends_usage() -> None:
    reg = make_registry()
    with pytest.raises(CommandError) as info:
        run(reg.dispatch([], "focus", ["sideways"]))
    assert str(info.value) == "/focus: expected one direction — usage: /focus left|right|up|down|next|prev"
    with pytest.raises(CommandError) as info:
        run(reg.dispatch([], "tab", []))
    assert str(info.value) == "usage: /tab next|prev|rename NAME|select N"


def test_a_usage_error_that_names_its_command_does_not_name_it_twice() -> None:
    from dsh.session.commands import build_registry

    with pytest.raises(CommandError) as info:
        run(build_registry().dispatch(None, "close", ["now"]))
    assert str(info.value) == "/close takes no arguments — usage: /close"


def test_unexpected_handler_exception_becomes_one_line() -> None:
    with pytest.raises(CommandError) as info:
        run(make_registry().dispatch(None, "broken", []))
    assert str(info.value).startswith("/broken failed: KeyError")
    assert "\n" not in str(info.value)
    assert isinstance(info.value.__cause__, KeyError)


def test_run_line_with_or_without_slash() -> None:
    reg = make_registry()
    ctx: list[Any] = []
    assert run(reg.run_line(ctx, "focus up")) == "up"
    assert run(reg.run_line(ctx, "/split -v 'a b'")) == ["-v", "a b"]
    with pytest.raises(CommandError, match="unknown command /nope"):
        run(reg.run_line(ctx, "nope"))


def test_registration_rejects_duplicates_and_bad_names() -> None:
    reg = make_registry()
    with pytest.raises(ValueError, match="already registered"):
        reg.add("q", lambda ctx, args: None)
    with pytest.raises(ValueError, match="lower-case"):
        reg.add("Bad Name", lambda ctx, args: None)


def test_names_and_help_listing() -> None:
    reg = make_registry()
    assert reg.names() == ["broken", "focus", "quit", "sessions", "split", "tab"]
    assert "q" in reg.names(aliases=True)
    listing = reg.help_text()
    lines = listing.splitlines()
    assert len(lines) == 6
    focus_line = next(line for line in lines if line.startswith("/focus left|right"))
    assert focus_line.endswith("Move focus to another pane.")
    assert "Directions are geometric" not in listing  # only the summary line
    split_line = next(line for line in lines if line.startswith("/split"))
    assert split_line.endswith("Split the active pane.")


def test_help_for_one_command() -> None:
    reg = make_registry()
    text = reg.help_text("/focus")
    assert text.splitlines()[0] == "usage: /focus left|right|up|down|next|prev"
    assert "Directions are geometric" in text
    assert "aliases: /q, /exit" in reg.help_text("quit")
    with pytest.raises(CommandError, match="unknown command"):
        reg.help_text("nope")


def test_complete_command_names() -> None:
    reg = make_registry()
    assert [i.text for i in reg.complete("/")] == reg.names()
    items = reg.complete("/fo")
    assert items == [CompletionItem("focus", -2, "/focus", "Move focus to another pane.")]
    assert [i.text for i in reg.complete("/S")] == ["sessions", "split"]
    assert [(i.text, i.meta) for i in reg.complete("/e")] == [("exit", "= /quit")]
    assert [i.text for i in reg.complete("/q")] == ["quit"]  # the alias adds nothing here


def test_complete_static_arguments() -> None:
    reg = make_registry()
    assert [(i.text, i.start_position) for i in reg.complete("/focus l")] == [("left", -1)]
    assert [i.text for i in reg.complete("/focus ")] == DIRECTIONS
    assert [i.text for i in reg.complete("/split -")] == ["-h", "-v"]
    assert reg.complete("/split -h ") == []  # static choices fill the first argument only
    assert reg.complete("/focus left r") == []


def test_complete_callable_arguments() -> None:
    reg = make_registry()
    items = reg.complete("/tab r")
    assert items == [CompletionItem("rename", -1, "rename", "rename the tab")]
    assert [i.text for i in reg.complete("/tab select ", ctx=[1, 2])] == ["0", "1", "2", "3", "4"]
    assert [i.text for i in reg.complete("/TAB  n")] == ["next"]


def test_complete_ignores_shell_lines_unknown_commands_and_broken_completers() -> None:
    reg = make_registry()
    assert reg.complete("ls -") == []
    assert reg.complete("//fo") == []
    assert reg.complete("/nope x") == []
    assert reg.complete("/quit x") == []
    assert reg.complete("/sessions a") == []


def test_complete_quoted_word() -> None:
    reg = Registry()

    @reg.command("open", args=lambda ctx, done: ["my project", "other"])
    def open_(ctx: Any, args: list[str]) -> None:
        """Open something."""

    items = reg.complete('/open "my p')
    assert items == [CompletionItem("'my project'", -5, "my project", "")]


def test_run_line_refuses_shell_and_empty_lines() -> None:
    reg = make_registry()
    with pytest.raises(CommandError, match="not a command line"):
        run(reg.run_line(None, "//x"))
    with pytest.raises(CommandError, match="command name"):
        run(reg.run_line(None, "   "))


def test_handler_command_error_is_folded_to_one_line() -> None:
    reg = Registry()

    @reg.command("loud")
    def loud(ctx: Any, args: list[str]) -> None:
        """Complain on two lines."""
        raise CommandError("first\nsecond")

    @reg.command("calm")
    def calm(ctx: Any, args: list[str]) -> None:
        """Complain on one line."""
        raise CommandError("no such pane")

    with pytest.raises(CommandError) as info:
        run(reg.dispatch(None, "loud", []))
    assert str(info.value) == "first second"
    with pytest.raises(CommandError) as info:
        run(reg.dispatch(None, "calm", []))
    assert str(info.value) == "no such pane" and info.value.__cause__ is None
