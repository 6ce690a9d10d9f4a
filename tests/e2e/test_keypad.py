"""End to end: a program in application keypad mode (DECKPAM) gets the keypad's SS3 keys from the user's
terminal, which dsh puts in that mode while the keys go to that pane, and back in numeric mode after."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

# Asks for application keypad mode, reads raw bytes up to a ".", prints them in hex and ends.
PROGRAM = r"""
import os, termios, tty
old = termios.tcgetattr(0)
tty.setraw(0)
os.write(1, b"\x1b=KEYPAD READY\r\n")
data = b""
while not data.endswith(b"."):
    data += os.read(0, 100)
termios.tcsetattr(0, termios.TCSADRAIN, old)
print("GOT", data.hex())
"""


def _keys_to(d: PtyDriver, where: str) -> None:
    """The keys where `where` says (the status line's mode): the foreground rule moves them when a
    program starts or ends, a moment later; C-] only if it has not."""
    try:
        d.wait_for(where, timeout=3)
    except AssertionError:
        d.send("\x1d")
        d.wait_for(where)


def test_keypad_keys_reach_a_program_in_application_keypad_mode(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "kp.py").write_text(PROGRAM)
    d = launch(cwd=work, env=dsh_env, rows=24, cols=100)
    d.wait_for("PROMPT")
    start = len(d.raw)
    d.type_line(f"{sys.executable} kp.py")
    d.wait_for("KEYPAD READY")
    _keys_to(d, "IN PANE")
    d.wait_until(lambda _: b"\x1b=" in d.raw[start:], what="the terminal put in application keypad mode")
    # The keys an outer terminal in that mode sends: KP1, KP Enter, KP-, then "." typed.
    d.send("\x1bOq")
    d.send("\x1bOM")
    d.send("\x1bOm")
    d.send(".")
    d.wait_for("GOT " + (b"\x1bOq\x1bOM\x1bOm.").hex())
    d.wait_until(lambda s: s.count("\n#") >= 2, what="the shell's prompt again")
    _keys_to(d, "PROMPT")
    back = d.raw.rindex(b"\x1b=")
    d.wait_until(lambda _: b"\x1b>" in d.raw[back:], what="the terminal back in numeric keypad mode")
    # A keypad key still in application form (sent before the terminal took the change) types its digit.
    d.send("\x1bOr\x1bOs")
    d.wait_until(lambda _: d.lines()[-1].rstrip().endswith("23"), what="the digits on dsh's prompt")
