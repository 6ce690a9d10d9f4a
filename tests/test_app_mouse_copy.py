"""The mouse over panes (drag selects and copies, a double click a word, a border drag resizes, a program
that asked for the mouse gets it) and copy mode's keys, vi's and emacs's, in a running app."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_app_harness import (
    C_B,
    ESC,
    plain_shell,  # noqa: F401  (autouse: panes run a quick /bin/sh)
    run,
    running_app,
)

BODY_TOP = 2  # the tab bar, then the pane's header: the pane's first row is screen row 2


def press(x: int, y: int) -> str:
    """SGR mouse reports at 0-based screen cell (x, y)."""
    return f"\x1b[<0;{x + 1};{y + 1}M"


def drag(x: int, y: int) -> str:
    return f"\x1b[<32;{x + 1};{y + 1}M"


def release(x: int, y: int) -> str:
    return f"\x1b[<0;{x + 1};{y + 1}m"


def show(pane, row: int, text: str) -> None:  # type: ignore[no-untyped-def]
    """What a program prints at a row of the pane (and the cursor back at the bottom)."""
    pane.terminal.feed(f"\x1b[{row + 1};1H\x1b[2K{text}\x1b[20;1H".encode())


def clipboard(h) -> str:  # type: ignore[no-untyped-def]
    return h.app.paste_buffer.get_data().text


def test_a_drag_copies_exactly_the_cells_it_went_over(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            show(h.pane, 5, "0123456789ABCDEF and 日本語 too")
            y = BODY_TOP + 5
            h.send(press(3, y) + drag(7, y) + drag(11, y))
            await h.wait(lambda: h.app.slots[h.pane.id].control.selection is not None, "a selection while dragging")
            h.send(release(11, y))
            await h.wait(lambda: clipboard(h) == "3456789AB", "the drag copied on release")
            assert "copied 9 characters" in h.message
            assert h.app.slots[h.pane.id].control.selection is None
            assert h.app.mode == "prompt"  # a copy leaves the keyboard where it was
            # over two rows, starting on a wide character's second half: the character is taken whole
            show(h.pane, 6, "second row")
            h.send(press(22, y) + drag(5, y + 1) + release(5, y + 1))
            await h.wait(lambda: clipboard(h) == "日本語 too\nsecond", "a drag over two rows")

    run(body)


def test_a_double_click_copies_a_word_and_a_triple_click_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The clicks of a triple click must come within MULTI_CLICK_SECONDS of each other; at load 10 the
    # wait for the double click's copy took longer than 0.4 s now and then, and the third click began anew.
    from dsh.ui import terminal_control

    monkeypatch.setattr(terminal_control, "MULTI_CLICK_SECONDS", 30.0)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            show(h.pane, 4, "echo hello-world  done")
            y = BODY_TOP + 4
            h.send(press(8, y) + release(8, y) + press(8, y) + release(8, y))
            await h.wait(lambda: clipboard(h) == "hello", "a double click copies the word")
            h.send(press(8, y) + release(8, y))
            await h.wait(lambda: clipboard(h) == "echo hello-world  done", "a third click copies the line")

    run(body)


def test_a_click_still_enters_the_pane_and_shift_is_left_alone(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            show(h.pane, 3, "shifted selection")
            y = BODY_TOP + 3
            h.send(f"\x1b[<4;2;{y + 1}M\x1b[<36;9;{y + 1}M\x1b[<4;9;{y + 1}m")  # with Shift held
            await h.quiet()
            assert h.app.slots[h.pane.id].control.selection is None and clipboard(h) == ""
            h.send(press(2, y) + release(2, y))
            await h.wait(lambda: h.app.mode == "pane", "a click to enter the pane")
            assert clipboard(h) == ""

    run(body)


def test_a_program_that_asked_for_the_mouse_gets_the_drag(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            show(pane, 2, "some text")
            pane.terminal.feed(b"\x1b[?1002h\x1b[?1006h")  # button-event tracking, SGR reports
            sent = h.record(pane)
            y = BODY_TOP + 2
            h.send(press(1, y) + drag(4, y) + release(4, y))
            await h.wait(lambda: b"\x1b[<0;5;3m" in b"".join(sent), "the release reported to the program")
            assert b"".join(sent) == b"\x1b[<0;2;3M\x1b[<32;5;3M\x1b[<0;5;3m"
            assert clipboard(h) == ""

    run(body)


def test_dragging_the_border_resizes_both_panes(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2 and h.pane is not first, "a second pane")
            second = h.pane
            await h.wait(lambda: first.terminal.cols + second.terminal.cols == 79, "both drawn side by side")
            (border,) = h.session.tabs.rects(h.session.area).borders
            left, right = first.terminal.cols, second.terminal.cols
            y = border.y + 3
            h.send(press(border.x, y) + drag(border.x - 6, y) + drag(border.x - 10, y + 2) + release(border.x - 10, y))
            await h.wait(
                lambda: (first.terminal.cols, second.terminal.cols) == (left - 10, right + 10),
                "both panes resized by the drag",
            )
            assert clipboard(h) == "" and h.pane is second  # a border drag selects nothing, focuses nothing

    run(body)


def test_vi_keys_copy_a_word_and_search_both_ways(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            show(pane, 1, "alpha beta gamma")
            show(pane, 2, "delta beta")
            h.send(C_B + "[")
            await h.wait(lambda: h.app.mode == "copy", "copy mode")
            h.send("/beta\r")
            await h.wait(lambda: pane.terminal.copy is not None and pane.terminal.copy.col == 6, "searched")
            first = pane.terminal.copy.line
            h.send("n")
            await h.wait(lambda: pane.terminal.copy.cursor == (first + 1, 6), "n: the next match")
            h.send("N")
            await h.wait(lambda: pane.terminal.copy.cursor == (first, 6), "N: back")
            h.send("0wvey")  # to the line's start, the next word, select to its end, copy
            await h.wait(lambda: clipboard(h) == "beta", "the word copied")
            assert h.app.mode == "prompt" and pane.terminal.copy is None
            assert "copied 4 characters" in h.message

    run(body)


def test_a_search_that_finds_nothing_says_so(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "[")
            await h.wait(lambda: h.app.mode == "copy", "copy mode")
            h.send("?no-such-text-anywhere\r")
            await h.wait(lambda: "not found: no-such-text-anywhere" in h.message, "the message")
            assert h.app.mode == "copy"
            h.send("]")
            await h.wait(lambda: "no prompt that way" in h.message, "no marks from /bin/sh")
            h.send(ESC)
            await h.wait(lambda: h.app.mode == "prompt", "Escape leaves")

    run(body)


def test_emacs_keys_when_the_config_says_so(tmp_path: Path, dsh_home: Path) -> None:
    (dsh_home / "config.toml").write_text('[ui]\ncopy_keys = "emacs"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            show(pane, 1, "one two three")
            h.send(C_B + "[")
            await h.wait(lambda: h.app.mode == "copy", "copy mode")
            h.send("\x13two\r")  # C-s: search forward
            await h.wait(lambda: pane.terminal.copy.col == 4, "C-s found it")
            h.send("\x00\x1bf\x1bw")  # C-Space, M-f (the end of the word), M-w
            await h.wait(lambda: clipboard(h) == "two", "copied with emacs keys")
            assert h.app.mode == "prompt"

    run(body)


def test_a_restored_command_runs_again_only_on_its_key_in_a_fresh_shell(tmp_path: Path) -> None:
    from dsh.persist.states import PaneState
    from dsh.session import saving
    from dsh.ui import chrome

    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            h.type_line("exit 3")
            await h.wait(lambda: not pane.running, "the shell to end")
            # What a restore makes of a pane whose shell ran `printf …` when the session was saved.
            pane.state = PaneState.RESTORED
            pane.saved_command = ["printf", "%s\\n", "ran it again"]
            hint = chrome.pane_hint(pane)
            assert hint == r"Enter: fresh shell · M-r: run printf '%s\n' 'ran it again'"
            h.app.invalidate()
            await h.quiet()
            assert not pane.running  # nothing runs by itself
            h.send("\x1br")  # M-r
            await h.wait_output(pane, "ran it again")
            assert pane.running and pane.saved_command is None and h.app.mode == "prompt"
            assert "ran again in" in h.message
            assert "[exited 3]" not in "".join(pane.terminal.screen.display)  # a clean screen...
            assert any("[exited 3]" in line for line in pane.terminal.text_lines())  # ...the past above it
            # In a workspace that opted in (auto_resume), a restore runs it by itself.
            h.type_line("exit 4")
            await h.wait(lambda: not pane.running, "the shell to end again")
            pane.state = PaneState.RESTORED
            pane.saved_command = ["echo", "by itself"]
            saving.auto_resume_panes(h.session)
            await h.wait_output(pane, "by itself")

    run(body)


def test_a_click_on_another_pane_ends_copy_mode(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2 and h.pane is not first, "a second pane")
            second = h.pane
            h.send(C_B + "[")
            await h.wait(lambda: second.terminal.copy is not None, "copy mode in the second pane")
            h.send(press(3, BODY_TOP + 2) + release(3, BODY_TOP + 2))  # the first pane, on the left
            await h.wait(lambda: h.pane is first and h.app.mode == "prompt", "the click to focus the first pane")
            assert second.terminal.copy is None and first.terminal.copy is None

    run(body)
