"""TerminalControl: size follows the layout, lines and cursor, wheel and click, mouse forwarding."""

from __future__ import annotations

from prompt_toolkit.data_structures import Point
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

from dsh.term.terminal import Terminal
from dsh.ui.terminal_control import WHEEL_LINES, TerminalControl


def event(kind: MouseEventType, x: int = 1, y: int = 0) -> MouseEvent:
    return MouseEvent(Point(x=x, y=y), kind, MouseButton.LEFT, frozenset())


def text_of(content, i: int) -> str:
    # The cursor's row is padded with blanks up to the cursor (see _fresh_content): not text.
    return "".join(t for _, t in content.get_line(i)).rstrip(" ")


def test_create_content_resizes_and_shows_lines_and_cursor() -> None:
    term = Terminal(["true"], cwd="/", rows=24, cols=80)
    control = TerminalControl(term)
    term.feed("hello\r\n日本x".encode())
    content = control.create_content(30, 4)
    assert (term.rows, term.cols) == (4, 30)
    assert content.line_count == 4
    assert text_of(content, 0) == "hello"
    assert text_of(content, 1) == "日本x"
    assert content.cursor_position == Point(x=3, y=1)
    # prompt_toolkit draws a cursor only on a character of its row: the row reaches the cursor.
    assert len("".join(t for _, t in content.get_line(1))) > content.cursor_position.x
    assert content.show_cursor
    assert control.is_focusable()


def test_wheel_scrolls_history_and_click_calls_back() -> None:
    clicks: list[int] = []
    term = Terminal(["true"], cwd="/", rows=3, cols=10)
    control = TerminalControl(term, on_click=lambda: clicks.append(1))
    term.feed(b"\r\n".join(b"%d" % i for i in range(20)))
    control.mouse_handler(event(MouseEventType.SCROLL_UP))
    assert term.scroll_offset == WHEEL_LINES
    content = control.create_content(10, 3)
    assert text_of(content, 2) == "16"
    assert not content.show_cursor
    control.mouse_handler(event(MouseEventType.SCROLL_DOWN))
    assert term.scroll_offset == 0
    control.mouse_handler(event(MouseEventType.MOUSE_UP))
    assert clicks == [1]


def test_mouse_is_forwarded_when_the_child_asks() -> None:
    sent: list[str | bytes] = []
    term = Terminal(["true"], cwd="/", rows=3, cols=10)
    term.write = sent.append  # type: ignore[method-assign]
    control = TerminalControl(term)
    term.feed(b"\x1b[?1000h\x1b[?1006h")
    control.mouse_handler(event(MouseEventType.MOUSE_DOWN, x=2, y=1))
    control.mouse_handler(event(MouseEventType.MOUSE_UP, x=2, y=1))
    control.mouse_handler(event(MouseEventType.SCROLL_UP, x=0, y=0))
    assert sent == ["\x1b[<0;3;2M", "\x1b[<0;3;2m", "\x1b[<64;1;1M"]
    assert term.scroll_offset == 0
    sent.clear()
    term.feed(b"\x1b[?1006l")
    control.mouse_handler(event(MouseEventType.MOUSE_DOWN, x=2, y=1))
    assert sent == [b"\x1b[M" + bytes([32, 35, 34])]


def test_wheel_in_alternate_screen_sends_arrow_keys() -> None:
    sent: list[str | bytes] = []
    term = Terminal(["true"], cwd="/", rows=3, cols=10)
    term.write = sent.append  # type: ignore[method-assign]
    control = TerminalControl(term)
    term.feed(b"\r\n".join(b"%d" % i for i in range(20)) + b"\x1b[?1049h\x1b[?1h")
    control.mouse_handler(event(MouseEventType.SCROLL_DOWN))
    assert sent == [b"\x1bOB"] * WHEEL_LINES
    assert term.scroll_offset == 0


def test_a_background_pane_reuses_its_frame_within_the_interval(monkeypatch) -> None:
    import dsh.ui.terminal_control as control_module

    now = [100.0]
    monkeypatch.setattr(control_module.time, "monotonic", lambda: now[0])
    term = Terminal(["true"], cwd="/", rows=3, cols=10)
    interval = [0.1]
    control = TerminalControl(term, refresh_interval=lambda: interval[0])
    term.feed(b"first")
    first = control.create_content(10, 3)
    term.feed(b"\r\nsecond")
    now[0] += 0.05
    again = control.create_content(10, 3)
    assert again is first and text_of(again, 1) == ""  # frozen: the new line waits for the next frame
    now[0] += 0.06
    assert text_of(control.create_content(10, 3), 1) == "second"
    interval[0] = 0.0  # the active pane: every frame is fresh
    term.feed(b"\r\nthird")
    assert text_of(control.create_content(10, 3), 2) == "third"


