"""The built-in commands' table: usage lines, help, argument completion and argument checks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from test_app_harness import (
    C_B,
    C_RBRACKET,
    Harness,
    plain_shell,  # noqa: F401  (autouse: panes run /bin/sh)
    run,
    running_app,
)

from dsh.session.commands import build_registry
from dsh.ui import chrome, keyhelp


class Ctx:
    """The little of the app that argument completion reads."""

    def __init__(self) -> None:
        self.registry = build_registry()


def completions(line: str) -> list[str]:
    ctx = Ctx()
    return [item.text for item in ctx.registry.complete(line, ctx)]


def test_usage_lines_name_the_command_once() -> None:
    registry = build_registry()
    for name in registry.names():
        usage = registry.get(name).usage_line
        assert usage.startswith(f"/{name}") and usage.count(f"/{name}") == 1, usage
    assert registry.get("rename").usage_line == "/rename TITLE"
    assert registry.get("quit").usage_line == "/quit [-f]"


def test_every_summary_fits_the_help_table() -> None:
    registry = build_registry()
    for name in registry.names():
        summary = registry.get(name).summary
        assert summary and len(summary) <= 56, (name, summary)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("/fo", ["focus"]),
        ("/focus l", ["left", "last"]),
        ("/focus left ", []),
        ("/split -", ["-h", "-v", "-c"]),
        ("/tab r", ["rename"]),
        ("/help z", ["zoom"]),
        ("/help zoom ", []),
        ("/agent c", ["claude", "codex", "cursor-agent"]),
        ("/agent claude ", []),
        ("/resize u", ["up"]),
        ("//fo", []),
        ("fo", []),
    ],
)
def test_argument_completion(line: str, expected: list[str]) -> None:
    assert completions(line) == expected


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/resize left 0", "not a number of cells: 0"),
        ("/resize left -3", "not a number of cells: -3"),
        ("/resize left ²", "not a number of cells: ²"),
        ("/resize sideways", "usage: /resize"),
        ("/swap diagonal", "usage: /swap"),
        ("/tab select x", "/tab select takes a tab number"),
        ("/tab fly", "unknown tab action fly"),
        ("/split -x", "unknown option -x"),
        ("/close now", "usage: /close"),
        ("/help nosuch", "no command /nosuch"),
        ("/agent vim", "unknown agent vim"),
        ("/start", "not a restored pane"),
    ],
)
def test_bad_arguments_are_one_message_line(tmp_path: Path, line: str, message: str) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line(line)
            await h.wait(lambda: message in h.message, f"the message for {line}")
            assert h.app.message is not None and h.app.message.error
            assert "\n" not in h.message and "Traceback" not in h.message
            assert len(h.session.panes) == 1 and not h.task.done()

    run(body)


def test_resize_moves_the_border_by_the_cells_given(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            left = h.pane.id
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "C-b % to split")
            await h.wait(lambda: h.session.area.width > 40, "the first frame")

            def left_width() -> int:
                return h.session.tabs.rects(h.session.area).rects[left].width

            width = left_width()
            h.type_line("/resize left 3")
            await h.wait(lambda: left_width() == width - 3, "the border to move 3 cells left")
            h.send(C_B + "\x1b[1;5C")  # C-b C-Right: the default 5 cells
            await h.wait(lambda: left_width() == width + 2, "C-b C-Right to move it 5 cells right")

    run(body)


def test_swap_and_focus_last(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane.id
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "C-b % to split")
            second = h.session.tabs.active_pane
            h.send(C_B + "{")
            await h.wait(lambda: h.session.tabs.active_tab.pane_ids() == [second, first], "C-b { to swap")
            assert h.session.tabs.active_pane == second
            h.send(C_B + ";")
            await h.wait(lambda: h.session.tabs.active_pane == first, "C-b ; to go to the last pane")
            h.send(C_B + ";")
            await h.wait(lambda: h.session.tabs.active_pane == second, "C-b ; to come back")

    run(body)


async def _split_and_measure(h: Harness) -> tuple[Callable[[], int], int]:
    left = h.pane.id
    h.send(C_B + "%")
    await h.wait(lambda: len(h.session.panes) == 2, "C-b % to split")
    await h.wait(lambda: h.session.area.width > 40, "the first frame")

    def left_width() -> int:
        return h.session.tabs.rects(h.session.area).rects[left].width

    return left_width, left_width()


C_RIGHT = "\x1b[1;5C"


def test_resize_keys_repeat_without_the_prefix(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            left_width, width = await _split_and_measure(h)
            h.send(C_B + C_RIGHT + C_RIGHT + C_RIGHT)
            await h.wait(lambda: left_width() == width + 15, "three resizes from one prefix")
            assert h.app.prompt_buffer.text == ""

    run(body)


def test_another_key_ends_the_repeat(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            left_width, width = await _split_and_measure(h)
            h.send(C_B + C_RIGHT + "ab cd" + "\x01" + C_RIGHT + "!")
            await h.wait(lambda: "!" in h.app.prompt_buffer.text, "the keys to reach the prompt")
            assert h.app.prompt_buffer.text == "ab! cd"  # C-a, then C-Right moved a word on the prompt
            assert left_width() == width + 5

    run(body)


def test_repeat_ends_after_the_repeat_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyhelp, "REPEAT_SECONDS", 0.0)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            left_width, width = await _split_and_measure(h)
            h.send(C_B + C_RIGHT + C_RIGHT + "!")
            await h.wait(lambda: h.app.prompt_buffer.text.endswith("!"), "the keys to reach the prompt")
            assert left_width() == width + 5

    run(body)


def test_non_repeatable_keys_do_not_repeat(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "c" + "c")
            await h.wait(lambda: h.app.prompt_buffer.text == "c", "the second c to reach the prompt")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "one new tab")
            await h.quiet()
            assert len(h.session.tabs.tabs) == 2

    run(body)


def test_tab_select_completes_the_tab_numbers(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/new")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "a second tab")
            h.session.tabs.rename_tab("logs")
            items = h.app.registry.complete("/tab select ", h.app)
            assert [(i.text, i.meta) for i in items] == [("0", ""), ("1", "logs")]
            assert [i.text for i in h.app.registry.complete("/tab ", h.app)] == ["next", "prev", "select", "rename"]
            assert h.app.registry.complete("/tab select 1 ", h.app) == []

    run(body)


def test_tabs_follow_the_foreground_program_and_name_names_a_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            tabbar = lambda: "".join(text for _style, text, *_ in chrome.tabbar_fragments(h.app))  # noqa: E731
            h.type_line("sleep 100")
            await h.wait(lambda: "0:sleep" in tabbar(), "the tab named after sleep")
            h.send("\x03")  # C-c on the empty prompt: sleep ends, the shell is back
            await h.wait(lambda: "0:sh" in tabbar(), "the tab named after the shell again")
            h.type_line("/name build box")
            await h.wait(lambda: h.pane.name == "build box", "the pane named")
            assert "build box" in h.pane.title and "0:build box" in tabbar()
            h.type_line("/name")
            await h.wait(lambda: h.pane.name is None, "the name dropped")

    run(body)


def test_new_splits_and_tabs_start_where_the_active_shell_is(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "other").mkdir()

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("cd sub")
            await asyncio.sleep(0.2)
            h.type_line("/split")
            await h.wait(lambda: len(h.session.panes) == 2, "the split")
            assert h.pane.cwd == str(tmp_path / "sub")
            h.type_line("/new -c ../other")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "the new tab")
            assert h.pane.cwd == str(tmp_path / "other")
            h.type_line("/split -c /nonexistent-folder")
            await h.wait(lambda: "no such directory" in h.message, "the message")

    run(body)


def test_sync_sends_what_is_typed_to_every_pane_of_the_tab(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane
            h.type_line("/split -h")
            await h.wait(lambda: len(h.session.panes) == 2 and h.pane.running, "the second pane")
            second = h.pane
            tabbar = lambda: "".join(text for _style, text, *_ in chrome.tabbar_fragments(h.app))  # noqa: E731
            h.type_line("/sync on")
            await h.wait(lambda: "[S]" in tabbar(), "the tab marked synchronized")
            # The shell's output (sync-2), not its echo of the line typed: the line reached each shell.
            h.type_line("echo sync-$((1+1))")
            await h.wait_output(first, "sync-2")
            await h.wait_output(second, "sync-2")
            h.send(C_RBRACKET + "echo keys-$((2+2))\r")  # into the pane: keys go to both as well
            await h.wait_output(first, "keys-4")
            await h.wait_output(second, "keys-4")
            h.send(C_RBRACKET)
            h.type_line("/sync off")
            await h.wait(lambda: "[S]" not in tabbar(), "the mark gone")
            h.type_line("echo only-$((3+3))")
            await h.wait_output(second, "only-6")
            await asyncio.sleep(0.2)
            assert not any(line.rstrip().endswith("only-6") for line in first.terminal.text_lines())

    run(body)
