"""Terminal without a child: feeding, tail, callbacks, scrollback view and search."""

from __future__ import annotations

from dsh.term.rows import row_text as line_text
from dsh.term.terminal import Terminal


def make(**kw) -> Terminal:
    return Terminal(["true"], cwd="/", rows=3, cols=10, **kw)


def view(term: Terminal) -> list[str]:
    return [line_text(line, term.cols) for line in term.visible_lines(term.rows)]


def fill(term: Terminal, count: int) -> None:
    term.feed(b"\r\n".join(b"line%d" % i for i in range(count)))


def test_tail_keeps_the_last_bytes() -> None:
    term = make(tail_bytes=8)
    for _ in range(10):
        term.feed(b"0123456789")
    assert term.tail() == b"23456789"


def test_callbacks_for_title_bell_alt_screen_and_cwd() -> None:
    events: list[object] = []
    term = make(
        on_title=lambda t: events.append(("title", t)),
        on_bell=lambda: events.append("bell"),
        on_alt_screen=lambda on: events.append(("alt", on)),
    )
    term.feed(b"\x1b]2;make\x07\x07\x1b[?1049h\x1b[?1049l\x1b]7;file:///srv/x\x07")
    # the alternate screen came and went inside one feed: no change to report
    assert events == [("title", "make"), "bell"]
    assert term.title == "make"
    assert term.attention
    term.attention = False
    assert not term.screen.attention
    assert term.cwd == "/srv/x"


def test_alt_screen_callback_fires_per_feed() -> None:
    events: list[bool] = []
    term = make(on_alt_screen=events.append)
    term.feed(b"\x1b[?1049h")
    term.feed(b"\x1b[?1049l")
    assert events == [True, False]


def test_write_without_a_child_is_harmless() -> None:
    term = make()
    term.write("x")
    term.send_key("up")
    term.paste("text")
    term.resize(5, 20)
    assert (term.rows, term.cols) == (5, 20)
    assert (term.screen.lines, term.screen.columns) == (5, 20)


def test_scroll_by_clamps_and_view_follows_offset() -> None:
    term = make()
    fill(term, 8)  # line0..line4 in history, line5..line7 on screen
    assert view(term) == ["line5", "line6", "line7"]
    term.scroll_by(2)
    assert view(term) == ["line3", "line4", "line5"]
    term.scroll_by(100)
    assert term.scroll_offset == 5
    assert view(term) == ["line0", "line1", "line2"]
    assert term.cursor_in_view(3) is None
    term.scroll_by(-100)
    assert term.scroll_offset == 0
    assert term.cursor_in_view(3) == (5, 2)


def test_scrolled_view_stays_put_while_output_arrives() -> None:
    term = make()
    fill(term, 8)
    term.scroll_by(2)
    term.feed(b"\r\nmore\r\nmore")
    assert view(term) == ["line3", "line4", "line5"]
    term.scroll_to_bottom()
    assert view(term)[-1] == "more"


def test_a_search_match_shows_in_the_view_until_it_goes_back_to_the_bottom() -> None:
    from dsh.term.copymode import CopyMode

    term = Terminal(["true"], cwd="/", rows=2, cols=10)
    term.feed(b"apple\r\nBanana\r\ncherry\r\napple pie\r\nx\r\ny")
    copy = CopyMode(term)
    assert copy.search("apple", forward=False)  # the nearest one above the cursor
    assert term.search_match == (3, 0, 5)
    assert copy.search("apple", forward=False)
    assert term.search_match == (0, 0, 5)
    assert view(term)[0] == "apple"
    assert term.match_in_view(2) == (0, 0, 5)
    assert copy.search("banana", forward=True)  # lower-case query matches any case
    assert term.search_match == (1, 0, 6)
    assert copy.search("pie", forward=True)
    assert term.search_match == (3, 6, 3)
    assert view(term) == ["cherry", "apple pie"]
    term.scroll_to_bottom()
    assert term.search_match is None


def test_text_lines_include_history() -> None:
    term = make()
    fill(term, 5)
    assert term.text_lines() == ["line0", "line1", "line2", "line3", "line4"]


def test_replayed_tail_draws_the_same_screen() -> None:
    term = make()
    term.feed(b"\x1b[32mok\x1b[0m\r\n\x1b[6nnext")  # the query must not crash without a child
    again = make()
    again.feed(term.tail())
    assert view(again) == view(term)


