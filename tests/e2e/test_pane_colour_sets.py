"""End to end: a program's own colours (OSC 11 background, OSC 4 palette entry) are drawn in its pane:
the bytes the client writes to the user's terminal carry them, and a reset gives the user's back."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

# Run from files, so the typed command's echo holds none of the sequences looked for.
SET = r"printf '\033]11;#204060\007\033]4;1;rgb:00/ff/00\007\033[31mGREENISH\033[0m SETDONE\n'"
RESET = r"printf '\033]111\007\033]104\007RESETDONE\n'"


def _sgr_params(raw: bytes) -> bytes:
    return b" ".join(re.findall(rb"\x1b\[([0-9;:]*)m", raw))


def test_a_panes_osc_11_and_osc_4_sets_reach_the_outer_terminal(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "set.sh").write_text(SET + "\n")
    (work / "reset.sh").write_text(RESET + "\n")
    env = {**dsh_env, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    d = launch(cwd=work, env=env, rows=24, cols=100)
    d.wait_for("PROMPT")
    before = len(d.raw)
    assert b"48;2;32;64;96" not in bytes(d.raw)
    d.type_line("sh set.sh")
    d.wait_for("SETDONE")
    d.wait_until(lambda _: b"48;2;32;64;96" in bytes(d.raw[before:]), what="the set background drawn")
    params = _sgr_params(bytes(d.raw[before:]))
    assert b"38;2;0;255;0" in params  # SGR 31 drawn as the program's palette entry 1, not the terminal's red
    d.wait_until(lambda _: _bg_past(d, "SETDONE") == "204060", what="the row filled in the set background")
    mark = len(d.raw)
    d.type_line("sh reset.sh")
    d.wait_for("RESETDONE")
    d.wait_until(lambda _: _bg_past(d, "RESETDONE") == "default", what="the user's background again")
    assert _bg_past(d, "SETDONE") == "default"  # the whole pane redrawn in the user's colours
    assert b"48;2;32;64;96" not in bytes(d.raw[mark:]).split(b"RESETDONE")[-1]


def _bg_past(d: PtyDriver, text: str) -> str | None:
    """The background of the cell a few columns past the last row showing `text` (None: no such row)."""
    with d._lock:
        rows = [y for y, line in enumerate(d.screen.display) if text in line]
        if not rows:
            return None
        y = rows[-1]
        return d.screen.buffer[y][d.screen.display[y].index(text) + len(text) + 5].bg
