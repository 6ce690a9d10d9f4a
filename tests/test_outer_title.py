"""The user's terminal's title follows the focused pane's (ui/outer_title.py), never a program's escapes."""

from __future__ import annotations

from types import SimpleNamespace

from dsh.ui.outer_title import TitleMirror


def test_the_title_is_written_when_it_changes_and_only_as_text() -> None:
    written: list[str] = []
    app = SimpleNamespace(output=SimpleNamespace(write_raw=written.append))
    title = ["vim notes.txt"]
    mirror = TitleMirror(lambda: title[0])
    mirror.before_render(app)
    mirror.before_render(app)
    assert written == ["\x1b]2;vim notes.txt\x07"]
    title[0] = "evil\x07\x1b]52;c;AAAA\x07"  # a title that would end the OSC and start another
    mirror.before_render(app)
    assert "\x07\x1b" not in written[-1][4:-1] and written[-1].count("\x07") == 1
    assert written[-1].startswith("\x1b]2;evil^G^[")


def test_with_set_title_off_the_terminal_keeps_its_own_title() -> None:
    from dsh.ui.outer_title import OWN_TITLE

    written: list[str] = []
    app = SimpleNamespace(output=SimpleNamespace(write_raw=written.append))
    title: list[str | None] = [None]
    mirror = TitleMirror(lambda: title[0])
    mirror.before_render(app)
    assert written == []  # off from the start: nothing sent, ever
    title[0] = "vim notes.txt"  # turned on by /reload
    mirror.before_render(app)
    title[0] = None  # and off again: the terminal's own title comes back from its stack
    mirror.before_render(app)
    mirror.before_render(app)
    assert written == ["\x1b]2;vim notes.txt\x07", OWN_TITLE]
