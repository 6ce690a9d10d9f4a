"""OSC 133 marks from a shell with dsh's integration: at its prompt or running, the last status, prompts."""

from __future__ import annotations

from dsh.term.screen import TermScreen

PROMPT = b"\x1b]133;A\x07$ \x1b]133;B\x07"


def test_the_marks_say_where_the_shell_is_and_how_the_command_ended() -> None:
    screen = TermScreen(40, 5)
    assert screen.shell.state is None  # no integration: nothing known
    screen.feed(PROMPT)
    assert screen.shell.state == "command" and screen.shell.status is None
    screen.feed(b"make\r\n\x1b]133;C\x07")
    assert screen.shell.state == "running"
    screen.feed(b"building\r\nerror\r\n\x1b]133;D;2\x07" + PROMPT)
    assert screen.shell.state == "command" and screen.shell.status == 2
    screen.feed(b"true\r\n\x1b]133;C\x07\x1b]133;D;0\x07\x1b]133;A\x07")
    assert screen.shell.state == "prompt" and screen.shell.status == 0


def test_prompt_rows_count_from_the_start_so_scrolling_keeps_them_right() -> None:
    screen = TermScreen(20, 3, scrollback=100)
    screen.feed(PROMPT + b"ls\r\n\x1b]133;C\x07a\r\nb\r\nc\r\n\x1b]133;D;0\x07" + PROMPT)
    first, second = screen.shell.prompt_rows
    assert first == 0 and second == 4
    # The second prompt's row, found in history plus the screen, is the one that shows it.
    rows = [*(screen.history), *(screen.buffer)]
    offset = screen.history_pushed - len(screen.history)
    assert "$" in "".join(cell.data for cell in rows[second - offset][:2])


def test_an_unknown_or_broken_mark_changes_nothing() -> None:
    screen = TermScreen(20, 3)
    screen.feed(b"\x1b]133;Z\x07\x1b]133;D;x\x07")
    assert screen.shell.state is None and screen.shell.status is None and screen.shell.count == 1