def test_a_reused_frame_older_than_the_output_is_drawn_again_when_it_may_be() -> None:
    import asyncio

    from prompt_toolkit.application.current import set_app

    class App:
        def __init__(self) -> None:
            self.redraws = 0

        def invalidate(self) -> None:
            self.redraws += 1

    async def main() -> None:
        app = App()
        term = Terminal(["true"], cwd="/", rows=3, cols=10)
        control = TerminalControl(term, refresh_interval=lambda: 0.05)
        with set_app(app):  # type: ignore[arg-type]
            term.feed(b"first")
            control.create_content(10, 3)
            control.create_content(10, 3)  # reused, and nothing new: no redraw asked
            await asyncio.sleep(0.08)
            assert app.redraws == 0
            control.create_content(10, 3)
            term.feed(b"\r\nsecond")  # a background pane's output, just after a frame was drawn
            again = control.create_content(10, 3)
            assert text_of(again, 1) == ""  # the frame is reused...
            await asyncio.sleep(0.08)
            assert app.redraws == 1  # ...and a redraw comes once it may be replaced, key or no key
            assert text_of(control.create_content(10, 3), 1) == "second"

    asyncio.run(main())


def test_an_unchanged_pane_reuses_its_frame_and_new_output_draws_a_new_one() -> None:
    term = Terminal(["true"], cwd="/", rows=3, cols=10)
    control = TerminalControl(term)
    term.feed(b"one")
    first = control.create_content(10, 3)
    assert control.create_content(10, 3) is first  # a key on the prompt redraws; this pane did not change
    term.feed(b"\r\ntwo")
    second = control.create_content(10, 3)
    assert second is not first
    assert text_of(second, 1) == "two"
    term.feed(b"\x1b[?1049h")
    on_alt = control.create_content(10, 3)
    assert text_of(on_alt, 1) == ""
    term.reset_program_modes()  # back to the main screen without a byte fed
    main_again = control.create_content(10, 3)
    assert main_again is not on_alt
    assert text_of(main_again, 1) == "two"
    term.feed(b"\r\n3\r\n4\r\n5")
    control.create_content(10, 3)
    term.scroll_offset = 1
    assert text_of(control.create_content(10, 3), 2) == "4"


def test_output_beside_a_reused_frame_asks_one_redraw_for_when_the_frame_is_due() -> None:
    import asyncio

    async def main() -> None:
        redraws: list[float] = []
        term = Terminal(["true"], cwd="/", rows=3, cols=10)
        control = TerminalControl(term, refresh_interval=lambda: 0.05)
        # No application context: output is read outside it, so the view passes its own invalidate.
        assert control.redraw_when_due(lambda: redraws.append(1)) is False  # nothing drawn: draw now
        term.feed(b"first")
        control.create_content(10, 3)
        for _ in range(5):  # a flood: many reads before the frame is due
            term.feed(b"\r\nmore")
            assert control.redraw_when_due(lambda: redraws.append(1)) is True
        assert redraws == []  # not one redraw per read
        await asyncio.sleep(0.08)
        assert redraws == [1]  # one, when the frame may be replaced
        assert control.redraw_when_due(lambda: redraws.append(1)) is False  # the frame is due: draw now

    asyncio.run(main())


def test_colours_a_program_sets_are_drawn_in_its_pane_and_reset() -> None:
    """OSC 4 changes what a palette entry draws as, OSC 10/11 the default colours (a set background
    fills each row to the pane's width); OSC 104/110/111 give the user's colours back."""
    term = Terminal(["true"], cwd="/", rows=24, cols=80)
    control = TerminalControl(term)
    term.feed(b"\x1b[31mred\x1b[m plain \x1b[38;5;196mhot\x1b[m \x1b[38;2;1;2;3mtrue\x1b[m")
    before = control.create_content(20, 3).get_line(0)
    assert [s for s, _ in before][:5] == ["fg:ansired", "", "fg:#ff0000 [fi:196]", "", "fg:#010203"]
    term.feed(b"\x1b]4;1;#00ff00;196;DarkSlateGray\x07\x1b]10;#111111\x07\x1b]11;rgb:ee/ee/ee\x07")
    line = control.create_content(20, 3).get_line(0)
    assert line == [
        ("bg:#eeeeee fg:#00ff00", "red"),
        ("bg:#eeeeee fg:#111111", " plain "),
        ("bg:#eeeeee fg:#2f4f4f", "hot"),  # drawn as the set colour: no index left to send on
        ("bg:#eeeeee fg:#111111", " "),
        ("bg:#eeeeee fg:#010203", "true"),  # a 24-bit colour is no palette entry
        ("bg:#eeeeee fg:#111111", "  "),  # the set background to the pane's width
    ]
    assert control.create_content(20, 3).get_line(2) == [("bg:#eeeeee fg:#111111", " " * 20)]
    term.feed(b"\x1b]104\x07\x1b]110\x07\x1b]111\x07")
    assert control.create_content(20, 3).get_line(0) == before
