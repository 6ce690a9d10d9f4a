"""End to end: the installed dsh in a real PTY, read with pyte, driven by keys as a person would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hosts import host_pid
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    return work


@pytest.fixture
def dsh(launch: Launch, dsh_env: dict[str, str], workdir: Path) -> Launch:
    def start(
        *args: str, rows: int = 30, cols: int = 100, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> PtyDriver:
        driver = launch(*args, cwd=cwd or workdir, env=env or dsh_env, rows=rows, cols=cols)
        driver.wait_for("PROMPT")
        return driver

    return start


def session_logs(home: Path) -> list[Path]:
    return sorted((home / "sessions").glob("*/*.jsonl"))


def read_events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_line_from_prompt_runs_in_the_pane(dsh) -> None:
    d = dsh()
    d.type_line("echo hello-$((40+2))")
    d.wait_for("hello-42")
    assert "PROMPT" in d.text()


def test_split_focus_zoom_close(dsh) -> None:
    d = dsh()
    d.type_line("echo left-pane")
    d.wait_for("left-pane")
    d.type_line("/split -h")
    d.wait_for("▶ p2")
    d.type_line("echo right-pane")
    d.wait_for("right-pane")
    # Both panes side by side: their outputs share screen rows.
    rows = [line for line in d.lines() if "left-pane" in line and "right-pane" in line]
    assert rows, d.text()
    d.type_line("/focus left")
    d.wait_for("▶ p1")
    d.type_line("/zoom")
    d.wait_until(lambda s: "right-pane" not in s, what="zoomed pane hiding the other")
    assert "[Z]" in d.lines()[0]  # the tab bar says the tab is zoomed
    d.type_line("/zoom")
    d.wait_for("right-pane")
    d.type_line("/focus right")
    d.wait_for("▶ p2")
    d.type_line("/close")
    d.wait_until(lambda s: "p2" not in s and "▶ p1" in s, what="pane p2 closed")


def test_prefix_keys_split_and_move(dsh) -> None:
    d = dsh()
    d.send("\x02%")  # C-b % : side by side
    d.wait_for("▶ p2")
    d.send("\x02\x1b[D")  # C-b Left
    d.wait_for("▶ p1")
    d.send("\x1b[1;3C")  # Alt+Right, no prefix
    d.wait_for("▶ p2")
    d.send('\x02"')  # C-b " : stacked
    d.wait_for("▶ p3")
    d.send("\x02?")
    d.wait_for("Keys (prefix C-b")
    screen = d.text()
    assert "/split -h" in screen and "/focus left" in screen
    d.send("q")
    d.wait_for("PROMPT")


def test_less_takes_the_keyboard_and_leaves_no_residue(dsh, workdir: Path) -> None:
    (workdir / "notes.txt").write_text("".join(f"line-{i:03d} of the notes\n" for i in range(200)))
    d = dsh()
    d.type_line("less notes.txt")
    d.wait_for("line-000 of the notes")
    d.wait_for("IN PANE")
    d.send(" ")  # a key typed now goes to less: next page
    d.wait_until(lambda s: "line-000" not in s and "line-030" in s, what="less paging")
    d.send("q")
    d.wait_for("PROMPT")
    d.wait_until(lambda s: "of the notes" not in s, what="less leaving no residue")


def test_resize_outer_terminal(dsh) -> None:
    d = dsh(rows=30, cols=100)
    d.resize(40, 120)
    time.sleep(0.3)
    d.type_line("stty size")
    # The pane is the screen minus tab bar, status, prompt and the pane header.
    d.wait_for("36 120")
    d.resize(12, 50)
    time.sleep(0.3)
    d.type_line("clear; stty size")
    d.wait_for("8 50")


def test_tiny_terminal_does_not_crash(dsh) -> None:
    d = dsh(rows=30, cols=100)
    d.resize(5, 15)
    d.wait_for("too small")
    d.resize(30, 100)
    d.type_line("echo still-alive")
    d.wait_for("still-alive")


def test_unknown_command_and_bad_arguments(dsh) -> None:
    d = dsh()
    d.type_line("/frobnicate")
    d.wait_for("unknown command /frobnicate")
    d.type_line("/focus sideways")
    d.wait_for("/focus left|right|up|down|next|prev")
    d.type_line("//etc/hostname-is-not-a-command")
    d.wait_for("/etc/hostname-is-not-a-command")


def test_quit_leaves_a_session_log(dsh, dsh_home: Path) -> None:
    d = dsh()
    d.type_line("echo logged-line")
    d.wait_for("logged-line")
    d.type_line("/rename my title")
    d.wait_for("my title")
    d.type_line("/quit")
    assert d.wait_exit() == 0
    logs = session_logs(dsh_home)
    assert len(logs) == 1
    events = read_events(logs[0])
    assert events[0]["type"] == "session" and os.path.isabs(events[0]["cwd"])
    kinds = [e["type"] for e in events]
    assert {"type": "input", "text": "echo logged-line"}.items() <= next(
        e for e in events if e["type"] == "input"
    ).items()
    assert "title" in kinds and "pane_opened" in kinds and kinds[-1] == "close"


def test_flood_does_not_starve_the_prompt(dsh) -> None:
    d = dsh()
    d.type_line("seq 1 200000")
    time.sleep(0.2)
    d.type_line("/rename answered-under-flood")
    d.wait_for("answered-under-flood", timeout=15)
    d.wait_for("200000", timeout=60)


def test_sigterm_to_the_host_closes_the_session_cleanly(dsh, dsh_home: Path) -> None:
    d = dsh()
    d.type_line("echo before-term")
    d.wait_for("before-term")
    os.kill(host_pid(dsh_home), signal.SIGTERM)
    assert d.wait_exit() == 0
    events = read_events(session_logs(dsh_home)[0])
    assert events[-1]["type"] == "close"
    snapshots = list((dsh_home / "state").glob("*/snapshot.json"))
    assert snapshots, "SIGTERM must leave a fresh snapshot"


def test_last_shell_exiting_ends_dsh(dsh, dsh_home: Path) -> None:
    d = dsh()
    d.type_line("exit")
    d.wait_exit()
    events = read_events(session_logs(dsh_home)[0])
    assert events[-1]["type"] == "close"


def test_without_a_terminal_is_a_clear_error(dsh_cmd, dsh_env, workdir) -> None:
    proc = subprocess.run(
        dsh_cmd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=dsh_env,
        cwd=workdir,
        timeout=30,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("dsh: needs a terminal")
    assert "Traceback" not in proc.stderr


def test_a_hostile_directory_name_is_shown_escaped(dsh, tmp_path: Path) -> None:
    hostile = tmp_path / "proj\x1b[2Jcleared"
    hostile.mkdir()
    d = dsh(cwd=hostile)
    screen = d.text()
    assert "proj^[[2Jcleared" in screen  # shown, not obeyed: the screen was not cleared by it
    d.type_line("/quit")
    d.wait_exit()


def test_a_hostile_stored_title_is_shown_escaped(dsh, dsh_home: Path) -> None:
    d = dsh()
    d.type_line("/quit")
    d.wait_exit()
    (log,) = session_logs(dsh_home)
    with log.open("a") as f:  # as if another program had written it
        f.write(json.dumps({"type": "title", "at": "2026-11-29T00:00:00.000Z", "title": "\x1b]0;evil\x07ok"}) + "\n")
    r = dsh(f"--resume={log.stem}")
    r.wait_for("^[]0;evil^Gok")


def test_mouse_off_in_config_leaves_the_terminal_alone(dsh, dsh_home: Path) -> None:
    on = dsh()
    on.type_line("/quit")
    on.wait_exit()
    assert b"\x1b[?1000h" in on.raw  # mouse reporting asked of the outer terminal by default
    (dsh_home / "config.toml").write_text("[ui]\nmouse = false\n")
    off = dsh()
    off.type_line("/quit")
    off.wait_exit()
    assert b"\x1b[?1000h" not in off.raw and b"\x1b[?1006h" not in off.raw


def test_an_internal_error_is_one_line_and_a_log_not_a_traceback(dsh_env, dsh_home: Path, workdir: Path) -> None:
    import sys

    script = (
        "import dsh.ui.app as a\n"
        "async def broken(self):\n"
        "    raise RuntimeError('simulated bug')\n"
        "a.DshApp.run_async = broken\n"
        "from dsh.cli import main\n"
        "raise SystemExit(main([]))\n"
    )
    d = PtyDriver([sys.executable, "-c", script], env=dsh_env, cwd=workdir)
    try:
        assert d.wait_exit() == 1
        screen = d.flowed()
        assert "dsh: internal error: RuntimeError: simulated bug" in screen
        assert "the session runs on: dsh attach" in screen  # a bug in the view ends the client only
        assert "Traceback" not in screen
        (host_log,) = (dsh_home / "log").glob("host-*.log")
        assert "simulated bug" in host_log.read_text()
    finally:
        d.close()


def test_a_config_syntax_error_is_shown_and_dsh_carries_on(dsh, dsh_home: Path) -> None:
    (dsh_home / "config.toml").write_text("[ui\nprefix = 'c-a'\n")
    d = dsh(cols=200)
    screen = d.wait_for("config.toml:1")
    assert "syntax error" in screen
    d.type_line("echo carried-on")
    d.wait_for("carried-on")


def test_a_long_line_keeps_the_prompt_label_in_view(dsh) -> None:
    d = dsh(rows=14, cols=100)
    d.type_line("echo " + "x" * 130)
    d.wait_for("x" * 90)
    d.send("echo hi")
    d.wait_until(lambda s: s.splitlines()[-1].startswith("dsh› echo hi"), what="the label before the new line")
    d.send("\x15\x1b[A")  # C-u, then Up: the long line comes back whole, wrapped under the label
    d.wait_until(lambda s: any(line.startswith("dsh› echo xxx") for line in s.splitlines()), what="recalled line")


def test_no_split_when_there_is_no_room(dsh) -> None:
    d = dsh(rows=16, cols=40)
    for _ in range(8):
        d.send("\x02%")
        time.sleep(0.1)
    d.wait_for("no space for a new pane")
    header = d.lines()[1]
    assert header.count("│") < 7, header  # refused before the panes got too narrow to use


def test_pane_ids_are_not_reused(dsh) -> None:
    d = dsh()
    d.type_line("/split")
    d.wait_for("▶ p2")
    d.type_line("/close")
    d.wait_until(lambda s: "p2" not in s, what="p2 closed")
    d.type_line("/split")
    d.wait_for("▶ p3")


def test_quit_asks_first_while_a_program_runs(dsh) -> None:
    d = dsh()
    d.type_line("sleep 300")
    time.sleep(0.5)
    d.type_line("/quit")
    d.wait_for("End them and quit? y quits")
    d.send("n")  # one key answers, as tmux's confirm-before
    d.wait_for("not quitting")
    assert d.proc.isalive()
    d.type_line("/quit")
    d.wait_for("y quits")
    d.send("y")
    assert d.wait_exit() == 0


def test_messages_and_a_growing_prompt_never_resize_the_panes(dsh) -> None:
    d = dsh(rows=24, cols=100)
    d.type_line("trap 'echo GOT-WINCH' WINCH; stty size")
    d.wait_for("20 100")  # 24 rows less the tab bar, the pane header, the status and prompt lines
    for n in range(10):
        d.type_line(f"/rename title-{n}")
        d.wait_for(f"session renamed: title-{n}")
    d.send("\x1b[200~first pasted line\nsecond pasted line\nthird pasted line\x1b[201~")
    d.wait_for("third pasted line")
    d.send("\x15")  # C-u: the paste is not sent
    d.type_line("stty size")
    screen = d.wait_until(lambda s: s.count("20 100") >= 2, what="the size asked again")
    assert not [line for line in screen.splitlines() if line.strip() == "GOT-WINCH"]


def test_a_message_goes_away_at_the_next_key(dsh) -> None:
    d = dsh()
    d.type_line("/rename soon-gone")
    d.wait_for("session renamed: soon-gone")
    d.send("e")
    d.wait_until(lambda s: "session renamed" not in s, what="the message to go")


def test_c_z_on_an_empty_prompt_stops_the_program_and_fg_brings_it_back(dsh) -> None:
    d = dsh()
    d.type_line("cat")
    d.wait_for("0:cat")  # the tab follows the foreground program: cat runs (C-z before would stop nothing)
    d.send("\x1a")  # C-z
    d.wait_for("Stopped")
    d.type_line("fg")
    d.type_line("back-in-cat")
    d.wait_until(lambda s: s.count("back-in-cat") >= 2, what="cat to echo the line again")


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    if int(handle.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def process_state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return handle.read().rsplit(b")", 1)[1].split()[0].decode()


def test_a_stopped_and_continued_client_redraws_and_keys_work(dsh_cmd, dsh_env, workdir: Path) -> None:
    import sys

    jobshell = Path(__file__).resolve().parent / "jobshell.py"
    d = PtyDriver([sys.executable, str(jobshell), *dsh_cmd], env=dsh_env, cwd=workdir)
    try:
        stop_and_continue(d)
    finally:
        d.close()


def stop_and_continue(d: PtyDriver) -> None:
    d.wait_for("PROMPT")
    d.type_line("echo before-stop")
    d.wait_for("before-stop")
    deadline = time.monotonic() + 10
    while not children(d.pid):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    (client,) = children(d.pid)
    mark = len(d.raw)
    os.kill(client, signal.SIGTSTP)
    while process_state(client) != "T":
        assert time.monotonic() < deadline, "the client did not stop"
        time.sleep(0.05)
    # It put the terminal back first: main screen, no mouse reporting, cursor shown.
    while not (b"\x1b[?1049l" in d.raw[mark:] and b"\x1b[?1000l" in d.raw[mark:]):
        assert time.monotonic() < deadline, f"the terminal was not put back: {bytes(d.raw[mark:])!r}"
        time.sleep(0.05)
    mark = len(d.raw)
    os.kill(client, signal.SIGCONT)
    deadline = time.monotonic() + 10
    while b"\x1b[?1049h" not in d.raw[mark:]:  # drawn again from scratch, on the alternate screen
        assert time.monotonic() < deadline, "no full redraw after SIGCONT"
        time.sleep(0.05)
    screen = d.wait_for("PROMPT")
    assert "before-stop" in screen
    d.type_line("echo after-continue")
    screen = d.wait_for("after-continue\n")
    assert "^L" not in screen


RAW_PASSWORD_READER = """
import sys, termios, tty
print("Password: ", end="", flush=True)
saved = termios.tcgetattr(0)
tty.setraw(0)  # no line mode, no echo: as Node and Go CLIs read a secret
typed = b""
while not typed.endswith(b"\\r"):
    typed += sys.stdin.buffer.read(1)
