"""Shell integration: how a pane starts each shell, and what the bash script tells the terminal."""

from __future__ import annotations

import os
import re
import select
import shutil
import time
from pathlib import Path

import ptyprocess
import pytest

from dsh.session.shells import integration_dir, shell_launch
from dsh.term.terminal import close_pty


def test_each_shell_starts_as_a_login_shell_with_the_integration() -> None:
    folder = integration_dir()
    assert folder is not None and (folder / "dsh.bash").is_file()
    assert shell_launch("/bin/bash", {}) == (
        ["/bin/bash", "--init-file", str(folder / "dsh.bash"), "-i"],
        {"DSH_SHELL_LOGIN": "1"},
    )
    argv, env = shell_launch("/usr/bin/zsh", {"ZDOTDIR": "/home/me/.config/zsh"})
    assert argv == ["/usr/bin/zsh", "-l"]
    assert env == {"ZDOTDIR": str(folder / "zsh"), "DSH_USER_ZDOTDIR": "/home/me/.config/zsh"}
    argv, env = shell_launch("/usr/bin/fish", {})
    assert argv[:3] == ["/usr/bin/fish", "-l", "--init-command"] and argv[3].startswith("source '")
    assert shell_launch("/bin/dash", {}) == (["/bin/dash", "-l"], {})
    assert shell_launch("/bin/bash", {}, integration=False) == (["/bin/bash", "-l"], {})


def _run_bash(home: Path, lines: list[bytes]) -> bytes:
    argv, extra = shell_launch(shutil.which("bash") or "/bin/bash", {})
    env = {**os.environ, **extra, "HOME": str(home), "TERM": "xterm", "PS1": "$ "}
    proc = ptyprocess.PtyProcess.spawn(argv, env=env, cwd=str(home))
    out = bytearray()
    try:
        for line in lines:
            time.sleep(0.3)
            proc.write(line)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.fd], [], [], 0.2)
            if ready:
                try:
                    out += os.read(proc.fd, 65536)
                except OSError:
                    break
            elif out.count(b"\x1b]133;A") >= len(lines) + 1:
                break
    finally:
        proc.terminate(force=True)
        close_pty(proc)
    return bytes(out)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_reads_the_users_profile_then_marks_prompt_command_output_and_status(tmp_path: Path) -> None:
    # A hook of the user's own in PROMPT_COMMAND (pyenv and direnv add one) is not the user's command.
    (tmp_path / ".bash_profile").write_text(
        "export FROM_PROFILE=read\n. ~/.bashrc\nother_hook() { :; }\nPROMPT_COMMAND=other_hook\n"
    )
    (tmp_path / ".bashrc").write_text("PS1='mine$ '\n")
    out = _run_bash(tmp_path, [b"echo $FROM_PROFILE; false\r", b"true\r"])
    assert b"mine$ " in out and b"read" in out
    marks = re.findall(rb"\x1b]133;([ABCD](?:;\d+)?)\x07", out)
    assert marks[:8] == [b"A", b"B", b"C", b"D;1", b"A", b"B", b"C", b"D;0"]
    assert b"\x1b]7;file://" in out and str(tmp_path).encode() in out


def _run_shell(shell: str, home: Path, lines: list[bytes]) -> bytes:
    argv, extra = shell_launch(shell, {})
    env = {**os.environ, **extra, "HOME": str(home), "TERM": "xterm"}
    if "ZDOTDIR" not in extra:
        env.pop("ZDOTDIR", None)
    proc = ptyprocess.PtyProcess.spawn(argv, env=env, cwd=str(home))
    out = bytearray()
    try:
        deadline = time.monotonic() + 5
        while b"\x1b]133;A" not in out and time.monotonic() < deadline:  # the first prompt
            ready, _, _ = select.select([proc.fd], [], [], 0.1)
            if ready:
                out += os.read(proc.fd, 65536)
        for line in lines:
            proc.write(line)
            time.sleep(0.3)
        deadline = time.monotonic() + 3
        while out.count(b"\x1b]133;A") < len(lines) + 1 and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.fd], [], [], 0.1)
            if ready:
                out += os.read(proc.fd, 65536)
    finally:
        proc.terminate(force=True)
        close_pty(proc)
    return bytes(out)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (CI installs it)")
def test_zsh_reads_the_users_files_then_marks_each_command(tmp_path: Path) -> None:
    (tmp_path / ".zshrc").write_text("PS1='mine%# '\nexport FROM_ZSHRC=read\n")
    out = _run_shell(shutil.which("zsh") or "zsh", tmp_path, [b"echo $FROM_ZSHRC; false\r", b"true\r"])
    assert b"read" in out and b"mine" in out
    marks = re.findall(rb"\x1b]133;([ABCD](?:;\d+)?)\x07", out)
    assert marks[:8] == [b"A", b"B", b"C", b"D;1", b"A", b"B", b"C", b"D;0"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed (CI installs it)")
def test_fish_marks_each_command_and_its_status(tmp_path: Path) -> None:
    out = _run_shell(shutil.which("fish") or "fish", tmp_path, [b"false\r", b"true\r"])
    marks = re.findall(rb"\x1b]133;([ABCD](?:;\d+)?)\x07", out)
    assert marks[:8] == [b"A", b"B", b"C", b"D;1", b"A", b"B", b"C", b"D;0"] and b"\x1b]7;file://" in out
