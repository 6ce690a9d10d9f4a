"""End to end, what a tmux user reaches for on day one: mouse selection and border drag, copy mode's vi
keys, a restored pane that starts clean and offers its command again, and the small things (a tab named
after its program, synchronized input, 24-bit colour, `exit` closing a pane, a completion menu that
leaves nothing behind). The installed dsh in a real PTY, its screen read with pyte."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hosts import kill_host, wait_saved
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

ROWS, COLS = 30, 100
C_B = "\x02"


@pytest.fixture
def dsh(launch: Launch, dsh_env: dict[str, str], tmp_path: Path) -> Launch:
    work = tmp_path / "proj"
    work.mkdir()

    def start(*args: str, env: dict[str, str] | None = None, rows: int = ROWS, cols: int = COLS) -> PtyDriver:
        driver = launch(*args, cwd=work, env=env or dsh_env, rows=rows, cols=cols)
        driver.wait_for("PROMPT")
        return driver

    return start


def mouse(kind: str, x: int, y: int) -> str:
    """What a terminal with SGR mouse reporting sends for a press, a drag (button held) or a release
    at 0-based cell (x, y)."""
    code, final = {"press": (0, "M"), "drag": (32, "M"), "release": (0, "m")}[kind]
    return f"\x1b[<{code};{x + 1};{y + 1}{final}"


def at_prompt(line: str, text: str) -> bool:
    """`text` on the shell's line, after sh's prompt ($, or # for root)."""
    return line in (f"$ {text}", f"# {text}")


def osc52(text: str) -> bytes:
    return b"\x1b]52;c;" + base64.b64encode(text.encode())


def test_a_mouse_drag_copies_exactly_those_cells_and_a_border_drag_resizes_both_panes(dsh) -> None:
    d = dsh()
    d.type_line("printf '%s\\n' 0123456789ABCDEF")
    d.wait_for("\n0123456789ABCDEF")
    row = next(r for r, line in enumerate(d.lines()) if line == "0123456789ABCDEF")  # the output, not the command
    x = 0
    d.send(mouse("press", x + 3, row) + mouse("drag", x + 6, row) + mouse("drag", x + 11, row))
    d.send(mouse("release", x + 11, row))
    d.wait_for("copied 9 characters")
    assert osc52("3456789AB") in d.raw  # the outer terminal's clipboard too
    d.type_line("/paste")  # typed into the shell's line
    d.wait_until(
        lambda s: any(at_prompt(line, "3456789AB") for line in s.splitlines()), what="exactly those characters pasted"
    )
    d.type_line("")  # (dash runs them: not found)

    d.send(C_B + "%")
    # (a frame arrives in pieces: the headers' row can be read before the rows under it)
    d.wait_until(lambda s: "▶ p2" in s and "│" in s.splitlines()[3], what="the split drawn")
    border = d.lines()[3].index("│")
    left, right = border, COLS - border - 1
    d.send(mouse("press", border, 10) + mouse("drag", border - 4, 10) + mouse("drag", border - 10, 12))
    d.send(mouse("release", border - 10, 12))
    d.wait_until(lambda s: s.splitlines()[3].find("│") == border - 10, what="the border where it was dropped")
    height = ROWS - 4  # the tab bar, the pane header, the status line, the prompt line
    d.type_line("stty size")
    d.wait_for(f"{height} {right + 10}")
    d.send(C_B + "\x1b[D")  # C-b Left
    d.wait_for("▶ p1")
    d.type_line("clear; stty size")
    d.wait_for(f"{height} {left - 10}")


def test_copy_mode_w_e_v_y_copies_a_word(dsh) -> None:
    d = dsh()
    d.type_line("echo alpha bravo charlie")
    d.wait_for("\nalpha bravo charlie")
    d.send(C_B + "[")
    d.wait_for("COPY")
    d.send("k0wvey")  # up to the output, its start, the next word, select to its end, copy
    d.wait_for("copied 5 characters")
    assert osc52("bravo") in d.raw
    d.wait_for("PROMPT")
    d.type_line("/paste")
    d.wait_until(lambda s: any(at_prompt(line, "bravo") for line in s.splitlines()), what="the word pasted")


def test_a_restored_vim_pane_starts_clean_and_a_restored_command_runs_again_on_its_key(
    dsh, dsh_home: Path, tmp_path: Path
) -> None:
    if shutil.which("vim") is None:
        pytest.skip("vim is not installed (apt-get install vim)")
    work = tmp_path / "proj"
    (work / "notes.txt").write_text("vim-line-one\nvim-line-two\n")
    d = dsh()
    d.type_line("sh -c 'echo rerun-$((6*7)); sleep 300'")
    d.wait_for("rerun-42")
    d.send(C_B + '"')  # stacked: full-width headers
    d.wait_for("▶ p2")
    d.type_line("vim -u NONE -n notes.txt")
    d.wait_for("vim-line-two")
    # `"notes.txt"` at a line's end is the last word of vim's saved command in snapshot.json (indent=1);
    # `"notes.txt"` alone is also vim's own message line in the tail, which let the host be killed
    # before the command was saved (seen once in a full run on a loaded machine).
    wait_saved(dsh_home, b"vim-line-two", b'"notes.txt"\n', b'sleep 300"')
    (log,) = (dsh_home / "sessions").glob("*/*.jsonl")
    kill_host(dsh_home)
    d.wait_exit()

    r = dsh(f"--resume={log.stem}")
    screen = r.wait_for("M-r: run vim -u NONE -n notes.txt")  # the exact argv, before anything runs
    assert "vim-line-one" in screen  # its saved screen, as a tombstone
    r.send("\r")  # Enter: a fresh shell
    # (the pane's header is redrawn with the fresh shell: on a loaded machine a frame can fall between)
    r.wait_until(lambda s: "vim-line-one" not in s and "▶ p2" in s, what="vim's screen gone from the pane")
    header = next(y for y, line in enumerate(r.lines()) if "▶ p2" in line)
    # The fresh shell's prompt first: keys typed before it would be echoed ahead of it.
    r.wait_until(lambda s: s.splitlines()[header + 1].rstrip() in ("$", "#"), what="the fresh shell's prompt")
    r.type_line("echo fresh-$((1+1))")
    r.wait_for("fresh-2")
    body = r.lines()[header + 1 :]
    assert at_prompt(body[0], "echo fresh-$((1+1))") and body[1] == "fresh-2"  # from the top of a clean screen
    r.send(C_B + "\x1b[A")  # C-b Up: the other restored pane
    hint = "M-r: run sh -c 'echo rerun-$((6*7)); sleep 300'"
    screen = r.wait_until(lambda s: "▶ p1" in s and hint in s, what="the other pane, with its hint")
    assert screen.count("rerun-42") == 1  # its tail only: it does not run by itself
    r.send("\x1br")  # M-r
    r.wait_until(lambda s: "▶ p1 sh   LIVE" in s and "rerun-42" in s, what="the command run again")
    body = r.lines()[2:]
    # typed into a fresh shell, on a clean screen: its old run went into history
    assert "sh -c 'echo rerun-$((6*7)); sleep 300'" in body[0] and "rerun-42" in body[1]


def test_program_named_tabs_sync_truecolour_exit_and_a_menu_that_leaves_nothing(dsh, dsh_env) -> None:
    d = dsh(env={**dsh_env, "COLORTERM": "truecolor"})
    status = d.lines()[-2]
    d.send("/s")
    d.wait_for("/sessions")
    d.send("\x15")  # C-u: the menu goes
    d.wait_until(lambda s: "/sessions" not in s and s.splitlines()[-2] == status, what="the status line as it was")
    assert not any("/split" in line for line in d.lines())

    d.type_line("printf '\\033[38;2;18;52;86mTRUECOLOUR\\033[0m\\n'")
    d.wait_for("\nTRUECOLOUR")
    assert b"38;2;18;52;86" in d.raw  # 24-bit to the outer terminal, as the child wrote it

    d.send(C_B + "%")
    d.wait_for("▶ p2")
    d.type_line("/sync on")
    d.wait_for("[S]")
    d.type_line("echo synced-$((20+22))")
    d.wait_until(lambda s: s.count("synced-42") == 2, what="the line typed into both panes")
    d.type_line("/sync off")
    d.wait_until(lambda s: "[S]" not in s, what="sync off")
    d.type_line("exit")
    d.wait_until(lambda s: "p2" not in s and "▶ p1" in s, what="exit to close its pane")

    d.type_line("sleep 100")
    d.wait_until(lambda s: s.splitlines()[0].split() == ["0:sleep"], what="the tab named after its program")
