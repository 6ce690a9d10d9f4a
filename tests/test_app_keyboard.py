"""The keyboard follows the focus in a running app, by each way of moving it; the escape key's choice holds."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from test_app_harness import (
    ALT_LEFT,
    ALT_RIGHT,
    C_B,
    C_RBRACKET,
    ENTER,
    Harness,
    plain_shell,  # noqa: F401  (autouse: panes run /bin/sh)
    run,
    running_app,
)

from dsh.persist.states import PaneState
from dsh.ui import chrome

FAKES = Path(__file__).resolve().parent / "fakes" / "bin"

# A program that reads keys raw (as vim or an agent does): it says READY, then GOT <hex> per `!`.
RAW_READER = (
    "import os, sys, tty\n"
    "tty.setraw(0)\n"
    "print('READY', end='\\r\\n', flush=True)\n"
    "data = b''\n"
    "while True:\n"
    "    data += os.read(0, 100)\n"
    "    if data.endswith(b'!'):\n"
    "        print('GOT ' + data.hex(), end='\\r\\n', flush=True)\n"
    "        data = b''\n"
)


def status(h: Harness) -> str:
    return "".join(text for _style, text in chrome.status_fragments(h.app))


def click(h: Harness, pane_id: str) -> None:
    """A click (press and release, SGR) inside a pane's body."""
    rect = h.session.tabs.rects(h.session.area).rects[pane_id]
    x, y = rect.x + 3, h.session.area.y + rect.y + 3  # 1-based cells, below the pane's header
    h.send(f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m")


async def the_keys_go(h: Harness, where: str, pane_id: str, how: str) -> None:
    await h.wait(lambda: h.session.tabs.active_pane == pane_id, f"{how}: the focus on {pane_id}")
    await h.wait(lambda: h.app.mode == where, f"{how}: the keyboard to the {where} for {pane_id}")


def test_the_keyboard_follows_each_way_of_moving_focus(tmp_path: Path) -> None:
    reader = tmp_path / "reader.py"
    reader.write_text(RAW_READER)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            shell = h.pane.id
            # A pane whose own command reads keys (`/split -- python3 reader.py`): the keyboard goes to it.
            h.type_line(f"/split -h {sys.executable} {reader}")
            await h.wait(lambda: len(h.session.panes) == 2, "the reader's pane")
            raw = h.session.tabs.active_pane
            await h.wait_output(h.pane, "READY")
            await the_keys_go(h, "pane", raw, "a pane whose program reads keys")
            assert f"IN PANE {raw} python" in status(h)  # the status line says where keys go
            h.send("ab!")
            await h.wait_output(h.session.panes[raw], "GOT " + b"ab!".hex())

            # Keys: M-Left, M-Right, C-b o.
            h.send(ALT_LEFT)
            await the_keys_go(h, "prompt", shell, "M-Left to the idle shell")
            assert "PROMPT" in status(h)
            h.send(ALT_RIGHT)
            await the_keys_go(h, "pane", raw, "M-Right back to the reader")
            h.send(C_B + "o")
            await the_keys_go(h, "prompt", shell, "C-b o")
            h.send(C_B + "o")
            await the_keys_go(h, "pane", raw, "C-b o again")

            # The mouse.
            click(h, shell)
            await the_keys_go(h, "prompt", shell, "a click on the idle shell")
            click(h, raw)
            await the_keys_go(h, "pane", raw, "a click on the reader")

            # /focus, typed on the prompt (the escape key first: the reader has the keyboard).
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "prompt", "C-] to the prompt")
            h.type_line("/focus left")
            await the_keys_go(h, "prompt", shell, "/focus left")
            h.type_line("/focus right")
            await the_keys_go(h, "pane", raw, "/focus right (the choice was for the visit before)")

            # A tab switch.
            h.send(C_B + "c")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "a second tab")
            await the_keys_go(h, "prompt", h.session.tabs.active_pane, "a new tab's shell")
            h.send(C_B + "0")
            await the_keys_go(h, "pane", raw, "C-b 0 back to the reader's tab")
            h.send(C_B + "1")
            await h.wait(lambda: h.session.tabs.active_tab is h.session.tabs.tabs[1], "C-b 1")
            await h.wait(lambda: h.app.mode == "prompt", "the second tab's shell: the prompt")

            # A restored pane: the prompt (Enter there starts it); a fresh shell stays on the prompt.
            second_tab_pane = h.pane
            h.type_line("exit 3")
            await h.wait(lambda: not second_tab_pane.running, "the shell to end")
            second_tab_pane.state = PaneState.RESTORED
            h.send(C_B + "0")
            await the_keys_go(h, "pane", raw, "C-b 0")
            h.send(C_B + "1")
            await the_keys_go(h, "prompt", second_tab_pane.id, "C-b 1 to the restored pane")
            h.send(ENTER)
            await h.wait(lambda: second_tab_pane.running, "Enter to start the restored pane")
            assert h.app.mode == "prompt"

    run(body)


