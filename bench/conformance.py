"""A differential conformance run against tmux: targeted probes of control sequences (screen and cursor
compared with a tmux pane fed the same bytes), the width strings of tests/test_term_widths.py, and the
reports programs ask for (answered or not, dsh beside tmux). Prints one line per probe and the counts.

    python bench/conformance.py [--verbose]      # needs tmux (apt-get install tmux)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dsh.term import widths  # noqa: E402
from dsh.term.drawing import CHARSETS  # noqa: E402
from dsh.term.screen import TermScreen  # noqa: E402
from tests.test_term_widths import STRINGS  # noqa: E402
from tests.tmuxserver import TmuxServer  # noqa: E402

COLUMNS, ROWS = 30, 8
E = "\x1b"

# (name, bytes): drawn from a cleared screen, the cursor home.
SCREEN_PROBES: list[tuple[str, str]] = [
    ("CUP and text", f"{E}[3;5Hxy"),
    ("CUF past the margin", f"ab{E}[99Cc"),
    ("CUB past column 1", f"abc{E}[99Dd"),
    ("pending wrap then CR", "x" * COLUMNS + "\rY"),
    ("autowrap off", f"{E}[?7l" + "x" * (COLUMNS + 5) + f"Z{E}[?7h"),
    ("IRM insert", f"abcdef{E}[1;3H{E}[4hXY{E}[4l"),
    ("ICH", f"abcdef{E}[1;2H{E}[2@"),
    ("DCH", f"abcdef{E}[1;2H{E}[2P"),
    ("ECH", f"abcdef{E}[1;2H{E}[3X"),
    ("EL 0, 1, 2", f"abcdef\r\nabcdef\r\nabcdef{E}[1;3H{E}[K{E}[2;3H{E}[1K{E}[3;3H{E}[2K"),
    ("ED 0", f"aaaa\r\nbbbb\r\ncccc{E}[2;2H{E}[J"),
    ("ED 1", f"aaaa\r\nbbbb\r\ncccc{E}[2;2H{E}[1J"),
    (
        "IL and DL in a region",
        "".join(f"{E}[{i};1Hline{i}" for i in range(1, 7)) + f"{E}[2;5r{E}[3;1H{E}[L{E}[5;1H{E}[M{E}[r",
    ),
    ("scrolling region", f"{E}[2;4r" + "".join(f"{E}[4;1H\n{i}" for i in range(5)) + f"{E}[r"),
    ("RI at the top", f"top{E}[1;1H{E}M{E}Mnew"),
    ("IND and NEL", f"a{E}Db{E}Ec"),
    ("tab stops", f"{E}[3g{E}[1;5H{E}H{E}[1;12H{E}H\r\tA\tB{E}[1;20H{E}[ZC"),
    ("CHT and CBT", f"\r{E}[2Ia{E}[Zb"),
    ("REP", f"x{E}[4b"),
    ("DECALN", f"{E}#8"),
    ("DECSC and DECRC", f"{E}[2;3H{E}7{E}[5;5Hfar{E}8near"),
    ("DECRC leaves autowrap", f"{E}7{E}[?7l{E}8" + "x" * (COLUMNS + 3) + f"Z{E}[?7h"),
    ("SU and SD", f"a\r\nb\r\nc{E}[2S{E}[1T"),
    ("DEC line drawing", f"{E}(0lqqk\r\nx  x\r\nmqqj{E}(B"),
    ("wide character at the last column", "x" * (COLUMNS - 1) + "\u4e2d!"),
    ("origin mode", f"{E}[3;6r{E}[?6h{E}[1;1HO{E}[?6l{E}[r"),
    ("BS at column 1", "\b\bx"),
    ("VPA and HPA", f"{E}[4dv{E}[10`h"),
    ("CNL and CPL", f"{E}[3;5Ha{E}[2Eb{E}[1Fc"),
    ("selective erase", f'{E}[1"qPROT{E}[0"qfree{E}[1;1H{E}[?2K'),
    ("SGR colours and reset", f"{E}[31;44mred{E}[0m plain"),
    ("DECSTR soft reset", f"{E}[?7l{E}[4h{E}[!pabc" + "x" * COLUMNS),
    *((f"width: {text!r}", text + f"{E}[20G#\r\n" + text) for text in STRINGS),
]

# (name, query): is it answered at all (the replies differ by design: each names itself).
REPLY_PROBES: list[tuple[str, str]] = [
    ("DA1", f"{E}[c"),
    ("DA2", f"{E}[>c"),
    ("DSR 5", f"{E}[5n"),
    ("CPR", f"{E}[6n"),
    ("DECXCPR", f"{E}[?6n"),
    ("DECRQM ?7", f"{E}[?7$p"),
    ("XTVERSION", f"{E}[>q"),
    ("XTWINOPS 14", f"{E}[14t"),
    ("XTWINOPS 16", f"{E}[16t"),
    ("XTWINOPS 18", f"{E}[18t"),
    ("XTWINOPS 19", f"{E}[19t"),
    ("DECRQSS SGR", f"{E}P$qm{E}\\"),
    ("DECRQSS DECSCUSR", f"{E}P$q q{E}\\"),
    ("DECRQCRA", f"{E}[1;1;1;1;2;2*y"),
    ("OSC 10 query", f"{E}]10;?{E}\\"),
    ("OSC 4 query", f"{E}]4;1;?{E}\\"),
]

# A program for a tmux pane: the query from argv in raw mode, then what came back (repr) for a moment.
_ASK = """
import os, sys, termios, tty, select, time
fd = sys.stdin.fileno(); old = termios.tcgetattr(fd); tty.setraw(fd)
os.write(1, bytes.fromhex(sys.argv[1])); got = b""; end = time.time() + 0.5
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r: got += os.read(fd, 1024)
termios.tcsetattr(fd, termios.TCSADRAIN, old)
print("REPLY", repr(got), flush=True)
time.sleep(60)
"""


_ACS_LETTERS = {ord(glyph): code for code, glyph in CHARSETS["0"].items() if glyph != " "}


def ours(data: str) -> tuple[list[str], tuple[int, int]]:
    screen = TermScreen(COLUMNS, ROWS)
    screen.feed(data.encode())
    # (tmux's capture shows DEC line drawing as the letters that were sent: so are dsh's read here)
    lines = [line.rstrip().translate(_ACS_LETTERS) for line in screen.display]
    return lines, (screen.cursor.x, screen.cursor.y)  # (x == COLUMNS: a wrap pending, as tmux says too)


def answered_by_dsh(query: str) -> bool:
    replies: list[str] = []
    TermScreen(COLUMNS, ROWS, write_process_input=replies.append).feed(query.encode())
    return bool(replies)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    tmux = TmuxServer()
    widths.configure("auto", {"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": tmux.version()})
    agree = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        try:
            for i, (_, data) in enumerate(SCREEN_PROBES):
                (work / f"{i}.txt").write_bytes(data.encode())
                tmux.start(f"s{i}", f"stty -onlcr; cat {i}.txt; exec sleep 600", COLUMNS, ROWS, cwd=tmp)
            (work / "ask.py").write_text(_ASK)
            for i, (_, query) in enumerate(REPLY_PROBES):
                tmux.start(f"r{i}", f"{sys.executable} ask.py {query.encode().hex()}", COLUMNS, ROWS, cwd=tmp)
            time.sleep(1.5)
            print(
                f"tmux {tmux.version()}, {COLUMNS}x{ROWS}, emoji widths {'wide' if widths.wide_emoji() else 'narrow'}"
            )
            print("\nscreen probes (screen and cursor, dsh's emulator against a tmux pane):")
            for i, (name, data) in enumerate(SCREEN_PROBES):
                theirs = [line.rstrip().replace("\u200d", "") for line in tmux.screen(f"s{i}")]
                lines, cursor = ours(data)
                lines = [line.replace("\u200d", "") for line in lines]
                same = lines == theirs and cursor == tmux.cursor(f"s{i}")
                agree += same
                print(f"  {'same ' if same else 'DIFF '} {name}")
                if not same and args.verbose:
                    print(f"      dsh  {cursor} {lines}\n      tmux {tmux.cursor(f's{i}')} {theirs}")
            print(f"\n{agree} of {len(SCREEN_PROBES)} screen probes agree with tmux")
            dsh_answers = tmux_answers = 0
            print("\nreports (answered at all):")
            for i, (name, query) in enumerate(REPLY_PROBES):
                screen = "\n".join(tmux.screen(f"r{i}"))
                theirs_answered = "REPLY b''" not in screen and "REPLY" in screen
                mine = answered_by_dsh(query)
                dsh_answers += mine
                tmux_answers += theirs_answered
                print(f"  dsh {'yes' if mine else 'no '}  tmux {'yes' if theirs_answered else 'no '}  {name}")
            print(f"\nreports answered: dsh {dsh_answers} of {len(REPLY_PROBES)}, tmux {tmux_answers}")
        finally:
            tmux.kill()
    print(f"(load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
