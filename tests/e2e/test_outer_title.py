"""End to end: the user's terminal's title follows the focused pane's title (a program's OSC 2 as its
header shows it), and the terminal's own title comes back when dsh ends (its title stack)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch

pytestmark = pytest.mark.slow


def test_the_focused_panes_title_reaches_the_terminal_and_its_own_comes_back(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "title.sh").write_text("printf '\\033]2;%s\\007' 'build:''watch'; echo titled\n")
    d = launch(cwd=work, env=dsh_env, rows=24, cols=100)
    d.wait_for("PROMPT")
    raw = bytes(d.raw)
    assert b"\x1b[22;0t" in raw and raw.index(b"\x1b[22;0t") < raw.index(b"\x1b]2;")  # its own title saved first
    d.type_line("sh title.sh")
    d.wait_for("\ntitled")
    d.wait_until(lambda _: b"\x1b]2;build:watch\x07" in d.raw, what="the pane's title set on the terminal")
    # A new pane (focused) has its own title: the terminal's follows it.
    at = len(d.raw)
    d.send("\x02%")
    d.wait_for("▶ p2")
    d.wait_until(lambda _: re.search(rb"\x1b\]2;(?!build:watch)[^\x07]+\x07", d.raw[at:]), what="p2's title")
    d.send("\x02d")  # detach
    assert d.wait_exit() == 0
    raw = bytes(d.raw)
    assert raw.rindex(b"\x1b[23;0t") > raw.rindex(b"\x1b]2;")  # and put back after the last title set


def test_with_set_title_off_the_terminal_s_title_is_left_alone(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "title.sh").write_text("printf '\\033]2;%s\\007' 'build:''watch'; echo titled\n")
    d = launch("-o", "ui.set_title=false", cwd=work, env=dsh_env, rows=24, cols=100)
    d.wait_for("PROMPT")
    d.type_line("sh title.sh")
    d.wait_for("\ntitled")
    d.wait_for("build:watch")  # the pane's header has it
    d.send("\x02d")
    assert d.wait_exit() == 0
    assert b"\x1b]2;" not in bytes(d.raw)
