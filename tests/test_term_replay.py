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


# What vim 9.0 (-u NONE) drew for a file of three lines in a 6x30 pane, as it wrote it: the alternate
# screen, a scroll region, queries, colour, the cursor home.
VIM_TAIL = (
    b"\x1b[?1049h\x1b[22;0;0t\x1b[>4;2m\x1b[?1h\x1b=\x1b[?2004h\x1b[?1004h\x1b[1;6r\x1b[?12h\x1b[?12l"
    b'\x1b[22;2t\x1b[22;1t\x1b[27m\x1b[23m\x1b[29m\x1b[m\x1b[H\x1b[2J\x1b[?25l\x1b[6;1H"notes.txt" 3L, 34B'
    b"\x1b[2;1H\xbd\x1b[6n\x1b[2;1H  \x1b[3;1H\x1bPzz\x1b\\\x1b[0%m\x1b[6n\x1b[3;1H           \x1b[1;1H\x1b[>c"
    b"\x1b]10;?\x07\x1b]11;?\x07\x1b[1;1Hfirst line\r\nsecond line\x1b[2;12H\x1b[K\x1b[3;1Hthird line\x1b[3;11H"
    b"\x1b[K\x1b[4;1H\x1b[94m~                             \x1b[5;1H~                             \x1b[1;1H"
    b"\x1b[?25h\x1b[?4m"
)


def test_a_new_program_starts_on_a_clean_screen_below_what_the_pane_showed() -> None:
    old = Terminal(["true"], cwd="/", rows=6, cols=30)
    old.replay(b"$ ls\r\nearlier output\r\n$ vim notes\r\n" + VIM_TAIL)  # a restored tombstone
    assert "first line" in old.screen.display[0]
    new = Terminal(["true"], cwd="/", rows=6, cols=30)
    new.continue_below(old)
    assert [line.strip() for line in new.screen.display] == [""] * 6
    assert (new.screen.cursor.y, new.screen.cursor.x) == (0, 0)
    assert new.screen.margins is None and not new.screen.alternate_screen
    history = [line_text(row, 30) for row in new.screen.history]
    assert history[-6:] == ["first line", "second line", "third line", "~", "~", '"notes.txt" 3L, 34B']
    # The tail says the same: replayed on a later restore, it ends on the same clean screen.
    again = Terminal(["true"], cwd="/", rows=6, cols=30)
    again.replay(new.tail())
    assert [line.strip() for line in again.screen.display] == [""] * 6
    assert [line_text(row, 30) for row in again.screen.history][-6:] == history[-6:]


def test_a_pane_resized_since_it_ended_goes_into_history_at_the_new_width() -> None:
    old = Terminal(["true"], cwd="/", rows=4, cols=20)
    old.replay(b"0123456789abcdefghij" + b"KLMNO\r\n")  # wrapped at 20 columns
    new = Terminal(["true"], cwd="/", rows=4, cols=10)
    new.continue_below(old)
    assert [line_text(row, 10) for row in new.screen.history] == ["0123456789", "abcdefghij", "KLMNO"]
    assert [line.strip() for line in new.screen.display] == [""] * 4
