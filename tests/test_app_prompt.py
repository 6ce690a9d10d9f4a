"""The REPL prompt in a running app: lines to the pane, slash commands, completion, the session log."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
from test_app_harness import (
    C_B,
    C_RBRACKET,
    TAB,
    UP,
    log_events,
    plain_shell,  # noqa: F401  (autouse: panes run /bin/sh)
    run,
    running_app,
)


def test_a_line_typed_at_the_prompt_runs_in_the_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            sent = h.record(pane)
            h.type_line("echo dsh$((40+2))")
            await h.wait_output(pane, "dsh42")
            assert b"".join(sent) == b"echo dsh$((40+2))\r"
            assert h.app.mode == "prompt"
            inputs = [e["text"] for e in log_events(h.app) if e["type"] == "input"]
            assert inputs == ["echo dsh$((40+2))"]

    run(body)


def test_double_slash_sends_a_literal_slash_line(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.type_line("//x y")
            await h.wait(lambda: b"".join(sent) == b"/x y\r", "//x y to reach the pane as /x y")
            assert h.message == ""

    run(body)


def test_unknown_command_shows_a_message_and_sends_nothing(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.type_line("/frobnicate now")
            await h.wait(lambda: "unknown command /frobnicate" in h.message, "the unknown-command message")
            assert h.app.message is not None and h.app.message.error
            assert "/help" in h.message
            assert sent == [] and not h.task.done()

    run(body)


def test_bad_arguments_show_the_usage(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/focus sideways")
            await h.wait(lambda: "usage: /focus" in h.message, "the usage of /focus")
            h.type_line('/split "unclosed')
            await h.wait(lambda: "quotation" in h.message, "the unbalanced-quote message")
            assert len(h.session.panes) == 1

    run(body)


def test_tab_completes_command_names_and_arguments(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            buffer = h.app.prompt_buffer
            h.send("/fo" + TAB)
            await h.wait(lambda: buffer.text == "/focus", "Tab to complete /fo to /focus")
            h.send(" l")
            await h.wait(
                lambda: buffer.complete_state is not None and buffer.complete_state.completions,
                "argument completions for /focus l",
            )
            assert [c.text for c in buffer.complete_state.completions] == ["left", "last"]
            h.send(TAB)
            await h.wait(lambda: buffer.text == "/focus left", "Tab to complete the argument")

    run(body)


def test_shell_lines_get_no_command_completion(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            buffer = h.app.prompt_buffer
            h.send("fo" + TAB + "!")
            await h.wait(lambda: buffer.text.endswith("!"), "the keys to reach the prompt")
            assert buffer.text == "fo!"

    run(body)


def test_tab_rename_with_a_name(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/tab rename build and test")
            await h.wait(lambda: h.session.tabs.active_tab.title == "build and test", "the tab to be renamed")
            h.type_line("/tab rename")
            await h.wait(lambda: h.app.line.label == "tab name: ", "the question for a name")
            assert h.app.prompt_buffer.text == "build and test"

    run(body)


def test_rename_sets_the_session_title_in_the_log(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/rename fix the 'tab bar'")
            await h.wait(lambda: h.session.title is not None, "the session title")
            assert h.session.title == "fix the tab bar"
            titles = [e["title"] for e in log_events(h.app) if e["type"] == "title"]
            assert titles == ["fix the tab bar"]
            h.type_line("/rename")
            await h.wait(lambda: "usage: /rename TITLE" in h.message, "the usage of /rename")

    run(body)


def test_closing_the_last_pane_ends_the_app_and_closes_the_log(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            terminal = h.pane.terminal
            h.send(C_B + "x" + "y")
            await h.wait(lambda: h.task.done(), "the app to end")
            assert h.task.result().reason == "ended"
            assert h.session.log.closed and not terminal.running
            assert log_events(h.app)[-1]["type"] == "close"

    run(body)


def test_the_last_shell_exiting_ends_the_app_and_closes_the_log(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane_id = h.pane.id
            h.type_line("exit")
            await h.wait(lambda: h.task.done(), "the app to end")
            events = log_events(h.app)
            kinds = [e["type"] for e in events[-3:]]
            assert kinds == ["pane_exited", "pane_closed", "close"] and events[-3]["pane_id"] == pane_id

    run(body)


def test_a_shell_exiting_well_closes_its_pane_and_a_failure_stays_with_its_status(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane.id
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "a second pane")
            second = h.pane.id
            await h.wait(lambda: h.session.panes[second].running, "its shell")
            h.type_line("exit")
            await h.wait(lambda: second not in h.session.panes, "the pane gone with its shell")
            assert h.session.active_pane.id == first and not h.task.done()
            h.type_line("exit 3")
            await h.wait(lambda: not h.session.panes[first].running, "the failed shell")
            assert h.session.panes[first].exit_status == 3 and not h.task.done()  # kept, status shown

    run(body)


def test_remain_on_exit_keeps_every_ended_pane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSH_HOME", os.environ["DSH_HOME"])
    (Path(os.environ["DSH_HOME"]) / "config.toml").write_text("[term]\nremain_on_exit = true\n")

    async def body() -> None:
        async with running_app(tmp_path) as h:
            pane = h.pane
            h.type_line("exit")
            await h.wait(lambda: not pane.running, "the shell to end")
            await asyncio.sleep(0.1)
            assert pane.id in h.session.panes and not h.task.done()

    run(body)


def test_slash_commands_work_from_inside_a_pane_via_the_prefix(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            h.send(C_B + "c")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "C-b c from inside a pane")
            # The new tab's pane is an idle shell: the keyboard follows the focus there, to the prompt.
            await h.wait(lambda: h.app.layout.has_focus(h.app.prompt_window), "the keyboard to follow the focus")
            assert h.app.mode == "prompt"

    run(body)


def test_c_c_clears_the_prompt_line_or_interrupts_the_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send("half typed")
            await h.wait(lambda: h.app.prompt_buffer.text == "half typed", "the typed text")
            h.send("\x03")
            await h.wait(lambda: h.app.prompt_buffer.text == "", "C-c to clear the line")
            h.send("\x03")
            await h.wait(lambda: b"".join(sent) == b"\x03", "C-c on an empty line to reach the pane")

    run(body)


def test_c_d_on_an_empty_prompt_line_reaches_the_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send("ab\x1b[D\x04")  # Left, then C-d deletes the character under the cursor
            await h.wait(lambda: h.app.prompt_buffer.text == "a", "C-d to delete a character")
            h.send("\x15\x04")  # C-u empties the line; now C-d is for the pane
            await h.wait(lambda: b"".join(sent) == b"\x04", "C-d on an empty line to reach the pane")

    run(body)


def test_c_c_cancels_a_question_on_the_prompt(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send(C_B + ",")
            await h.wait(lambda: h.app.line.label == "tab name: ", "the rename question")
            h.send("\x03")
            await h.wait(lambda: h.app.line.label == "dsh› ", "C-c to cancel the question")
            h.send("x\r")
            await h.wait(lambda: b"".join(sent) == b"x\r", "the next line to go to the pane")
            assert h.session.tabs.active_tab.title is None
            assert b"\x03" not in b"".join(sent)

    run(body)


def test_enter_clears_the_prompt_and_up_recalls_the_line(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            buffer = h.app.prompt_buffer
            sent = h.record(h.pane)
            h.type_line("echo one")
            await h.wait(lambda: b"".join(sent) == b"echo one\r", "the line to reach the pane")
            assert buffer.text == ""
            await h.press_until(UP, lambda: buffer.text == "echo one", "Up to recall the line")
            h.send("\r")
            await h.wait(lambda: b"".join(sent) == b"echo one\r" * 2, "the recalled line to be sent again")
            inputs = [e["text"] for e in log_events(h.app) if e["type"] == "input"]
            assert inputs == ["echo one", "echo one"]

    run(body)


def test_prompt_history_is_this_workspaces_first_then_every_workspaces(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.type_line("echo remembered")
            await h.wait(lambda: sent, "the line to reach the pane")
        other = tmp_path / "other"
        other.mkdir()
        async with running_app(other) as h:
            buffer = h.app.prompt_buffer
            sent = h.record(h.pane)
            h.type_line("echo elsewhere")
            await h.wait(lambda: sent, "the line to reach the pane")
            await h.press_until(UP, lambda: buffer.text == "echo elsewhere", "Up to recall this line")
            # This workspace's lines come first; then every other workspace's, newest first.
            h.send(UP + "!")
            await h.wait(lambda: buffer.text.endswith("!"), "the keys to reach the prompt")
            assert buffer.text == "echo remembered!"
        async with running_app(tmp_path) as h:
            buffer = h.app.prompt_buffer
            await h.press_until(UP, lambda: buffer.text == "echo remembered", "Up to recall the old line")

    run(body)


def test_a_line_starting_with_an_existing_path_runs_in_the_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.type_line("/bin/echo path-ran")
            await h.wait_output(h.pane, "path-ran")
            assert b"".join(sent) == b"/bin/echo path-ran\r" and not h.message
            assert any(e["type"] == "input" and e.get("text") == "/bin/echo path-ran" for e in log_events(h.app))

    run(body)


def test_an_unknown_slash_word_names_the_nearest_commands(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.type_line("/splt -h")
            await h.wait(lambda: "unknown command /splt" in h.message, "the unknown-command message")
            assert "did you mean /split" in h.message
            h.type_line("/nosuch/thing")
            await h.wait(lambda: "unknown command /nosuch/thing" in h.message, "the message for a missing path")
            assert sent == [] and len(h.session.panes) == 1

    run(body)


def test_a_grey_suggestion_from_history_and_right_accepts_it(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            buffer = h.app.prompt_buffer
            h.type_line("echo suggest-me-please")
            await h.wait_output(h.pane, "suggest-me-please")
            h.send("echo sug")
            await h.wait(lambda: buffer.suggestion is not None, "a suggestion")
            assert buffer.suggestion.text == "gest-me-please"
            h.send("\x1b[C")  # Right
            await h.wait(lambda: buffer.text == "echo suggest-me-please", "the suggestion accepted")

    run(body)


def test_lines_starting_with_a_space_and_lines_typed_to_a_program_are_not_kept(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line(" echo space-hidden")
            await h.wait_output(h.pane, "space-hidden")
            h.type_line("cat")

            def cat_has_the_keys() -> bool:  # what the prompt asks before it keeps a line
                terminal = h.pane.terminal
                if terminal.screen.shell.state is not None:
                    return not terminal.shell_at_prompt()
                foreground = terminal.foreground_process()
                return foreground is not None and foreground[0] != terminal.pid

            await h.wait(cat_has_the_keys, "cat in the pane's foreground")
            h.type_line("typed-to-cat")
            await h.wait_output(h.pane, "typed-to-cat")
            h.send("\x04")
            await h.wait(lambda: not cat_has_the_keys(), "the shell back in the foreground")
            h.type_line("echo kept-line")
            await h.wait_output(h.pane, "kept-line")
            logged = [e.get("text") for e in log_events(h.app) if e["type"] == "input"]
            assert logged == ["cat", "echo kept-line"]
            stored = h.app.memory.store.load()
            assert stored == ["cat", "echo kept-line"]

    run(body)


def test_tab_completes_a_file_name_in_the_panes_directory(tmp_path: Path) -> None:
    (tmp_path / "module.py").touch()
    (tmp_path / "notes.txt").touch()

    async def body() -> None:
        async with running_app(tmp_path) as h:
            buffer = h.app.prompt_buffer
            h.send("cat mod\t")
            await h.wait(lambda: buffer.text == "cat module.py ", "the file name completed")

    run(body)


@pytest.mark.skipif(
    shutil.which("bash") is None or not os.path.isfile("/usr/share/bash-completion/bash_completion"),
    reason="needs bash and the bash-completion package (CI installs both)",
)
def test_tab_offers_what_the_commands_bash_completion_offers(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            buffer = h.app.prompt_buffer
            h.send("git ch\t")
            await h.wait(lambda: buffer.complete_state is not None, "the completion menu")
            shown = [c.display_text for c in buffer.complete_state.completions]
            assert "checkout" in shown and "cherry-pick" in shown
            h.send("\t")  # Tab walks the menu
            await h.wait(lambda: buffer.text.startswith("git che"), "the first choice on the line")

    run(body)


def test_the_line_editors_kill_ring_is_not_the_paste_buffer_and_a_paste_joins_a_half_typed_line(
    tmp_path: Path,
) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            app = h.app
            app.copy_to_clipboards("copied")  # as copy mode or the mouse would
            sent = h.record(h.pane)
            h.send("draft line\x15")  # C-u clears the line into the line editor's kill ring
            await h.wait(lambda: app.prompt_buffer.text == "", "C-u")
            assert app.paste_buffer.get_data().text == "copied"  # copy mode's buffer untouched
            h.send("\x19")  # C-y yanks the line editor's own kill
            await h.wait(lambda: app.prompt_buffer.text == "draft line", "C-y")
            h.send(" " + C_B + "]")  # prefix ] with a half-typed line: onto the line, not into the pane
            await h.wait(lambda: app.prompt_buffer.text == "draft line copied", "the paste on the prompt")
            assert sent == []
            h.send("\x15" + C_B + "]")  # on an empty prompt it goes to the pane's program, as ever
            await h.wait(lambda: b"copied" in b"".join(sent), "the paste into the pane")

    run(body)


def test_escape_ends_a_search_on_the_line_it_found(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("echo apple-two")
            await h.wait_output(h.pane, "apple-two")
            h.send("\x12" + "apple")
            await h.wait(lambda: h.app.prompt_buffer.text == "echo apple-two", "the match")
            h.send("\x1b")  # Escape: bash keeps the line found, to edit
            await h.wait(lambda: h.app.memory.search is None, "the search to end")
            assert h.app.prompt_buffer.text == "echo apple-two"

    run(body)


def test_a_paste_past_the_prompts_bound_is_cut_there_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.ui import prompt_buffer

    monkeypatch.setattr(prompt_buffer, "PROMPT_MAX", 2 << 20)  # the message names it in MB

    async def body() -> None:
        async with running_app(tmp_path) as h:
            # As a paste's key inserts it (sent through the test's pipe, 2 MB would fill it).
            h.app.prompt_buffer.insert_text("a" * ((2 << 20) + 300))
            await h.wait(lambda: "characters were not added" in h.message, "the line saying what was refused")
            assert h.message == "the prompt holds 2 MB at most: 300 characters were not added"
            assert h.app.prompt_buffer.text == "a" * (2 << 20)

    run(body)
