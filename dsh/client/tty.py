"""The user's terminal for the client: raw mode in and out, and putting it back the way it was."""

from __future__ import annotations

import contextlib
import os
import termios
import tty

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import Any

# What a full-screen view may have left on: mouse reporting, focus events, bracketed paste, the
# alternate screen, application cursor keys and keypad, a hidden cursor or another cursor shape,
# autowrap off (the view draws its rows with it off). Written when a view did not end its own frame:
# the host vanished mid-frame, the stream broke, the client was ended by a signal.
RESET_MODES = (
    "\x1b[?2026l"  # a synchronized update left open
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l"  # mouse
    "\x1b[?1004l\x1b[?2004l"  # focus events, bracketed paste
    "\x1b[?1l\x1b>"  # normal cursor and keypad keys
    "\x1b[0m\x1b[?1049l\x1b[?7h\x1b[?25h\x1b[0 q"  # attributes, main screen, autowrap, cursor shown and shaped
    "\r\n"  # what is said next starts a line of its own
)


class SavedTitle:
    """The terminal's own window title, pushed on its title stack while the client runs (the view sets
    the focused pane's) and popped when it ends (XTWINOPS 22 and 23, as vim and less do; a terminal
    without a title stack ignores both)."""

    SAVE = b"\x1b[22;0t"
    RESTORE = b"\x1b[23;0t"

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> SavedTitle:
        with contextlib.suppress(OSError):
            write_all(self.fd, self.SAVE)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):
            write_all(self.fd, self.RESTORE)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            import select

            select.select([], [fd], [], 1.0)
            continue
        except InterruptedError:
            continue
        view = view[written:]


class RawTerminal:
    """Raw mode on `fd` as prompt_toolkit sets it (no echo, no line editing, no signals from keys, no
    flow control; output processing left alone), undone on exit or on `restore`."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._saved: list[Any] | None = None  # what termios.tcgetattr gave

    def enter(self) -> None:
        try:
            saved = termios.tcgetattr(self.fd)
        except termios.error:
            return
        self._saved = saved
        raw = termios.tcgetattr(self.fd)
        raw[tty.LFLAG] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
        raw[tty.IFLAG] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
        raw[tty.CC][termios.VMIN] = 1
        raw[tty.CC][termios.VTIME] = 0
        with contextlib.suppress(termios.error):
            termios.tcsetattr(self.fd, termios.TCSANOW, raw)

    def restore(self) -> None:
        if self._saved is None:
            return
        with contextlib.suppress(termios.error):
            termios.tcsetattr(self.fd, termios.TCSAFLUSH, self._saved)

    def __enter__(self) -> RawTerminal:
        self.enter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()


def window_size(fd: int) -> tuple[int, int]:
    """(rows, cols) of the terminal on `fd`; 24×80 when it cannot tell."""
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return 24, 80
    return max(1, size.lines), max(1, size.columns)
