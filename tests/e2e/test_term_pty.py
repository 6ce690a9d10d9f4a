"""Real programs in a PTY through Terminal on an asyncio loop: output, sizes, alternate screen, failures."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from dsh.term.terminal import Terminal
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow


async def until(cond: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        await asyncio.sleep(0.02)


def run(coro) -> None:
    asyncio.run(coro)


def make(argv: list[str], tmp_path: Path, **kw) -> tuple[Terminal, list[int]]:
    exits: list[int] = []
    term = Terminal(argv, cwd=str(tmp_path), on_exit=exits.append, **kw)
    return term, exits


def text(term: Terminal) -> str:
    return "\n".join(term.text_lines())


def test_printf_colours(tmp_path: Path) -> None:
    async def main() -> None:
        term, exits = make(["printf", r"\033[1;31mred\033[0m \033[38;5;82mgreen\033[0m\n"], tmp_path)
        term.start()
        await until(lambda: exits, "exit")
        row = term.screen.buffer[0]
        assert row[0].data == "r" and row[0].fg == "red" and row[0].bold
        assert row[4].data == "g" and row[4].fg == "82"  # the palette index, kept as such
        assert exits == [0]
        assert "[exited 0]" in text(term)

    run(main())


def test_seq_output_lands_in_history(tmp_path: Path) -> None:
    async def main() -> None:
        term, exits = make(["seq", "1", "3000"], tmp_path)
        term.start()
        await until(lambda: exits, "exit")
        lines = term.text_lines()
        numbers = [line for line in lines if line.isdigit()]
        assert numbers == [str(i) for i in range(1, 3001)]
        assert len(term.screen.history) > 2900

    run(main())


def test_stty_size_follows_resize(tmp_path: Path) -> None:
    async def main() -> None:
        term, exits = make(["sh", "-c", "stty size; read x; stty size"], tmp_path, rows=24, cols=80)
        term.start()
        await until(lambda: "24 80" in text(term), "first size")
        term.resize(30, 100)
        term.write("\r")
        await until(lambda: exits, "exit")
        assert "30 100" in text(term)

    run(main())


def test_less_then_q_leaves_no_residue(tmp_path: Path) -> None:
    if shutil.which("less") is None:
        pytest.skip("less is not installed")
    page = tmp_path / "page.txt"
    page.write_text("".join(f"alpha-{i}\n" for i in range(200)))

    async def main() -> None:
        term, exits = make(
            ["sh", "-c", f"echo before; less {page}; echo after"],
            tmp_path,
            env={"PATH": "/usr/bin:/bin", "LESS": "", "HOME": str(tmp_path)},
        )
        term.start()
        await until(lambda: "alpha-5" in text(term), "less page")
        assert term.alternate_screen
        term.send_key("<any>", "q")
        await until(lambda: exits, "exit")
        assert not term.alternate_screen
        shown = text(term)
        assert "before" in shown and "after" in shown
        assert "alpha" not in shown

    run(main())


def test_vi_round_trip(tmp_path: Path) -> None:
    vi = shutil.which("vi")
    if vi is None:
        pytest.skip("vi is not installed")

    async def main() -> None:
        target = tmp_path / "note.txt"
        term, exits = make(
            ["sh", "-c", f"echo before; {vi} -u NONE -N {target}; echo after"],
            tmp_path,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        )
        term.start()
        await until(lambda: term.alternate_screen and "~" in text(term), "vi screen")
        for ch in "ihello":
            term.send_key("<any>", ch)
        term.send_key("escape")
        for ch in ":wq":
            term.send_key("<any>", ch)
        term.send_key("c-m", "\r")
        await until(lambda: exits, "exit")
        assert target.read_text() == "hello\n"
        shown = text(term)
        assert "before" in shown and "after" in shown and "~" not in shown

    run(main())


def test_missing_command_says_so(tmp_path: Path) -> None:
    async def main() -> None:
        term, exits = make(["no-such-command-dsh-test"], tmp_path)
        term.start()
        assert exits == [127]
        assert term.exit_status == 127 and not term.running
        assert "command not found: no-such-command-dsh-test" in text(term)

    run(main())


def test_missing_cwd_says_so(tmp_path: Path) -> None:
    async def main() -> None:
        exits: list[int] = []
        term = Terminal(["sh"], cwd=str(tmp_path / "gone"), on_exit=exits.append)
        term.start()
        assert exits == [127]
        assert "does not exist" in text(term)

    run(main())


def test_child_that_exits_at_once_keeps_its_output(tmp_path: Path) -> None:
    async def main() -> None:
        term, exits = make(["sh", "-c", "echo quick; exit 5"], tmp_path)
        term.start()
        await until(lambda: exits, "exit")
        assert exits == [5]
        assert term.text_lines()[:2] == ["quick", "[exited 5]"]

    run(main())


def test_cursor_position_query_is_answered(tmp_path: Path) -> None:
    script = (
        "import os, tty; tty.setraw(0); os.write(1, b'ab\\x1b[6n'); "
        "r = os.read(0, 32); os.write(1, b'\\r\\ngot ' + r[1:])"
    )

    async def main() -> None:
        term, exits = make([sys.executable, "-c", script], tmp_path)
        term.start()
        await until(lambda: exits, "exit")
        assert "got [1;3R" in text(term)

    run(main())


def test_flood_does_not_starve_the_loop(tmp_path: Path) -> None:
    async def main() -> None:
        term, exits = make(["sh", "-c", "head -c 6000000 /dev/zero | tr '\\0' x"], tmp_path, scrollback=100)
        fed_when_ticked: list[int] = []
        term.start()

        def tick() -> None:
            fed_when_ticked.append(term.screen.history_pushed)
            if not exits:
                asyncio.get_running_loop().call_later(0.01, tick)

        asyncio.get_running_loop().call_soon(tick)
        await until(lambda: exits, "exit", timeout=60)
        total = term.screen.history_pushed
        assert total > 70_000
        # the loop ran other callbacks many times while output was still arriving
        assert len([n for n in fed_when_ticked if 0 < n < total]) >= 3

    run(main())


def test_kill_is_idempotent_and_stops_the_child(tmp_path: Path) -> None:
    async def main() -> None:
        term, exits = make(["sleep", "30"], tmp_path)
        term.start()
        pid = term.pid
        assert pid and term.running
        term.kill()
        term.kill()
        await until(lambda: term.exit_status is not None, "reaped")
        assert not term.running
        assert exits == []

    run(main())


def test_child_gets_default_sigpipe(tmp_path: Path) -> None:
    async def main() -> None:
        term, exits = make(["sh", "-c", "yes | head -n 2; echo done"], tmp_path)
        term.start()
        await until(lambda: exits, "exit")
        shown = text(term)
        assert "done" in shown
        assert "Broken pipe" not in shown

    run(main())


def test_c_c_interrupts_a_pane_program_even_when_dsh_was_started_ignoring_sigint(tmp_path: Path) -> None:
    # nohup, `trap '' INT` or a test runner may start dsh with SIGINT ignored or blocked; an ignored
    # signal survives exec, and a shell started so keeps it ignored for every command it runs.
    import signal

    async def main() -> None:
        term, exits = make(["sh", "-c", "echo ready; sleep 30; echo after"], tmp_path)
        term.start()
        await until(lambda: "ready" in text(term), "the child to start")
        term.write(b"\x03")
        await until(lambda: exits, "C-c to end the child")
        assert "after" not in text(term)

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGQUIT})
    try:
        run(main())
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def test_synchronized_update_is_drawn_when_it_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dsh.term.terminal.SYNC_TIMEOUT", 60.0)  # only the end of the update may redraw
    script = (
        "import os, sys; os.write(1, b'\\x1b[?2026hpart'); sys.stdin.readline(); "
        "os.write(1, b'whole\\x1b[?2026l'); sys.stdin.readline()"
    )

    async def main() -> None:
        changes: list[str] = []
        term = Terminal([sys.executable, "-c", script], cwd=str(tmp_path), on_change=lambda: changes.append(text(term)))
        term.start()
        await until(lambda: "part" in text(term), "first half")
        assert not any("part" in c for c in changes)  # held back while the update is open
        term.write("\r")
        await until(lambda: any("whole" in c for c in changes), "update drawn")
        term.kill()

    run(main())


def test_history_is_compacted_once_output_is_quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.term.cells import Row

    monkeypatch.setattr("dsh.term.terminal.COMPACT_IDLE", 1.0)  # (after the exit is seen)
    monkeypatch.setattr("dsh.term.terminal.COMPACT_BATCH", 100)
    # one row at a time with cursor addressing, so the rows reach history with cells
    script = "for i in $(seq 1 300); do printf '\\033[24;1H%d\\n' $i; done"

    async def main() -> None:
        term, exits = make(["sh", "-c", script], tmp_path)
        term.start()
        await until(lambda: exits, "exit")
        assert any(type(line) is Row for line in term.screen.history)
        await until(lambda: not any(type(line) is Row for line in term.screen.history), "compaction")
        numbers = [line for line in term.text_lines() if line.isdigit()]
        assert numbers == [str(i) for i in range(1, 301)]

    run(main())


def test_relative_command_runs_from_the_pane_cwd(tmp_path: Path) -> None:
    script = tmp_path / "hello.sh"
    script.write_text("#!/bin/sh\necho hello from script\n")
    script.chmod(0o755)

    async def main() -> None:
        term, exits = make(["./hello.sh"], tmp_path)
        term.start()
        await until(lambda: exits, "exit")
        assert exits == [0]
        assert "hello from script" in text(term)

    run(main())


def test_demo_pane_runs_a_shell_end_to_end(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "xterm-256color", "PS1": "demo$ "}
    driver = PtyDriver([sys.executable, "-m", "dsh.ui.demo", "sh"], env=env, cwd=tmp_path, rows=12, cols=60)
    try:
        driver.wait_for("demo$")
        driver.type_line("printf 'a\\033[32mgreen\\033[0m\\n'; stty size")
        driver.wait_for("11 60")  # the pane is the window minus the status line
        assert "agreen" in driver.text()
        driver.resize(15, 70)
        for _ in range(10):  # the pane takes the new size on the app's next redraw: ask until it has
            driver.type_line("stty size")
            try:
                driver.wait_for("14 70", timeout=2.0)
                break
            except AssertionError:
                continue
        assert "14 70" in driver.text()
        driver.send("\x1d")  # C-] quits the demo
        assert driver.wait_exit() == 0
    finally:
        driver.close()


def test_path_that_is_not_executable_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("just text\n")

    async def main() -> None:
        for argv, message in (
            (["./notes.txt"], "not an executable file: ./notes.txt"),
            (["./missing.sh"], "no such file: ./missing.sh"),
        ):
            term, exits = make(argv, tmp_path)
            term.start()
            assert exits == [127]
            assert message in text(term)

    run(main())


def test_keys_reach_the_child_as_a_terminal_sends_them(tmp_path: Path) -> None:
    """Alt-x in one read, C-h as BS, the keypad in application mode after the child asks for it."""
    script = (
        "import os, tty; tty.setraw(0); os.write(1, b'\\x1b=ready\\r\\n'); "
        "got = [os.read(0, 100) for _ in range(3)]; os.write(1, repr(got).encode() + b'\\r\\n')"
    )

    async def main() -> None:
        term, exits = make([sys.executable, "-c", script], tmp_path)
        term.start()
        await until(lambda: "ready" in text(term), "ready")
        assert term.app_keypad
        term.send_key("escape", "\x1b")
        term.send_key("<any>", "x")
        await asyncio.sleep(0.2)
        term.send_key("c-h", "\x08")
        await asyncio.sleep(0.2)
        term.send_key("kp-1")
        await until(lambda: exits, "exit")
        assert r"[b'\x1bx', b'\x08', b'\x1bOq']" in text(term)

    run(main())


def _bgs(term: Terminal, rows: range) -> set[str]:
    return {cell.bg for y in rows for cell in term.screen.buffer[y]}


def test_printf_cases_of_issue_11(tmp_path: Path) -> None:
    """Background colour erase, line drawing, underline colour, 24-bit and palette colours, as a
    program in the pane prints them."""
    script = (
        r"printf 'ab\r\n\033[44m\033[2J\033[H\033[0m'; "
        r"printf '\033(0lqqk\033(B \033[58;5;196mU\033[0m \033[38;2;18;52;86mT\033[38;5;1mP\033[0m\n'"
    )

    async def main() -> None:
        term, exits = make(["sh", "-c", script], tmp_path, rows=6, cols=20)
        term.start()
        await until(lambda: exits, "exit")
        # every cell of the cleared screen, not only those that held text (row 1 says [exited 0])
        assert _bgs(term, range(2, 6)) == {"blue"}
        assert term.text_lines()[0] == "┌──┐ U TP"
        row = term.screen.buffer[0]
        assert not row[5].blink and row[5].underline_colour == "196"
        assert (row[7].fg, row[8].fg) == ("123456", "red")

    run(main())


def test_vim_with_termguicolors_fills_its_background(tmp_path: Path) -> None:
    """vim with termguicolors and a dark background clears with that background (BCE): no holes
    in the empty lines or after the text."""
    vim = shutil.which("vim")
    if vim is None:
        pytest.skip("vim is not installed")
    target = tmp_path / "note.txt"
    target.write_text("short line\n")

    async def main() -> None:
        term, exits = make(
            [
                vim,
                "-u",
                "NONE",
                "-N",
                "-c",
                "set termguicolors",
                "-c",
                "highlight Normal guifg=#d0d0d0 guibg=#102030",
                str(target),
            ],
            tmp_path,
            rows=10,
            cols=40,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "xterm-256color"},
        )
        term.start()
        await until(lambda: term.alternate_screen and "short line" in text(term), "vim screen")
        await asyncio.sleep(0.5)  # vim draws the highlight after the text
        assert _bgs(term, range(0, 8)) == {"102030"}  # the text rows and the ~ rows, every cell
        assert term.screen.buffer[0][0].fg == "d0d0d0"
        for ch in ":q!":
            term.send_key("<any>", ch)
        term.send_key("c-m", "\r")
        await until(lambda: exits, "exit")

    run(main())


def test_dialog_draws_line_drawing_in_a_c_locale(tmp_path: Path) -> None:
    """ncurses in a non-UTF-8 locale draws boxes with the DEC line-drawing set (ESC ( 0) and
    repeats the line with REP."""
    dialog = shutil.which("dialog")
    if dialog is None:
        pytest.skip("dialog is not installed")

    async def main() -> None:
        term, exits = make(
            [dialog, "--msgbox", "hello there", "8", "30"],
            tmp_path,
            rows=12,
            cols=40,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "xterm-256color", "LC_ALL": "C"},
        )
        term.start()
        await until(lambda: "hello there" in text(term), "dialog box")
        await asyncio.sleep(0.3)
        shown = text(term)
        assert "┌" + "─" * 28 + "┐" in shown
        assert "└" + "─" * 28 + "┘" in shown
        assert "│" in shown
        assert not any(word in shown for word in ("lqq", "qqk", "mqq"))
        assert "blue" in _bgs(term, range(0, 2))  # the screen behind the box, cleared in its colour
        term.send_key("c-m", "\r")
        await until(lambda: exits, "exit")

    run(main())


def test_colours_reach_the_outer_terminal_exactly(tmp_path: Path) -> None:
    """Drawn by the view on a 24-bit terminal: true colour as sent, 256-colour entries as their
    exact colour, palette entries 0-15 as the outer terminal's own palette entries."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "PS1": "demo$ ",
        "COLORTERM": "truecolor",
    }
    driver = PtyDriver([sys.executable, "-m", "dsh.ui.demo", "sh"], env=env, cwd=tmp_path, rows=12, cols=60)
    try:
        driver.wait_for("demo$")
        driver.type_line(
            r"clear; printf '\033[38;2;18;52;86mTRUE\033[0m \033[38;5;208mORANGE\033[0m "
            r"\033[38;5;1mRED\033[0m \033[48;5;12mBLUE\033[0m\n'"
        )
        driver.wait_for("TRUE ORANGE RED BLUE")
        screen = driver.screen
        with driver._lock:
            y = next(y for y in range(12) if "TRUE ORANGE" in screen.display[y])
            row = screen.buffer[y]
            assert row[0].fg == "123456"
            assert row[5].fg == "ff8700"
            assert row[12].fg == "red"  # SGR 31 to the outer terminal, not a fixed RGB
            assert row[16].bg == "brightblue"
        driver.send("\x1d")
        assert driver.wait_exit() == 0
    finally:
        driver.close()
