"""End to end: dsh inside a real tmux draws combining marks, VS16 emoji, flags and ZWJ sequences cell
for cell as tmux draws them in a pane of its own, keeps the border beside them, and puts the outer
terminal's cursor where tmux puts it."""

from __future__ import annotations

import base64
import shlex
from pathlib import Path

import pytest

from tests.test_term_widths import STRINGS
from tests.tmuxserver import TmuxServer

pytestmark = pytest.mark.slow

TAIL = "x\u26a0\ufe0f\U0001f1eb\U0001f1f7e\u0301"  # printed last, without a newline: the cursor after it


def test_dsh_in_tmux_draws_what_tmux_draws_and_keeps_its_border(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    tmux = TmuxServer(env={**dsh_env, "SHELL": "/bin/sh"})
    try:
        tmux.start("dsh", shlex.join(dsh_cmd), 80, 24, cwd=str(work))
        tmux.wait("dsh's prompt", lambda: "PROMPT" in "\n".join(tmux.screen("dsh")))
        tmux.keys("dsh", "C-b", "%")
        tmux.wait("the split", lambda: "▶ p2" in tmux.screen("dsh")[1])
        tmux.keys("dsh", "C-b", "Left")
        tmux.wait("the left pane focused", lambda: "▶ p1" in tmux.screen("dsh")[1])
        header = next(y for y, line in enumerate(tmux.screen("dsh")) if "▶ p1" in line)
        border = tmux.screen("dsh")[header + 1].index("│")  # (ASCII before it: the column)
        width = border  # the left pane's columns

        # (not a ZWJ between narrow characters: tmux 3.3a draws that one way in its pane and another
        # when it comes from dsh's writer, which places the cursor after the cell itself)
        lines = [text for text in STRINGS if not text.startswith("x\u200d")]
        lines += ["x" * (width - 1) + "e\u0301", "x" * (width - 2) + "\u26a0\ufe0f"]
        (work / "probe.txt").write_text("".join(line + "\n" for line in lines) + TAIL)
        # tmux's own drawing, in a pane as wide as dsh's with the border drawn after each line
        (work / "ref.txt").write_text("".join(f"{line}\x1b[{width + 1}G│\n" for line in lines) + TAIL)
        tmux.start("ref", "cat ref.txt; exec sleep 600", width + 1, 24, cwd=str(work))
        tmux.keys("dsh", "clear; cat probe.txt; sleep 600", literal=True)
        tmux.keys("dsh", "Enter")
        tmux.wait("the probe drawn", lambda: "sleep" in tmux.screen("dsh")[0])
        tmux.keys("dsh", "C-]")  # the keyboard (and the terminal's cursor) into the pane
        tmux.wait("in the pane", lambda: "IN PANE" in "\n".join(tmux.screen("dsh")))
        # (a ZWJ that joins nothing is invisible: tmux drops it or keeps it elsewhere)
        # and dsh draws a no-break space as a space, where tmux passes it on
        ref = [line.replace("\u200d", "").replace("\xa0", " ") for line in tmux.screen("ref")]

        def shown() -> list[str]:
            return [line.replace("\u200d", "") for line in tmux.screen("dsh")]

        def drawn_alike() -> bool:
            screen = shown()
            rows = screen[header + 1 : header + 1 + len(lines)]
            return all(row.startswith(want) for row, want in zip(rows, ref, strict=False))

        try:
            tmux.wait("every row as tmux draws it, the border in its place", drawn_alike)
        except AssertionError:
            pass  # which row differs, below
        screen = shown()
        for i, want in enumerate(ref[: len(lines)]):
            assert screen[header + 1 + i].startswith(want), (lines[i], screen[header + 1 + i], want)
        x, y = tmux.cursor("ref")
        tmux.wait("the cursor after the last line", lambda: tmux.cursor("dsh") == (x, y + header + 1))
    finally:
        tmux.kill()


def test_a_programs_osc_52_copy_lands_in_the_outer_tmuxs_buffer(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    tmux = TmuxServer(env={**dsh_env, "SHELL": "/bin/sh"})
    try:
        tmux.start("dsh", shlex.join(dsh_cmd), 80, 24, cwd=str(work))
        tmux.run("set-option", "-s", "set-clipboard", "on")  # tmux takes OSC 52 into a buffer
        tmux.wait("dsh's prompt", lambda: "PROMPT" in "\n".join(tmux.screen("dsh")))
        encoded = base64.b64encode("copied from a pane ✓".encode()).decode()
        # a read first: refused, so nothing of the clipboard reaches the program
        tmux.keys("dsh", f"printf '\\033]52;c;?\\007\\033]52;c;{encoded}\\007'; echo printed", literal=True)
        tmux.keys("dsh", "Enter")
        tmux.wait("the printf run", lambda: "printed" in "\n".join(tmux.screen("dsh")[2:]))

        def buffer() -> str:
            try:
                return tmux.run("show-buffer")
            except RuntimeError:  # no buffer yet
                return ""

        tmux.wait("the copy in tmux's buffer", lambda: buffer() == "copied from a pane ✓")
    finally:
        tmux.kill()
