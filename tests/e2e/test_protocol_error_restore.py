"""End to end: a host that sends the client something it cannot read (garbage after a frame that set the
view's modes) ends the client, and the terminal is given back as it was: read back with DECRQM by a
program in the same terminal, from dsh's own emulator standing in as the user's terminal."""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

import ptyprocess
import pytest

from dsh import protocol
from dsh.rundir import socket_path
from dsh.term.screen import TermScreen
from dsh.term.terminal import close_pty

pytestmark = pytest.mark.slow

SID = "20261202T000000Z-badbad"
# What a view sets: the alternate screen, autowrap off, the mouse, bracketed paste, focus events, a
# hidden cursor, application cursor keys and keypad.
VIEW_MODES = b"\x1b[?1049h\x1b[?7l\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b[?1004h\x1b[?25l\x1b[?1h\x1b="
# DECRQM's answer for each (2: reset, 1: set) on a terminal nobody touched; 66 is DECNKM, the keypad.
FRESH = {7: 1, 25: 1, 1000: 2, 1002: 2, 1003: 2, 1006: 2, 2004: 2, 1004: 2, 1049: 2, 1: 2, 66: 2}
ASK = f"""
import os, sys, termios, tty
old = termios.tcgetattr(0)
tty.setraw(0)
answers = []
for mode in {sorted(FRESH)!r}:
    os.write(1, b"\\x1b[?%d$p" % mode)
    got = b""
    while not got.endswith(b"$y"):
        got += os.read(0, 64)
    answers.append(got.decode()[3:-2])
termios.tcsetattr(0, termios.TCSADRAIN, old)
print("MODES " + " ".join(answers))
"""


def _fake_host(path: Path, done: threading.Event) -> None:
    """A host that welcomes the client, draws a frame that sets the view's modes, then sends garbage."""
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    server.settimeout(20)
    try:
        conn, _ = server.accept()
        with conn:
            conn.settimeout(10)
            hello = b""
            while b"\n" not in hello:
                hello += conn.recv(65536)
            conn.sendall(protocol.welcome(session=SID))
            conn.sendall(protocol.frame(protocol.OUTPUT, VIEW_MODES + b"a frame"))
            time.sleep(0.3)
            conn.sendall(b"\xfe\xfe\xfe\xfe\xfe garbage, not a frame")
            done.wait(10)
    finally:
        server.close()


def test_garbage_from_the_host_ends_the_client_with_the_terminal_as_it_was(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    path = socket_path(SID)
    done = threading.Event()
    host = threading.Thread(target=_fake_host, args=(path, done), daemon=True)
    host.start()
    (tmp_path / "ask.py").write_text(ASK)
    script = f"{' '.join(dsh_cmd)} attach {SID}; echo EXIT $?; {sys.executable} ask.py"
    proc = ptyprocess.PtyProcess.spawn(["sh", "-c", script], env=dsh_env, cwd=str(tmp_path), dimensions=(24, 80))
    screen = TermScreen(80, 24, write_process_input=lambda text: proc.write(text.encode()))
    seen = bytearray()
    try:
        # Read (and answer, as a terminal does) until ask.py's line is whole or the shell ends.
        while not (b"MODES " in seen and b"\n" in seen[seen.index(b"MODES ") :]):
            try:
                data = proc.read(65536)
            except EOFError:
                break
            seen += data
            screen.feed(data)
        assert b"a frame" in seen, bytes(seen)  # the client drew the host's frame (and took its modes)
        text = bytes(seen).decode(errors="replace")
        assert "EXIT 1" in text, text  # a lost session, not a clean detach
        answers = text[text.index("MODES ") + 6 :].split()[: len(FRESH)]
        got = {int(a.split(";")[0]): int(a.split(";")[1]) for a in answers}
        assert got == FRESH, text
    finally:
        done.set()
        close_pty(proc)
        host.join(5)
