"""Deterministic terminal output (log text, seq, colour listings, full-screen frames) for bench and tests."""

from __future__ import annotations

import random
from collections.abc import Callable

COLS = 120
ROWS = 40

_WORDS = (
    "request handler worker cache miss hit upstream timeout retry build compile link test passed failed "
    "module package import session resume pane layout token stream buffer flush index query commit"
).split()


def plain(size: int, seed: int = 1) -> bytes:
    """Build-log style ASCII lines (some longer than the screen, so they wrap), CRLF-terminated."""
    rnd = random.Random(seed)
    out: list[bytes] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        words = " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(4, 24)))
        level = rnd.choice(("INFO", "INFO", "DEBUG", "WARN"))
        stamp = f"2026-11-29 20:{n // 60 % 60:02d}:{n % 60:02d}.{n % 1000:03d}"
        line = f"{stamp} {level} worker[{n % 17}]: {words}"
        data = line.encode() + b"\r\n"
        out.append(data)
        total += len(data)
    return b"".join(out)


def seq(size: int, seed: int = 1) -> bytes:
    """What `seq 1 N` prints through a PTY."""
    out: list[bytes] = []
    total = 0
    i = 0
    while total < size:
        i += 1
        data = b"%d\r\n" % i
        out.append(data)
        total += len(data)
    return b"".join(out)


_LS_STYLES = ("01;34", "01;32", "0", "01;36", "00;33", "01;31", "38;5;208", "38;2;255;128;0", "1;4;35")


def colour(size: int, seed: int = 1) -> bytes:
    """`ls --color` style listings plus grep-like highlighted lines (16, 256 and true colour)."""
    rnd = random.Random(seed)
    out: list[bytes] = []
    total = 0
    while total < size:
        if rnd.random() < 0.5:
            cells = []
            for _ in range(6):
                name = rnd.choice(_WORDS) + rnd.choice(("", ".py", ".txt", "/", ".so", ".tar.gz"))
                style = rnd.choice(_LS_STYLES)
                cells.append(f"\x1b[0m\x1b[{style}m{name}\x1b[0m" + " " * (18 - len(name)))
            line = "".join(cells)
        else:
            word = rnd.choice(_WORDS)
            line = (
                f"\x1b[35msrc/{rnd.choice(_WORDS)}.py\x1b[m\x1b[36m:\x1b[m\x1b[32m{rnd.randint(1, 999)}"
                f"\x1b[m\x1b[36m:\x1b[m    def \x1b[01;31m\x1b[K{word}\x1b[m\x1b[K(self, value) -> None:"
            )
        data = line.encode() + b"\r\n"
        out.append(data)
        total += len(data)
    return b"".join(out)


def frames(size: int, seed: int = 1) -> bytes:
    """Full-screen redraws in the alternate screen: an htop-like meter frame and a vim-like buffer
    with a status line, cursor positioning, erase-to-end-of-line and a scrolling region."""
    rnd = random.Random(seed)
    out: list[bytes] = [b"\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"]
    total = 0
    frame = 0
    while total < size:
        frame += 1
        parts: list[str] = ["\x1b[H"]
        if frame % 2:
            for row in range(1, ROWS - 1):
                used = rnd.randint(0, 60)
                parts.append(
                    f"\x1b[{row};1H\x1b[1m{row:3d}\x1b[0m\x1b[36m[\x1b[32m{'|' * used}"
                    f"\x1b[31m{'|' * (used // 4)}\x1b[0m{' ' * (75 - used - used // 4)}"
                    f"\x1b[36m]\x1b[0m {rnd.randint(0, 99):3d}.{rnd.randint(0, 9)}%\x1b[K"
                )
            parts.append(f"\x1b[{ROWS};1H\x1b[30;46mF1\x1b[0mHelp  \x1b[30;46mF10\x1b[0mQuit\x1b[K")
        else:
            parts.append(f"\x1b[1;{ROWS - 2}r\x1b[{ROWS - 2};1H")
            for _ in range(rnd.randint(1, 5)):
                parts.append("\r\n" + " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(1, 12))))
            parts.append("\x1b[r")
            for row in range(1, 11):
                words = " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(0, 10)))
                parts.append(
                    f"\x1b[{row};1H\x1b[33m{row:4d} \x1b[m\x1b[38;5;{rnd.randint(16, 231)}m{words}\x1b[m\x1b[K"
                )
            parts.append(
                f"\x1b[{ROWS - 1};1H\x1b[7m main.py [+]  {frame},1  Top\x1b[K\x1b[0m"
                f"\x1b[{ROWS};1H-- INSERT --\x1b[K\x1b[{rnd.randint(1, 10)};{rnd.randint(1, 60)}H"
            )
        data = "".join(parts).encode()
        out.append(data)
        total += len(data)
    out.append(b"\x1b[?25h\x1b[?1049l")
    return b"".join(out)


def unicode(size: int, seed: int = 1) -> bytes:
    """Short lines of accented, combining, CJK and emoji text (never cut at the right edge)."""
    rnd = random.Random(seed)
    pieces = ("café", "naïve", "e\u0301", "日本語", "中文字", "한국어", "😀", "→", "│", "─", "ü", "Ω")
    out: list[bytes] = []
    total = 0
    while total < size:
        line = " ".join(rnd.choice(pieces + tuple(_WORDS)) for _ in range(rnd.randint(1, 8)))
        data = line.encode() + b"\r\n"
        out.append(data)
        total += len(data)
    return b"".join(out)


def wide_colour(rows: int, cols: int = 200, seed: int = 1) -> bytes:
    """`rows` lines of coloured words filling `cols` columns each (16, 256 and 24-bit colours)."""
    rnd = random.Random(seed)
    out: list[bytes] = []
    for _ in range(rows):
        parts: list[str] = []
        width = 0
        while True:
            word = rnd.choice(_WORDS)
            if width + len(word) + 1 > cols:
                break
            parts.append(f"\x1b[{rnd.choice(_LS_STYLES)}m{word}\x1b[0m ")
            width += len(word) + 1
        out.append("".join(parts).encode() + b"\r\n")
    return b"".join(out)


STREAMS: dict[str, Callable[[int], bytes]] = {
    "plain": plain,
    "seq": seq,
    "colour": colour,
    "frames": frames,
    "unicode": unicode,
}


def make_streams(size: int) -> dict[str, bytes]:
    """Every stream, each about `size` bytes."""
    return {name: make(size) for name, make in STREAMS.items()}
