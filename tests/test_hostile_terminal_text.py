"""Text from disk or a child reaches the user's terminal escaped, through one function (dsh.cli.output.say),
in every CLI message and error: a recorded cwd or a directory name full of escape sequences is shown,
never run (clipboard writes, title changes, queries the terminal would answer into the shell)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from dsh.cli.output import say
from dsh.config import load_config
from dsh.store.store import Store
from tests.hostile import assert_clean, make_sessions, run_dsh

# OSC 52 writes the clipboard, OSC 0 sets the title, CSI 6n asks the terminal to type a reply, U+202E
# reverses what follows.
EVIL = "\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\x1b[6n\u202e"
CLI = Path(__file__).resolve().parent.parent / "dsh" / "cli"


def test_say_escapes_every_part_but_keeps_its_own_separator() -> None:
    out = io.StringIO()
    say("dsh: cannot enter", f"/w/{EVIL}", "\udcff", to=out, sep="\t")
    assert out.getvalue() == "dsh: cannot enter\t/w/^[]52;c;SGVsbG8=^G^[]0;pwned^G^[[6n\\u202e\t\\xff\n"


def test_every_cli_message_goes_through_say() -> None:
    """No module of the `dsh` command prints by itself: what it writes to a terminal is escaped."""
    offenders = []
    for path in sorted(CLI.glob("*.py")):
        if path.name == "output.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if re.search(r"\bprint\(|sys\.stderr\.write|file=sys\.stderr", line):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert offenders == []


def test_listings_and_their_warnings_show_disk_text_escaped(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    evil_dir = tmp_path / f"dir{EVIL.replace('/', '')}"
    evil_dir.mkdir()
    [sid] = make_sessions(evil_dir, f"title {EVIL}")
    store = Store(load_config(env={}))
    path = store.find_log(sid)
    store.close()
    assert path is not None
    with path.open("a") as handle:
        handle.write(f'{{"type": "input", "text": "torn {EVIL}\n')  # a warning quotes this line's place
    for args in (["sessions", "--all"], ["sessions"], ["sessions", "--all", "--json"]):
        got = run_dsh(dsh_cmd, dsh_env, *args, cwd=evil_dir)
        assert got.returncode == 0 and sid in got.stdout, got
        assert_clean(got)
    empty = tmp_path / f"empty{EVIL.replace('/', '')}"
    empty.mkdir()
    got = run_dsh(dsh_cmd, dsh_env, "sessions", cwd=empty)
    assert got.returncode == 0 and "no sessions in" in got.stderr and "^[]52;c;" in got.stderr
    assert_clean(got)


@pytest.fixture
def pty_run(dsh_cmd: list[str], dsh_env: dict[str, str]):  # type: ignore[no-untyped-def]
    from tests.e2e.ptydriver import PtyDriver

    drivers = []

    def start(*args: str, cwd: Path) -> PtyDriver:
        driver = PtyDriver([*dsh_cmd, *args], env=dsh_env, cwd=cwd, rows=24, cols=200)
        drivers.append(driver)
        return driver

    yield start
    for driver in drivers:
        driver.close()


def _assert_raw_clean(raw: bytes) -> None:
    for sequence in (b"\x1b]52", b"\x1b]0;pwned", b"\x1b[6n", b"\x07", "\u202e".encode()):
        assert sequence not in raw, (sequence, raw)


@pytest.mark.slow
def test_resume_of_a_session_whose_cwd_holds_escapes_prints_them_escaped(pty_run, tmp_path: Path) -> None:
    store = Store(load_config(env={}))
    log = store.create_session(f"/nonexistent/{EVIL.replace('/', '')}")
    log.close()
    store.close()
    driver = pty_run(f"--resume={log.id}", cwd=tmp_path)
    assert driver.wait_exit() == 1
    _assert_raw_clean(bytes(driver.raw))
    screen = driver.text()
    assert f"cannot resume {log.id}: cannot enter /nonexistent/^[]52;c;SGVsbG8=^G" in screen
    assert "Traceback" not in screen


@pytest.mark.slow
def test_continue_in_a_directory_named_with_escapes_prints_it_escaped(pty_run, tmp_path: Path) -> None:
    evil_dir = tmp_path / f"dir{EVIL.replace('/', '')}"
    evil_dir.mkdir()
    driver = pty_run("--continue", cwd=evil_dir)
    assert driver.wait_exit() == 1
    _assert_raw_clean(bytes(driver.raw))
    assert "no session to continue in" in driver.text() and "^[]0;pwned^G" in driver.text()