termios.tcsetattr(0, termios.TCSANOW, saved)
print(f"\\nread {len(typed) - 1} characters")
"""


def test_a_secret_read_in_raw_mode_never_passes_through_the_prompt(dsh, dsh_home: Path, workdir: Path) -> None:
    import sys

    (workdir / "askpass.py").write_text(RAW_PASSWORD_READER)
    d = dsh()
    d.type_line(f"{sys.executable} askpass.py")
    d.wait_for("Password:")
    d.wait_for("IN PANE")  # the keyboard went to the program by itself
    d.send("hunter2-secret\r")
    d.wait_for("read 14 characters")
    d.wait_for("PROMPT")  # and came back with the shell
    d.type_line("/quit")
    d.wait_exit()
    for path in dsh_home.rglob("*"):
        if path.is_file():
            assert b"hunter2-secret" not in path.read_bytes(), path


def test_git_log_in_its_pager_takes_the_keys_and_gives_them_back(dsh, workdir: Path) -> None:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "HOME": str(workdir),
    }
    subprocess.run(["git", "init", "-q", str(workdir)], check=True)
    for n in range(200):
        subprocess.run(
            ["git", "-C", str(workdir), "commit", "-q", "--allow-empty", "-m", f"commit number {n}"],
            check=True,
            env={**os.environ, **env},
        )
    d = dsh()
    d.type_line("LESS=FRX git log")
    d.wait_for("commit number 199")
    d.wait_for("IN PANE")  # less -X keeps the main screen; the keys went to it all the same
    d.send(" ")
    d.wait_until(lambda s: "commit number 199" not in s, what="Space to page on")
    d.send("q")
    d.wait_for("PROMPT")
    d.type_line("echo back-on-the-prompt")
    d.wait_for("back-on-the-prompt\n")


def test_the_python_repl_gets_the_keyboard_until_it_exits(dsh) -> None:
    import sys

    d = dsh()
    d.type_line(f"{sys.executable} -q")
    d.wait_for(">>>")
    d.wait_for("IN PANE")
    d.send("1+1\r")
    d.wait_for("\n2\n")
    d.send("exit()\r")
    d.wait_for("PROMPT")


@pytest.fixture
def bash_env(dsh_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """bash with dsh's integration, reading a home of its own (no rc file of this machine's)."""
    import shutil

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    home = tmp_path / "bash-home"
    home.mkdir()
    (home / ".profile").write_text("PS1='bash$ '\n")  # a login shell reads it, as bash -l would
    return {**dsh_env, "SHELL": bash, "HOME": str(home)}


def test_each_commands_status_shows_in_the_pane_header(dsh, bash_env) -> None:
    d = dsh(env=bash_env)
    d.wait_for("bash$")
    d.type_line("false")
    d.wait_until(lambda s: "✗ 1" in s.splitlines()[1], what="the failure in the header")
    d.type_line("true")
    d.wait_until(lambda s: "✓" in s.splitlines()[1] and "✗" not in s.splitlines()[1], what="success")


def test_a_split_opened_after_cd_starts_there(dsh, bash_env, workdir: Path) -> None:
    (workdir / "sub").mkdir()
    d = dsh(env=bash_env, cols=240)
    d.wait_for("bash$")
    d.type_line("cd sub")
    # bash's next prompt: the cd is done (the split starts where /proc says the shell is).
    d.wait_until(lambda s: s.count("bash$") >= 2, what="the prompt after cd")
    d.send("\x02%")  # C-b %
    d.wait_for("▶ p2")
    d.type_line("pwd")
    d.wait_for(f"{workdir / 'sub'}\n")


def test_a_byte_typed_in_a_pane_that_is_not_utf8_reaches_it_as_that_byte(dsh) -> None:
    d = dsh()
    d.type_line("od -An -tx1")
    time.sleep(0.3)
    d.send("\x1d")  # into the pane: every key goes to od
    d.wait_for("IN PANE")
    d.send(b"\xe9\r\x04")
    d.wait_for("e9 0a")
