"""Alt with cursor, editing and function keys reaches programs as xterm and tmux send it (CSI 1;3D),
compared with what tmux's own `send-keys M-Left` gives `cat -v`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

from dsh.term.key_bytes import alt_key_bytes
from dsh.term.terminal import Terminal

# tmux's name for a key, and prompt_toolkit's (as the view hands it to the pane after Escape).
KEYS = [
    ("M-Left", "left"),
    ("M-Up", "up"),
    ("M-Home", "home"),
    ("M-End", "end"),
    ("M-PPage", "pageup"),
    ("M-DC", "delete"),
    ("M-F1", "f1"),
    ("M-F5", "f5"),
    ("C-M-Left", "c-left"),
    ("M-S-Right", "s-right"),
]


def test_alt_keys_have_the_modifier_parameter_not_a_second_escape() -> None:
    assert alt_key_bytes("left") == b"\x1b[1;3D"
    assert alt_key_bytes("c-up") == b"\x1b[1;7A"
    assert alt_key_bytes("f5") == b"\x1b[15;3~"
    assert alt_key_bytes("pageup") == b"\x1b[5;3~"
    assert alt_key_bytes("a") is None and alt_key_bytes("escape") is None  # ESC a, as ever


def test_a_terminal_sends_escape_and_an_arrow_as_one_alt_arrow(tmp_path: Path) -> None:
    async def body() -> bytes:
        term = Terminal(["cat"], cwd=str(tmp_path))
        written: list[bytes] = []
        term.start()
        try:
            term.write = lambda data: written.append(bytes(data))  # type: ignore[method-assign,assignment]
            term.send_key("escape")  # what the view hands on for M-Left: Escape, then Left
            term.send_key("left")
            term.send_key("escape")
            term.send_key("x", "x")
            await asyncio.sleep(0)
            return b"".join(written)
        finally:
            term.kill()

    assert asyncio.run(body()) == b"\x1b[1;3D\x1bx"


def cat_v(data: bytes) -> str:
    return data.decode().replace("\x1b", "^[")


def test_the_bytes_match_tmux_send_keys_into_cat_v(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
    env["TERM"] = "xterm-256color"
    tmux = ["tmux", "-L", f"dsh-alt-{os.getpid()}", "-f", "/dev/null"]

    def tm(*args: str) -> str:
        return subprocess.run([*tmux, *args], env=env, capture_output=True, text=True, timeout=10).stdout

    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "120", "-y", "40", "stty -echo; echo GO; exec cat -v"],
        env=env,
        cwd=tmp_path,
        check=True,
    )
    try:
        deadline = time.monotonic() + 10
        while "GO" not in tm("capture-pane", "-p"):
            assert time.monotonic() < deadline, tm("capture-pane", "-p")
            time.sleep(0.05)
        for name, _key in KEYS:
            tm("send-keys", name, "Enter")
        deadline = time.monotonic() + 10
        while len([line for line in tm("capture-pane", "-p").splitlines() if line.strip()]) < len(KEYS) + 1:
            assert time.monotonic() < deadline, tm("capture-pane", "-p")
            time.sleep(0.05)
        shown = [line for line in tm("capture-pane", "-p").splitlines() if line.strip() and line != "GO"]
    finally:
        tm("kill-server")
    ours = [cat_v(alt_key_bytes(key) or b"") for _name, key in KEYS]
    assert ours == shown
