"""End to end: every printable key typed in a pane reaches its program, and the outer terminal's
cursor stands where the pane's program put it."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

PRINTABLE = "".join(ch for ch in string.printable if 33 <= ord(ch) <= 126)


@pytest.fixture
def dsh(launch: Launch, dsh_env: dict[str, str], tmp_path: Path) -> PtyDriver:
    work = tmp_path / "proj"
    work.mkdir()
    driver = launch(cwd=work, env=dsh_env, rows=30, cols=120)
    driver.wait_for("PROMPT")
    return driver


def test_all_94_printable_characters_reach_cat(dsh: PtyDriver) -> None:
    assert len(PRINTABLE) == 94
    dsh.type_line("cat -v")
    dsh.wait_until(lambda s: "cat -v" in s, what="cat started")
    if "IN PANE" not in dsh.text():
        dsh.send("\x1d")  # C-]: the keys to the pane
    dsh.wait_for("IN PANE")
    # In pieces of a few characters: as typed, each arrives as its own key.
    for start in range(0, len(PRINTABLE), 8):
        dsh.send(PRINTABLE[start : start + 8])
    dsh.send("\r")
    # cat echoes the line (the terminal's echo) and prints it back: the line twice.
    dsh.wait_until(lambda s: s.count(PRINTABLE) >= 2, what="all 94 characters echoed and printed by cat")


def test_the_cursor_follows_a_shell_prompt(dsh: PtyDriver) -> None:
    dsh.type_line("PS1='ready> '")
    dsh.wait_for("ready> ")

    def after_prompt(_: str) -> bool:
        y, x = dsh.cursor()
        return dsh.lines()[y].rstrip().endswith("ready>") and x == dsh.lines()[y].index("ready>") + len("ready> ")

    if "IN PANE" not in dsh.text():
        dsh.send("\x1d")  # in the pane the terminal's cursor is the pane's
    dsh.wait_for("IN PANE")
    dsh.wait_until(after_prompt, what="the terminal's cursor right after the pane's prompt")
    y, _ = dsh.cursor()
    assert y > 0, "the cursor was drawn on the tab bar"
