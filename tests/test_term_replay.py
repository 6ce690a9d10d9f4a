"""A replayed tail keeps its text and drops the modes its program set (focus, mouse, paste, alt screen)."""

from __future__ import annotations

from dsh.term.replay import strip_modes
from dsh.term.rows import row_text as line_text
from dsh.term.sequences import BRACKETED_PASTE as MODE_BRACKETED_PASTE
from dsh.term.sequences import FOCUS_EVENTS as MODE_FOCUS_EVENTS
from dsh.term.sequences import MOUSE_NORMAL as MODE_MOUSE_NORMAL
from dsh.term.sequences import MOUSE_SGR as MODE_MOUSE_SGR
from dsh.term.terminal import Terminal

# What Claude Code 2.1.197 left in a pane's tail: focus reporting, bracketed paste, a hidden cursor.
CLAUDE_TAIL = b"\x1b[?1004h\x1b[?2004h\x1b[?25l\x1b[1mhello\x1b[0m\r\n> \x1b[?25h"


def test_strip_modes_drops_program_modes_and_keeps_the_rest() -> None:
    assert strip_modes(CLAUDE_TAIL) == b"\x1b[1mhello\x1b[0m\r\n> "
    assert strip_modes(b"a\x1b[?1049hb\x1b[?1049lc") == b"abc"
    assert strip_modes(b"\x1b[?1000;1006h") == b""
    # Modes a program may set for the terminal as a whole (autowrap, origin) stay, in the same sequence.
    assert strip_modes(b"\x1b[?7;1004h") == b"\x1b[?7h"
    assert strip_modes(b"\x1b=x\x1b>") == b"x"
    assert strip_modes(b"plain text") == b"plain text"
    # A tail cut in the middle of a sequence is left as it is.
    assert strip_modes(b"\x1b[?10") == b"\x1b[?10"


def test_a_replayed_tail_turns_on_no_mode_and_focus_sends_nothing() -> None:
    written: list[bytes] = []
    term = Terminal(["true"], cwd="/", rows=3, cols=20)
    term.write = written.append  # type: ignore[method-assign]
    term.replay(CLAUDE_TAIL + b"\x1b[?1000h\x1b[?1006h\x1b[?1049h")
    for mode in (MODE_FOCUS_EVENTS, MODE_BRACKETED_PASTE, MODE_MOUSE_NORMAL, MODE_MOUSE_SGR):
        assert not term.screen.has_private_mode(mode)
    assert not term.screen.alternate_screen
    term.set_focus(True)
    assert written == []
    assert line_text(term.visible_lines(3)[0], 20).startswith("hello")


def test_feeding_the_same_tail_would_have_turned_focus_reporting_on() -> None:
    term = Terminal(["true"], cwd="/", rows=3, cols=20)
    term.feed(CLAUDE_TAIL)
    assert term.screen.has_private_mode(MODE_FOCUS_EVENTS)
