"""A pane's environment without the outer multiplexer's variables; dsh's refusal to nest in its own pane."""

from __future__ import annotations

from dsh.cli.run import nesting_refusal
from dsh.session.pane_env import drop_outer_multiplexer


def test_the_outer_multiplexers_variables_are_dropped_and_the_rest_kept() -> None:
    env = {
        "TMUX": "/tmp/tmux-1000/default,1,0",
        "TMUX_PANE": "%0",
        "TMUX_TMPDIR_NOT": "x",
        "ZELLIJ": "0",
        "ZELLIJ_PANE_ID": "3",
        "STY": "1.pts",
        "WINDOW": "0",
        "BYOBU_BACKEND": "tmux",
        "TERM_PROGRAM": "tmux",
        "TERM_PROGRAM_VERSION": "3.4",
        "HOME": "/home/me",
        "PATH": "/bin",
    }
    drop_outer_multiplexer(env)
    assert env == {"TMUX_TMPDIR_NOT": "x", "HOME": "/home/me", "PATH": "/bin"}
    kept = {"TERM_PROGRAM": "iTerm.app", "TERM_PROGRAM_VERSION": "3"}
    drop_outer_multiplexer(kept)  # a terminal, not a multiplexer: programs may ask it for features
    assert kept == {"TERM_PROGRAM": "iTerm.app", "TERM_PROGRAM_VERSION": "3"}


def test_dsh_refuses_to_start_in_a_dsh_pane_unless_nested() -> None:
    inside = {"DSH_SESSION_ID": "20261201T000000Z-abc", "DSH_PANE_ID": "p2"}
    refusal = nesting_refusal(inside, nested=False)
    assert refusal is not None
    first, second = refusal.splitlines()
    assert "pane p2 of dsh session 20261201T000000Z-abc" in first and "--nested" in second
    assert nesting_refusal(inside, nested=True) is None
    assert nesting_refusal({}, nested=False) is None
    assert nesting_refusal({"DSH_SESSION_ID": "x"}, nested=False) is None  # a hook's env, not a pane
    hostile = nesting_refusal({"DSH_SESSION_ID": "a\x1b[31mb", "DSH_PANE_ID": "p\x07"}, nested=False)
    assert hostile is not None and "\x1b" not in hostile and "\x07" not in hostile


def test_two_hooks_of_one_shell_are_given_the_same_start_time() -> None:
    """A hook's report says when the agent's shell for it started (dsh report --hook): read from the
    kernel's boot time and the shell's start tick, the same for every process that reads it, so two
    hooks' order is decided by their start, never by when each happened to read the clock."""
    import subprocess
    import sys

    probe = f"{sys.executable} -c 'from dsh.cli.control_cmd import _hook_started; print(repr(_hook_started()))'"
    out = subprocess.run(["sh", "-c", f"{probe}; sleep 0.05; {probe}"], capture_output=True, text=True, check=True)
    first, second = out.stdout.splitlines()
    assert first == second
