"""Overlays and questions give the keyboard back where it was; status and tab bar read like tmux."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from test_app_harness import (
    C_B,
    C_RBRACKET,
    ESC,
    UP,
    plain_shell,  # noqa: F401  (autouse: panes run /bin/sh)
    run,
    running_app,
)

from dsh.ui import chrome


def fragments_text(fragments: list[tuple[str, str]]) -> str:
    return "".join(text for _style, text in fragments)


def test_help_opened_from_inside_a_pane_gives_the_keyboard_back_to_it(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            h.send(C_B + "?")
            await h.wait(lambda: h.app.mode == "help", "C-b ? to open help")
            h.send("q")
            await h.wait(lambda: h.app.mode != "help", "q to close help")
            assert h.app.mode == "pane"
            assert h.app.layout.has_focus(h.app.slots[h.pane.id].body)

    run(body)


def test_help_opened_from_the_prompt_gives_the_keyboard_back_to_the_prompt(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "?")
            await h.wait(lambda: h.app.mode == "help", "C-b ? to open help")
            h.send(ESC)
            await h.wait(lambda: h.app.mode == "prompt", "Escape to close help")
            assert h.app.layout.has_focus(h.app.prompt_window)

    run(body)


def test_copy_mode_left_with_q_gives_the_keyboard_back_to_the_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            h.send(C_B + "[")
            await h.wait(lambda: h.app.mode == "copy", "C-b [ to enter copy mode")
            h.send("q")
            await h.wait(lambda: h.app.mode != "copy", "q to leave copy mode")
            assert h.app.mode == "pane"

    run(body)


def test_escape_from_a_copy_mode_search_returns_to_copy_mode(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "[")
            await h.wait(lambda: h.app.mode == "copy", "C-b [ to enter copy mode")
            h.send("/")
            await h.wait(lambda: h.app.line.label == "search down: ", "the search question")
            h.send(ESC)
            await h.wait(lambda: h.app.line.pending_action is None, "Escape to cancel the search")
            assert h.app.mode == "copy"

    run(body)


def test_tab_rename_from_inside_a_pane_returns_there_and_stays_out_of_history(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            h.send(C_B + ",")
            await h.wait(lambda: h.app.line.label == "tab name: ", "the rename question")
            h.send("\x15work\r")
            await h.wait(lambda: h.session.tabs.active_tab.title == "work", "the tab to be renamed")
            assert h.app.mode == "pane"
            assert "work" not in h.app.prompt_buffer.history.get_strings()

    run(body)


def test_status_shows_the_pending_prefix_as_help_writes_it(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B)
            await h.wait(lambda: h.app.prefix_pending, "C-b to be pending")
            assert "C-b…" in fragments_text(chrome.status_fragments(h.app))

    run(body)


def test_every_startup_warning_is_shown(tmp_path: Path) -> None:
    (Path(os.environ["DSH_HOME"]) / "config.toml").write_text('[keys]\n"ctrl-x" = "zoom"\nz = "zoomify"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            assert "ctrl-x" in h.message and "zoomify" in h.message

    run(body)


def test_help_lists_the_prompt_keys(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "?")
            await h.wait(lambda: h.app.mode == "help", "C-b ? to open help")
            assert "On the prompt line:" in h.app.help_lines
            assert any(line.startswith('  C-b "') and line.endswith("/split -v") for line in h.app.help_lines)

    run(body)


def test_up_after_a_question_does_not_recall_the_answer(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + ",")
            await h.wait(lambda: h.app.line.label == "tab name: ", "the rename question")
            h.send("\x15work\r")
            await h.wait(lambda: h.session.tabs.active_tab.title == "work", "the tab to be renamed")
            h.send(UP + "!")
            await h.wait(lambda: h.app.prompt_buffer.text.endswith("!"), "the keys to reach the prompt")
            assert h.app.prompt_buffer.text == "!"

    run(body)


def test_the_keyboard_follows_a_program_that_reads_keys_and_comes_back(tmp_path: Path) -> None:
    # python3's REPL takes the terminal out of line mode without the alternate screen.
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line(f"{sys.executable} -q -i -c 'import sys'")
            await h.wait(lambda: h.app.mode == "pane", "the keyboard to go into the pane")
            h.send("6*7\r")
            await h.wait_output(h.pane, "42")
            h.send("exit()\r")
            await h.wait(lambda: h.app.mode == "prompt", "the keyboard to come back to the prompt")

    run(body)


def test_a_program_in_line_mode_leaves_the_keyboard_on_the_prompt(tmp_path: Path) -> None:
    # `cat` reads lines with echo on: the prompt gives it whole lines, as the kernel would.
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("cat")
            await asyncio.sleep(0.4)
            assert h.app.mode == "prompt"
            h.type_line("a-line-for-cat")
            await h.wait_output(h.pane, "a-line-for-cat")
            h.send("\x04")  # C-d on an empty prompt: end of input for cat
            await asyncio.sleep(0.2)
            assert h.app.mode == "prompt"

    run(body)