def test_alternate_screen_does_not_scroll_into_main_history() -> None:
    term = make()
    fill(term, 8)
    term.feed(b"\x1b[?1049h\x1b[Hvim")
    term.scroll_by(3)
    assert term.scroll_offset == 0
    assert view(term)[0] == "vim"
    term.feed(b"\x1b[?1049l")
    term.scroll_by(3)
    assert view(term) == ["line2", "line3", "line4"]


def test_focus_events_only_when_asked() -> None:
    sent: list[str | bytes] = []
    term = make()
    term.write = sent.append  # type: ignore[method-assign]
    term.set_focus(True)
    assert sent == []
    term.feed(b"\x1b[?1004h")
    term.set_focus(True)
    term.set_focus(False)
    assert sent == [b"\x1b[I", b"\x1b[O"]


def test_a_failing_callback_does_not_break_the_feed() -> None:
    def boom(*_args: object) -> None:
        raise RuntimeError("ui bug")

    term = make(on_title=boom, on_bell=boom, on_change=boom)
    term.feed(b"\x1b]2;t\x07\x07after")
    term._changed()
    assert view(term)[0] == "after"
    assert term.title == "t"


def test_one_callback_reads_no_more_than_the_read_budget() -> None:
    import asyncio
    import os as _os

    term = Terminal(["true"], cwd="/", rows=5, cols=40, tail_bytes=1 << 20)
    r, w = _os.pipe()
    try:
        _os.set_blocking(r, False)
        _os.write(w, b"x" * 60000)
        term._fd = r
        term._loop = asyncio.new_event_loop()
        term.read_budget = 8192
        term._on_readable()
        assert len(term.tail()) == 8192
        term._on_readable()
        assert len(term.tail()) == 16384
    finally:
        term._fd = None
        term._loop.close()
        _os.close(r)
        _os.close(w)


def test_a_paused_reader_waits_after_a_full_read_and_then_reads_on() -> None:
    import asyncio
    import os as _os

    async def main() -> list[int]:
        term = Terminal(["true"], cwd="/", rows=5, cols=40, tail_bytes=1 << 20)
        r, w = _os.pipe()
        _os.set_blocking(r, False)
        _os.write(w, b"x" * 60000)  # a flood: far more than one budget is waiting
        loop = asyncio.get_running_loop()
        term._fd, term._loop = r, loop
        term.read_budget, term.read_pause = 8192, 0.05
        loop.add_reader(r, term._on_readable)
        seen = []
        try:
            for _ in range(3):
                await asyncio.sleep(0.03)
                seen.append(len(term.tail()))
            await asyncio.sleep(1.0)
            seen.append(len(term.tail()))
        finally:
            term._close_fd()
            _os.close(w)
        return seen

    seen = asyncio.run(main())
    # One budget, then nothing for the pause (without it, the loop would read all 60,000 at once)...
    assert seen[0] == 8192 and seen[1] <= 16384
    # ...and it reads on after each pause until the flood is drained.
    assert seen[-1] == 60000


def test_alt_key_reaches_the_child_in_one_write(monkeypatch) -> None:
    import asyncio

    writes: list[bytes] = []

    def fake_write(fd: int, data: bytes) -> int:
        writes.append(bytes(data))
        return len(data)

    monkeypatch.setattr("dsh.term.terminal.os.write", fake_write)

    async def main() -> None:
        term = make()
        term._fd = 99  # as if a child were attached
        term._loop = asyncio.get_running_loop()
        term.send_key("escape", "\x1b")  # prompt_toolkit's Alt-x: Escape, then x, in one batch
        term.send_key("<any>", "x")
        assert writes == [b"\x1bx"]
        term.send_key("escape", "\x1b")  # a lone Escape goes out on the next loop iteration
        assert writes == [b"\x1bx"]
        await asyncio.sleep(0)
        assert writes == [b"\x1bx", b"\x1b"]
        term._fd = None

    asyncio.run(main())


def test_the_times_lines_were_sent_are_kept(monkeypatch) -> None:
    """An agent dates a session it begins at a prompt; the pane that sent a line just then began it."""
    monkeypatch.setattr("dsh.term.terminal.os.write", lambda fd, data: len(data))
    monkeypatch.setattr("dsh.term.terminal.time.time", lambda: 1234.5)
    term = make()
    term.write(b"no line yet")
    assert list(term.sent) == []  # no child: nothing is sent at all
    term._fd = 99  # as if a child were attached
    term.write(b"typed, not sent")
    assert list(term.sent) == []
    term.write(b"fix the bug\r")
    term.paste("two\rlines\r")
    assert list(term.sent) == [1234.5, 1234.5]
    for _ in range(40):
        term.write(b"\r")
    assert len(term.sent) == term.sent.maxlen  # only the latest are kept
    term._fd = None
