"""A child that asked for focus events (mode 1004, as agent CLIs do) learns when the keyboard enters or leaves."""

from __future__ import annotations

from pathlib import Path

from tests.test_app_harness import (
    C_RBRACKET,
    plain_shell,  # noqa: F401  (autouse: panes run a quick /bin/sh)
    run,
    running_app,
)


def test_focus_in_and_out_follow_the_keyboard(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            pane.terminal.feed(b"\x1b[?1004h")  # what the child prints to ask for focus events
            sent = h.record(pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: b"\x1b[I" in b"".join(sent), "focus-in when the keyboard enters the pane")
            h.send(C_RBRACKET)
            await h.wait(lambda: b"\x1b[O" in b"".join(sent), "focus-out when it goes back to the prompt")

    run(body)


def test_no_focus_events_for_a_child_that_did_not_ask(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "the keyboard in the pane")
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "prompt", "the keyboard back on the prompt")
            assert b"\x1b[I" not in b"".join(sent) and b"\x1b[O" not in b"".join(sent)

    run(body)


def test_background_panes_read_less_per_callback_and_pause_after_a_full_read(tmp_path: Path) -> None:
    from dsh.session.pane_programs import BACKGROUND_READ, BACKGROUND_READ_PAUSE, FOREGROUND_READ
    from tests.test_app_harness import C_B

    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "a second pane")
            second = h.pane
            assert second is not first
            assert second.terminal.read_budget == FOREGROUND_READ
            assert first.terminal.read_budget == BACKGROUND_READ
            h.send(C_B + "o")
            await h.wait(lambda: h.pane is first, "focus back on the first pane")
            assert (first.terminal.read_budget, second.terminal.read_budget) == (FOREGROUND_READ, BACKGROUND_READ)
            assert (first.terminal.read_pause, second.terminal.read_pause) == (0.0, BACKGROUND_READ_PAUSE)

    run(body)


def test_click_enters_a_pane_and_a_click_on_the_prompt_comes_back(tmp_path: Path) -> None:
    from tests.test_app_harness import C_B

    def click(x: int, y: int) -> str:  # SGR mouse, 1-based, press then release
        return f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m"

    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2 and h.pane is not first, "a second pane, focused")
            h.send(click(5, 6))  # inside the left pane's body
            # A focus move: the left pane is an idle shell, so the prompt (its line editor) keeps the keys.
            await h.wait(lambda: h.pane is first and h.app.mode == "prompt", "the click to focus the left pane")
            h.send(click(8, 7))  # a click into the pane that has the focus enters it (not a double click)
            await h.wait(lambda: h.app.mode == "pane", "the second click to enter the left pane")
            rows = h.app.application.output.get_size().rows
            h.send(click(10, rows))  # the prompt line is the last row
            await h.wait(lambda: h.app.mode == "prompt", "a click on the prompt to bring the keyboard back")

    run(body)


def test_copy_mode_copies_selected_lines_and_paste_types_them(tmp_path: Path) -> None:
    from tests.test_app_harness import C_B

    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            pane.terminal.feed(b"\r\nalpha\r\nbeta\r\ngamma\r\n")
            h.send(C_B + "[")
            await h.wait(lambda: h.app.mode == "copy", "copy mode")
            cursor = pane.terminal.copy.line
            h.send("k" * (cursor - pane.terminal.text_lines().index("alpha")))  # up to alpha
            await h.wait(lambda: pane.terminal.copy.selected_text() == "alpha", "the cursor on alpha")
            h.send("Vjj")  # whole lines
            await h.wait(lambda: pane.terminal.copy.selected_text() == "alpha\nbeta\ngamma", "a selection")
            h.send("\r")
            await h.wait(lambda: h.app.mode == "prompt", "copy mode left after copying")
            assert h.app.paste_buffer.get_data().text == "alpha\nbeta\ngamma"
            assert "copied 3 lines" in h.message
            sent = h.record(pane)
            h.send(C_B + "]")
            await h.wait(lambda: b"alpha" in b"".join(sent), "the paste to reach the pane")
            assert b"".join(sent).replace(b"\r", b"\n").count(b"\n") >= 2

    run(body)


def test_a_click_on_a_tab_shows_it(tmp_path: Path) -> None:
    from tests.test_app_harness import C_B

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "c")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2 and h.session.tabs.active_index == 1, "a second tab")
            h.send("\x1b[<0;3;1M\x1b[<0;3;1m")  # click on " 0:sh" in the tab bar (row 1)
            await h.wait(lambda: h.session.tabs.active_index == 0, "the click to show tab 0")

    run(body)
