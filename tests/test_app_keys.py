"""The keyboard in a running app: prefix bindings, direct bindings, prompt/pane routing, help overlay."""

from __future__ import annotations

from pathlib import Path

from test_app_harness import (
    ALT_DOWN,
    ALT_LEFT,
    ALT_RIGHT,
    ALT_UP,
    C_B,
    C_RBRACKET,
    ENTER,
    ESC,
    Harness,
    log_events,
    plain_shell,  # noqa: F401  (autouse: panes run /bin/sh)
    run,
    running_app,
)


async def split(h: Harness, key: str) -> str:
    """Split with the prefix key; the id of the new (now active) pane."""
    before = set(h.session.panes)
    h.send(C_B + key)
    await h.wait(lambda: set(h.session.panes) - before, f"C-b {key} to open a pane")
    (new,) = set(h.session.panes) - before
    await h.wait(lambda: h.session.tabs.active_pane == new, "the new pane to be active")
    return new


def test_prefix_percent_splits_side_by_side_and_quote_stacks(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane.id
            right = await split(h, "%")
            rects = h.session.tabs.rects(h.session.area).rects
            assert rects[right].x > rects[first].x and rects[right].y == rects[first].y
            below = await split(h, '"')
            rects = h.session.tabs.rects(h.session.area).rects
            assert rects[below].y > rects[right].y and rects[below].x == rects[right].x
            assert h.app.mode == "prompt"
            assert all(p.running for p in h.session.panes.values())

    run(body)


def test_prefix_o_cycles_and_z_zooms(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane.id
            second = await split(h, "%")
            h.send(C_B + "o")
            await h.wait(lambda: h.session.tabs.active_pane == first, "C-b o to focus the first pane")
            h.send(C_B + "o")
            await h.wait(lambda: h.session.tabs.active_pane == second, "C-b o to wrap to the second pane")
            h.send(C_B + "z")
            await h.wait(lambda: h.session.tabs.active_tab.zoomed, "C-b z to zoom")
            assert list(h.session.tabs.rects(h.session.area).rects) == [second]
            h.send(C_B + "z")
            await h.wait(lambda: not h.session.tabs.active_tab.zoomed, "C-b z again to unzoom")

    run(body)


def test_prefix_x_closes_the_active_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane.id
            second = await split(h, "%")
            terminal = h.session.panes[second].terminal
            h.send(C_B + "x")
            await h.wait(lambda: f"{second} (sh)? y closes it" in h.message, "C-b x to ask first")
            assert second in h.session.panes
            h.send("y")
            await h.wait(lambda: second not in h.session.panes, "y to close the pane")
            assert h.message == ""
            assert h.session.tabs.active_pane == first
            assert not terminal.running
            assert not h.task.done()

    run(body)


def test_prefix_c_n_p_and_digits_switch_tabs(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "c")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "C-b c to open a tab")
            assert h.session.tabs.active_index == 1
            h.send(C_B + "n")
            await h.wait(lambda: h.session.tabs.active_index == 0, "C-b n to wrap to tab 0")
            h.send(C_B + "p")
            await h.wait(lambda: h.session.tabs.active_index == 1, "C-b p to wrap back to tab 1")
            h.send(C_B + "0")
            await h.wait(lambda: h.session.tabs.active_index == 0, "C-b 0 to select tab 0")
            h.send(C_B + "1")
            await h.wait(lambda: h.session.tabs.active_index == 1, "C-b 1 to select tab 1")
            h.send(C_B + "7")
            await h.wait(lambda: "no tab 7" in h.message, "a message for a tab that does not exist")
            assert h.session.tabs.active_index == 1

    run(body)


def test_prefix_comma_asks_for_the_tab_name_on_the_prompt(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + ",")
            await h.wait(lambda: h.app.line.label == "tab name: ", "the rename question")
            assert h.app.prompt_buffer.text == "sh"  # filled in with the name shown, as tmux does
            h.send("\x15" + "work" + ENTER)
            await h.wait(lambda: h.session.tabs.active_tab.title == "work", "the tab to be renamed")
            assert h.app.line.label == "dsh› "
            assert h.app.prompt_buffer.text == ""

    run(body)


def test_prefix_comma_then_escape_keeps_the_name(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + ",")
            await h.wait(lambda: h.app.line.label == "tab name: ", "the rename question")
            h.send("junk" + ESC)
            await h.wait(lambda: h.app.line.label == "dsh› ", "Escape to cancel the question")
            h.send(ENTER)
            await h.quiet()
            assert h.session.tabs.active_tab.title is None

    run(body)


def test_prefix_question_mark_shows_every_binding_and_q_closes(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "?")
            await h.wait(lambda: h.app.mode == "help", "C-b ? to open help")
            text = "\n".join(h.app.help_lines)
            for shown in (
                "C-b %",
                'C-b "',
                "C-b o",
                "C-b z",
                "C-b x",
                "C-b c",
                "C-b n",
                "C-b p",
                "C-b ,",
                "C-b [",
                "C-b ?",
                "C-b C-b",
                "M-Left",
                "C-]",
            ):
                assert shown in text, shown
            h.send("q")
            await h.wait(lambda: h.app.mode == "prompt", "q to close help")
            assert h.app.layout.has_focus(h.app.prompt_window)

    run(body)


def test_prefix_twice_sends_the_prefix_to_the_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send(C_B + C_B)
            await h.wait(lambda: b"\x02" in b"".join(sent), "C-b C-b to reach the pane")
            assert not h.app.prefix_pending
            assert len(h.session.panes) == 1

    run(body)


def test_unbound_key_after_prefix_is_reported_and_not_sent(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            h.send(C_B + "Q")
            await h.wait(lambda: "no binding" in h.message, "a message for the unbound key")
            assert "C-b Q" in h.message and "C-b ?" in h.message
            assert not h.app.prefix_pending
            h.send("k")
            await h.wait(lambda: b"k" in b"".join(sent), "the next key to reach the pane")
            assert b"Q" not in b"".join(sent)

    run(body)


def test_alt_arrows_move_focus_by_direction(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            left = h.pane.id
            right = await split(h, "%")
            below = await split(h, '"')
            h.send(ALT_UP)
            await h.wait(lambda: h.session.tabs.active_pane == right, "M-Up to focus the pane above")
            h.send(ALT_LEFT)
            await h.wait(lambda: h.session.tabs.active_pane == left, "M-Left to focus the left pane")
            h.send(ALT_RIGHT)
            await h.wait(lambda: h.session.tabs.active_pane in (right, below), "M-Right to go right")
            h.session.tabs.focus(right)
            h.send(ALT_DOWN)
            await h.wait(lambda: h.session.tabs.active_pane == below, "M-Down to focus the pane below")
            assert h.app.prompt_buffer.text == ""

    run(body)


def test_alt_arrows_work_from_inside_a_pane_and_the_keyboard_follows_the_focus(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            left = h.pane.id
            right = await split(h, "%")
            sent = h.record(h.session.panes[right])
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            h.send(ALT_LEFT)
            await h.wait(lambda: h.session.tabs.active_pane == left, "M-Left to focus the left pane")
            # C-] chose the right pane only: the left one is an idle shell, whose keys the prompt takes.
            assert h.app.mode == "prompt"
            assert h.app.layout.has_focus(h.app.prompt_window)
            assert b"\x1b" not in b"".join(sent)

    run(body)


def test_escape_key_toggles_between_prompt_and_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            assert h.app.layout.has_focus(h.app.slots[h.pane.id].body)
            h.send("ab")
            await h.wait(lambda: b"".join(sent) == b"ab", "typed keys to reach the pane")
            assert h.app.prompt_buffer.text == ""
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "prompt", "C-] to go back to the prompt")
            h.send("cd")
            await h.wait(lambda: h.app.prompt_buffer.text == "cd", "typed keys to reach the prompt")
            assert b"".join(sent) == b"ab"

    run(body)


def test_control_keys_and_arrows_go_to_the_child_untouched(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            keys = "\x01\x05\x0c\x12\x1a\x0b\x03\t\x7f\x1b[A\x1b[D\x1b[5~\x1bb"
            h.send(keys + "!")
            await h.wait(lambda: b"".join(sent).endswith(b"!"), "the keys to reach the pane")
            assert b"".join(sent) == (keys + "!").encode()
            assert h.app.mode == "pane" and len(h.session.panes) == 1

    run(body)


def test_arrows_follow_application_cursor_mode(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            h.pane.terminal.feed(b"\x1b[?1h")  # the child asked for application cursor keys (DECCKM)
            h.send("\x1b[A\x1b[B\x1b[C\x1b[D!")
            await h.wait(lambda: b"".join(sent).endswith(b"!"), "the keys to reach the pane")
            assert b"".join(sent) == b"\x1bOA\x1bOB\x1bOC\x1bOD!"

    run(body)


def test_a_real_child_reads_raw_keys_exactly(tmp_path: Path) -> None:
    reader = tmp_path / "reader.py"
    reader.write_text(
        "import os, sys, tty\n"
        "tty.setraw(0)\n"
        "print('READY', end='\\r\\n', flush=True)\n"
        "data = b''\n"
        "while not data.endswith(b'!'):\n"
        "    data += os.read(0, 100)\n"
        "print('GOT ' + data.hex(), end='\\r\\n', flush=True)\n"
        "os.read(0, 1)\n"
    )

    async def body() -> None:
        import sys

        async with running_app(tmp_path) as h:
            h.type_line(f"/new {sys.executable} {reader}")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "the reader's tab")
            pane = h.pane
            await h.wait_output(pane, "READY")
            # A program reading raw keys gets the keyboard by itself (no C-], which would take it out
            # again: tests/test_app_keyboard.py has the escape key's choice holding against polls).
            await h.wait(lambda: h.app.mode == "pane", "the keyboard to follow into the raw-mode child")
            keys = b"\x01\x03\x1a\x1b[A\x1bx\xc3\xa9!"
            h.send(keys.decode())
            await h.wait_output(pane, "GOT " + keys.hex())

    run(body)


def test_keys_in_the_prompt_edit_the_line_not_the_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send("echo abc\x01X")  # C-a: start of line in the prompt editor
            await h.wait(lambda: h.app.prompt_buffer.text == "Xecho abc", "C-a to edit the prompt line")
            assert sent == []

    run(body)


def test_help_lists_keys_from_the_keymap_itself(tmp_path: Path) -> None:
    (Path(__import__("os").environ["DSH_HOME"]) / "config.toml").write_text('[keys]\n"|" = "split -h"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/help")
            await h.wait(lambda: h.app.mode == "help", "/help to open help")
            text = "\n".join(h.app.help_lines)
            assert "C-b |" in text and "/split -h" in text
            assert "/quit" in text and "/rename TITLE" in text
            h.send(ESC)
            await h.wait(lambda: h.app.mode == "prompt", "Escape to close help")

    run(body)


def test_pane_opened_events_are_logged(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            second = await split(h, "%")
            opened = [e["pane_id"] for e in log_events(h.app) if e["type"] == "pane_opened"]
            assert opened[-1] == second and len(opened) == 2

    run(body)


def test_help_scrolls_with_pager_keys(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/help")
            await h.wait(lambda: h.app.mode == "help", "/help to open help")
            h.send("j")
            await h.wait(lambda: h.app.help_scroll == 1, "j to scroll a line")
            h.send(" ")
            await h.wait(lambda: h.app.help_scroll == 11, "Space to scroll a page")
            h.send("k")
            await h.wait(lambda: h.app.help_scroll == 10, "k to scroll back a line")
            h.send("G")
            await h.wait(lambda: h.app.help_scroll > 20, "G to go to the end")
            end = h.app.help_scroll
            # The last page, full: as far as less goes, not until a few lines are left.
            assert end == len(h.app.help_lines) - h.app.help_window.render_info.window_height
            h.send("j")
            await h.quiet()
            assert h.app.help_scroll == end
            h.send("b")
            await h.wait(lambda: h.app.help_scroll == end - 10, "b to scroll back a page")
            h.send("g")
            await h.wait(lambda: h.app.help_scroll == 0, "g to go to the top")
            h.send("x")
            await h.quiet()
            assert h.app.mode == "help"
            h.send("q")
            await h.wait(lambda: h.app.mode == "prompt", "q to close help")

    run(body)


def test_a_tmux_key_dsh_lacks_gets_a_hint(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "l")
            await h.wait(lambda: "no binding for C-b l" in h.message, "the message for C-b l")
            assert "n and p" in h.message
            h.send(C_B + "$")
            await h.wait(lambda: "/rename TITLE" in h.message, "the message for C-b $")
            assert not h.task.done() and len(h.session.panes) == 1

    run(body)


def test_prefix_d_detaches_and_the_session_runs_on(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            h.send(C_B + "d")
            await h.wait(lambda: h.task.done(), "the view to end")
            assert h.task.result().reason == "detached"
            # Only the view ended: the session, its log and its pane are all still there.
            assert not h.session.closing and not h.session.log.closed and pane.running
            assert h.session.observer is not h.app

    run(body)


def test_slash_detach_detaches(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/detach")
            await h.wait(lambda: h.task.done(), "the view to end")
            assert h.task.result().reason == "detached" and h.pane.running

    run(body)


def test_prefix_arrows_move_focus_by_direction(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            left = h.pane.id
            right = await split(h, "%")
            below = await split(h, '"')
            h.send(C_B + "\x1b[A")
            await h.wait(lambda: h.session.tabs.active_pane == right, "C-b Up to focus the pane above")
            h.send(C_B + "\x1b[B")
            await h.wait(lambda: h.session.tabs.active_pane == below, "C-b Down to focus the pane below")
            h.send(C_B + "\x1b[D")
            await h.wait(lambda: h.session.tabs.active_pane == left, "C-b Left to focus the left pane")
            h.send(C_B + "\x1b[C")
            await h.wait(lambda: h.session.tabs.active_pane != left, "C-b Right to leave the left pane")
            assert h.app.prompt_buffer.text == ""

    run(body)


def test_unbound_named_keys_are_shown_by_their_names(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + ENTER)
            await h.wait(lambda: "no binding for C-b Enter" in h.message, "C-b Enter to be reported")
            h.send(C_B + "\t")
            await h.wait(lambda: "no binding for C-b Tab" in h.message, "C-b Tab to be reported")
            h.send(C_B + "\x1bx")
            await h.wait(lambda: "no binding for C-b M-x" in h.message, "C-b M-x to be reported")
            h.send(C_B + ESC)
            await h.wait(lambda: "no binding for C-b Escape" in h.message, "C-b Escape to be reported")
            assert not h.app.prefix_pending
            assert h.app.prompt_buffer.text == ""

    run(body)


def test_prompt_editing_keys_after_the_prefix_do_not_edit_the_prompt(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send("ab")
            await h.wait(lambda: h.app.prompt_buffer.text == "ab", "the typed text")
            for key, shown in ((ENTER, "Enter"), ("\x01", "C-a"), ("\x1b[H", "Home"), ("\x7f", "Backspace")):
                h.send(C_B + key)
                await h.wait(lambda shown=shown: f"no binding for C-b {shown}" in h.message, f"C-b {shown}")
                assert not h.app.prefix_pending
                assert h.app.layout.has_focus(h.app.prompt_window)
            h.send("%")
            await h.wait(lambda: h.app.prompt_buffer.text == "ab%", "% to be typed, not a split")
            assert sent == [] and len(h.session.panes) == 1
            assert h.app.prompt_buffer.cursor_position == 3

    run(body)


def test_the_prompt_keeps_its_line_and_cursor_across_a_prefix_command(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send("echo x\x01")
            await h.wait(lambda: h.app.prompt_buffer.cursor_position == 0, "C-a on the prompt")
            await split(h, "%")
            assert h.app.mode == "prompt" and h.app.layout.has_focus(h.app.prompt_window)
            assert h.app.prompt_buffer.text == "echo x" and h.app.prompt_buffer.cursor_position == 0

    run(body)


def test_prefix_x_keeps_the_pane_on_any_key_but_y(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            second = await split(h, "%")
            sent = h.record(h.session.panes[second])
            h.send("ab")
            await h.wait(lambda: h.app.prompt_buffer.text == "ab", "the typed text")
            for answer in ("n", ENTER, "\x1b[A"):
                h.send(C_B + "x")
                await h.wait(lambda: "y closes it" in h.message, "C-b x to ask")
                h.send(answer)
                await h.wait(lambda: "not done: /close" in h.message, f"{answer!r} to keep the pane")
                assert second in h.session.panes and h.session.panes[second].running
            assert h.app.prompt_buffer.text == "ab" and sent == []
            h.send("c")
            await h.wait(lambda: h.app.prompt_buffer.text == "abc", "the keyboard back on the prompt")

    run(body)


def test_prefix_x_closes_an_exited_pane_without_asking(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            second = await split(h, "%")
            h.type_line("exit 4")  # a failure: the pane stays, with its status
            await h.wait(lambda: not h.session.panes[second].running, "the shell to exit")
            assert second in h.session.panes
            h.send(C_B + "x")
            await h.wait(lambda: second not in h.session.panes, "C-b x to close the exited pane")
            assert "y closes it" not in h.message

    run(body)


def test_prefix_keys_work_in_the_picker(tmp_path: Path) -> None:
    # C-b d once typed `d` into the picker's query; C-b and an arrow leave the picker for that pane.
    async def body() -> None:
        async with running_app(tmp_path) as h:
            left = h.pane.id
            right = await split(h, "%")
            h.type_line("/resume")
            await h.wait(lambda: h.app.mode == "picker", "/resume to open the picker")
            h.send(C_B + "\x1b[D")  # C-b Left
            await h.wait(lambda: h.app.mode != "picker", "C-b Left to leave the picker")
            assert h.session.tabs.active_pane == left != right
            h.type_line("/resume")
            await h.wait(lambda: h.app.mode == "picker", "/resume again")
            h.send(C_B + "d")
            await h.wait(lambda: h.task.done(), "C-b d to detach from the picker")
            assert h.task.result().reason == "detached"
            assert h.app.picker is None or h.app.picker.query == ""

    run(body)