def test_an_agent_pane_gets_the_keyboard_as_it_opens(tmp_path: Path, monkeypatch: object) -> None:
    # What opening a conversation from the picker does in the new session: its first pane runs the
    # agent; /agent opens one the same way, in a split.
    monkeypatch.setenv("PATH", f"{FAKES}{os.pathsep}{os.environ.get('PATH', '')}")  # type: ignore[attr-defined]
    monkeypatch.setenv("HOME", str(tmp_path))  # type: ignore[attr-defined]

    async def body() -> None:
        async with running_app(tmp_path) as h:
            shell = h.pane.id
            h.type_line("/agent claude")
            await h.wait(lambda: len(h.session.panes) == 2, "the agent's pane")
            agent = h.session.tabs.active_pane
            await the_keys_go(h, "pane", agent, "an agent opened")
            h.send(ALT_LEFT)
            await the_keys_go(h, "prompt", shell, "M-Left to the shell")
            h.send(ALT_RIGHT)
            await the_keys_go(h, "pane", agent, "M-Right to the agent")

    run(body)


def test_the_escape_key_choice_is_not_undone_by_later_polls(tmp_path: Path) -> None:
    reader = tmp_path / "reader.py"
    reader.write_text(RAW_READER)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line(f"/new {sys.executable} {reader}")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "the reader's tab")
            pane = h.pane
            await h.wait_output(pane, "READY")
            await h.wait(lambda: h.app.mode == "pane", "the keyboard to follow into the reader")
            sent = h.record(pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "prompt", "C-] to the prompt")
            # Poll results arriving after the key, in every order, and the focus asserted again on the
            # same pane: none of them takes the keyboard back.
            for _ in range(10):
                pane.takes_keys = False
                pane.keys_polled_at = 0.0
                h.session.poll_foreground(pane.id)
                assert pane.takes_keys
                h.app.state.on_takes_keys(pane.id, True)
                h.app.state.on_alt_screen(pane.id, False)
                h.session.focus_pane(pane.id)
                await h.quiet()
                assert h.app.mode == "prompt"
            h.send("abc")
            await h.wait(lambda: h.app.prompt_buffer.text == "abc", "typing to reach the prompt")
            assert sent == []
            h.send("\x15")  # C-u
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] back into the reader")
            h.send("xy!")
            await h.wait_output(pane, "GOT " + b"xy!".hex())

    run(body)


def test_the_pane_style_keeps_the_keys_in_the_pane(tmp_path: Path, dsh_home: Path) -> None:
    (dsh_home / "config.toml").write_text('[ui]\nkeyboard = "pane"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            await h.wait(lambda: h.app.mode == "pane", "an idle shell's keys in its pane")
            sent = h.record(h.pane)
            h.send("ls")
            await h.wait(lambda: b"".join(sent) == b"ls", "keys to the shell itself")
            h.send(C_B + "c")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "C-b c")
            await h.wait(lambda: h.app.mode == "pane", "the new tab's shell has the keys too")
            # prefix : asks for one command on the prompt line; the keys then go back to the pane.
            h.send(C_B + ":")
            await h.wait(lambda: h.app.mode == "prompt" and h.app.line.label == ":", "C-b : to ask for a command")
            h.send("split -h\r")
            await h.wait(lambda: len(h.session.panes) == 3, "the command to run")
            await h.wait(lambda: h.app.mode == "pane", "the keys back in the (new) pane")

    run(body)


def test_a_300_line_paste_on_the_prompt_reaches_an_agent_as_one_paste_then_enter(tmp_path: Path) -> None:
    # A fake agent as Claude Code reads: raw keys, bracketed paste on; it counts what one Enter ends.
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import os, sys, tty\n"
        "tty.setraw(0)\n"
        "sys.stdout.write('\\x1b[?2004hREADY\\r\\n'); sys.stdout.flush()\n"
        "data = b''\n"
        "while not (data.endswith(b'\\r') and data.count(b'\\x1b[201~') == data.count(b'\\x1b[200~')):\n"
        "    data += os.read(0, 65536)\n"
        "body = data[data.find(b'~') + 1 : data.rfind(b'\\x1b[201~')]\n"
        "tail = data[data.rfind(b'\\x1b[201~') + 6 :]\n"
        "counts = (data.count(b'\\x1b[200~'), body.count(b'\\r') + 1, tail)\n"
        "print('PASTES %d LINES %d TAIL %r' % counts, end='\\r\\n')\n"
        "os.read(0, 1)\n"
    )
    lines = [f"line {i} of the paste" for i in range(300)]

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line(f"/new {sys.executable} {agent}")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "the agent's tab")
            pane = h.pane
            await h.wait_output(pane, "READY")
            await h.wait(lambda: h.app.mode == "pane", "the keyboard to the agent")
            h.send(C_RBRACKET)  # to dsh's prompt, and paste there
            await h.wait(lambda: h.app.mode == "prompt", "C-] to the prompt")
            h.send("\x1b[200~" + "\n".join(lines) + "\x1b[201~")
            await h.wait(lambda: h.app.prompt_buffer.text.count("\n") == 299, "the paste on the prompt")
            h.send(ENTER)
            await h.wait_output(pane, "PASTES 1 LINES 300 TAIL b'\\r'")

    run(body)


def test_alt_arrows_unbound_from_focus_reach_the_program_as_xterm_sends_them(tmp_path: Path, dsh_home: Path) -> None:
    # M-Left/M-Right move the focus by default; a user who wants them in programs unbinds them.
    (dsh_home / "config.toml").write_text('[keys.direct]\n"M-Left" = ""\n"escape right" = ""\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] into the pane")
            h.send("\x1b[1;3A" + ALT_LEFT + ALT_RIGHT)  # M-Up is still bound: the focus, not the pane
            await h.wait(lambda: b"".join(sent) == b"\x1b[1;3D\x1b[1;3C", "CSI 1;3D and CSI 1;3C, one each")

    run(body)
