"""End to end, tmux habits round two: the layout keys, break and kill-tab from the prefix, and /start-all
after a kill -9 of the host. The installed dsh in a real PTY, its screen read with pyte."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hosts import kill_host, wait_saved

pytestmark = pytest.mark.slow

ROWS, COLS = 30, 100
C_B = "\x02"


def header_columns(screen: str) -> dict[str, tuple[int, int]]:
    """Where each pane's header starts: pane id -> (row, column)."""
    found = {}
    for row, line in enumerate(screen.splitlines()):
        for pane in ("p1", "p2", "p3"):
            for marker in (f"▶ {pane} ", f"  {pane} "):
                col = line.find(marker)
                if col >= 0:
                    found[pane] = (row, col)
    return found


def test_layout_keys_break_and_kill_tab(launch: Launch, dsh_env: dict[str, str], tmp_path: Path) -> None:
    d = launch(cwd=tmp_path, env=dsh_env, rows=ROWS, cols=COLS)
    d.wait_for("PROMPT")
    d.send(C_B + "%")
    d.wait_for("▶ p2")
    d.send(C_B + "%")
    d.wait_for("▶ p3")
    d.send(C_B + "\x1b2")  # C-b M-2: even-vertical, stacked at full width
    screen = d.wait_for("layout even-vertical")
    d.wait_until(
        lambda s: {c for _r, c in header_columns(s).values()} == {0} and len(header_columns(s)) == 3,
        what="three stacked panes",
    )
    rows = sorted(r for r, _c in header_columns(d.text()).values())
    assert rows[0] == 1 and rows[1] - rows[0] == rows[2] - rows[1]  # even: as tmux spreads 25 rows
    d.send(C_B + " ")  # next: main-horizontal, p1 across the top and the others side by side below
    d.wait_for("layout main-horizontal")
    d.wait_until(
        lambda s: (
            len(header_columns(s)) == 3
            and header_columns(s)["p2"][0] == header_columns(s)["p3"][0]
            and header_columns(s)["p3"][1] > 0
        ),
        what="main-horizontal drawn",
    )
    d.send(C_B + "!")  # break the active pane (p3) to a tab of its own
    screen = d.wait_until(lambda s: " 1:" in s.splitlines()[0], what="a second tab")
    assert "▶ p3" in screen and "p1" not in screen
    d.send(C_B + "&")  # an idle shell: the tab closes without a question
    screen = d.wait_until(lambda s: " 1:" not in s.splitlines()[0] and "p1" in s, what="back to one tab")
    assert "p3" not in screen


def test_start_all_after_a_kill_starts_every_restored_pane_and_reruns_nothing(
    launch: Launch, dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    d = launch(cwd=work, env=dsh_env, rows=ROWS, cols=COLS)
    d.wait_for("PROMPT")
    d.type_line("sh -c 'echo ran >> runs.txt; echo long-job; sleep 300'")
    d.wait_for("long-job")
    d.type_line("/split -h")
    d.wait_for("▶ p2")
    d.type_line("/new")
    d.wait_until(lambda s: " 1:" in s.splitlines()[0], what="second tab")
    d.type_line("echo third-pane")
    d.wait_for("\nthird-pane")
    wait_saved(dsh_home, b"third-pane", b"long-job", b'sleep 300"')
    (log,) = (dsh_home / "sessions").glob("*/*.jsonl")
    kill_host(dsh_home)
    d.wait_exit()

    r = launch(f"--resume={log.stem}", cwd=work, env=dsh_env, rows=ROWS, cols=COLS)
    screen = r.wait_for("RESTORED")
    assert "M-R: start all" in screen
    r.send("\x1bR")  # M-R
    r.wait_for("started 3 panes")
    r.type_line("echo fresh-$((6*7))")
    r.wait_for("\nfresh-42")
    r.type_line("/tab select 0")
    screen = r.wait_until(lambda s: s.count("LIVE") >= 2 and "RESTORED" not in s, what="tab 0's panes live")
    assert "M-r" not in screen  # the offer to run the command again went with the fresh shell
    r.type_line("cat runs.txt; echo cat-done")
    screen = r.wait_for("cat-done\n")
    assert (work / "runs.txt").read_text() == "ran\n"  # the saved command never ran again


def test_session_keys_go_to_the_previous_next_and_last_session(
    launch: Launch, dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    first = launch(cwd=tmp_path, env=dsh_env, rows=ROWS, cols=COLS)
    first.wait_for("PROMPT")
    first.type_line("echo in-first; sleep 300")  # busy: leaving it keeps it running
    first.wait_for("\nin-first")
    first.send(C_B + "d")
    assert first.wait_exit() == 0
    d = launch(cwd=tmp_path, env=dsh_env, rows=ROWS, cols=COLS)
    d.wait_for("PROMPT")
    d.type_line("echo in-second; sleep 300")
    d.wait_for("\nin-second")
    with pytest.raises(AssertionError):
        d.wait_for("in-first", timeout=0.2)
    d.send(C_B + "(")  # the previous running session: the first (ids begin with their start time)
    d.wait_for("\nin-first", timeout=20)
    d.send(C_B + "L")  # the last one: where this client came from
    d.wait_until(lambda s: "\nin-second" in s and "\nin-first" not in s, timeout=20, what="back")
    d.send(C_B + ")")  # next, wrapping around: the first again
    d.wait_until(lambda s: "\nin-first" in s, timeout=20, what="the first again")
