"""OSC 52 from a pane's program: kept for the client's terminal, reads refused, bounded, never from a
replayed tail; passed on by `[term] clipboard` as tmux's set-clipboard."""

from __future__ import annotations

import base64
from types import SimpleNamespace

from dsh.config.model import Config
from dsh.term.replies import CLIPBOARD_WRITES
from dsh.term.screen import TermScreen
from dsh.term.terminal import Terminal
from dsh.ui.clipboard import write_clipboard


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_a_copy_is_kept_and_a_read_is_refused_with_no_reply() -> None:
    replies: list[str] = []
    s = TermScreen(20, 4, write_process_input=replies.append)
    s.feed(f"\x1b]52;c;{b64('hello')}\x07\x1b]52;c;?\x07\x1b]52;;{b64('x')}\x1b\\".encode())
    assert s.clipboard_writes == [("c", b64("hello")), ("", b64("x"))]
    assert replies == []  # nothing of the user's clipboard goes back to the program


def test_garbled_copies_are_dropped_and_only_the_newest_are_kept() -> None:
    s = TermScreen(20, 4)
    s.feed(b"\x1b]52;c;not base64!\x07\x1b]52;zz;aGk=\x07\x1b]52;c\x07")
    assert s.clipboard_writes == []
    for i in range(CLIPBOARD_WRITES + 3):
        s.feed(f"\x1b]52;c;{b64(str(i))}\x07".encode())
    assert [data for _, data in s.clipboard_writes] == [b64(str(i)) for i in range(3, CLIPBOARD_WRITES + 3)]
    s.feed(b"\x1b]52;c;" + b"A" * 70_000 + b"\x07")  # longer than an OSC may be: dropped whole
    assert len(s.clipboard_writes) == CLIPBOARD_WRITES


def test_the_terminal_passes_copies_on_but_not_from_a_replayed_tail(tmp_path) -> None:
    copies: list[tuple[str, str]] = []
    term = Terminal(["true"], cwd=str(tmp_path), on_clipboard=lambda sel, data: copies.append((sel, data)))
    term.replay(f"\x1b]52;c;{b64('old')}\x07".encode())
    assert copies == []
    term.feed(f"\x1b]52;c;{b64('new')}\x07".encode())
    assert copies == [("c", b64("new"))]


class _Output:
    def __init__(self) -> None:
        self.written: list[str] = []
        self.flushed = 0

    def write_raw(self, data: str) -> None:
        self.written.append(data)

    def flush(self) -> None:
        self.flushed += 1


class _Clipboard:
    text: str | None = None

    def set_text(self, text: str) -> None:
        self.text = text


def _app() -> SimpleNamespace:
    return SimpleNamespace(output=_Output(), clipboard=_Clipboard())


def test_clipboard_modes_as_tmuxs_set_clipboard() -> None:
    for mode, sent, buffered in (("external", True, None), ("on", True, "héllo"), ("off", False, None)):
        app = _app()
        write_clipboard(app, Config({"term": {"clipboard": mode}}), "c", b64("héllo"))
        assert app.output.written == ([f"\x1b]52;c;{b64('héllo')}\x07"] if sent else []), mode
        assert app.output.flushed == (1 if sent else 0)
        assert app.clipboard.text == buffered, mode
