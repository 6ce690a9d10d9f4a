"""End to end: dsh asks its terminal for its colours once, never waits for them, takes the answers out
of the keys, and a pane's program asking for the background gets the terminal's own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch

pytestmark = pytest.mark.slow

ASK = (
    "import os,sys,termios,tty,select;fd=0;old=termios.tcgetattr(fd);tty.setraw(fd);"
    "os.write(1,b'\\033]11;?\\033\\\\');r=select.select([fd],[],[],5)[0];got=os.read(fd,100) if r else b'';"
    "termios.tcsetattr(fd,termios.TCSADRAIN,old);print('GOT',got[5:23].decode())"
)


def test_a_panes_background_query_gets_the_terminals_own(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "ask.py").write_text(ASK)
    d = launch(cwd=work, env=dsh_env, rows=24, cols=100)
    d.wait_for("PROMPT")  # the first frame came without an answer
    d.wait_until(lambda _: b"\x1b]11;?" in d.raw, what="the question to the terminal")
    d.send("\x1b]10;rgb:1111/2222/3333\x1b\\\x1b]11;rgb:fafa/f0f0/e6e6\x1b\\")  # a light terminal answers
    d.type_line(f"{sys.executable} ask.py")
    d.wait_for("GOT rgb:fafa/f0f0/e6e6")
    assert "rgb:1111" not in d.lines()[-1] and d.lines()[-1].strip() == "dsh›"  # nothing typed on the prompt
