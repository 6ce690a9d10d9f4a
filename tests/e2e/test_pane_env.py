"""End to end: a pane's environment leaves the outer multiplexer's variables behind and names its own
session and pane; a dsh started inside a dsh pane refuses unless asked (--nested)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Launch

pytestmark = pytest.mark.slow


def test_a_pane_has_no_outer_tmux_and_a_dsh_inside_it_refuses_unless_nested(
    launch: Launch, dsh_env: dict[str, str], dsh_cmd: list[str], tmp_path: Path
) -> None:
    env = {
        **dsh_env,
        "TMUX": "/tmp/tmux-1000/default,4242,0",
        "TMUX_PANE": "%0",
        "ZELLIJ": "0",
        "ZELLIJ_SESSION_NAME": "outer",
        "STY": "123.pts-0.box",
        "TERM_PROGRAM": "tmux",
        "KEEP_ME": "kept",
    }
    dsh = launch(cwd=tmp_path, env=env, rows=30, cols=120)
    dsh.wait_for("PROMPT")
    dsh.type_line("env | grep -E '^(TMUX|ZELLIJ|STY|TERM_PROGRAM|KEEP_ME|DSH_PANE_ID)' | sort | tr '\\n' ' '")
    text = dsh.wait_for("KEEP_ME=kept")  # in the output only: the typed line says KEEP_ME)
    assert "KEEP_ME=kept" in text and "DSH_PANE_ID=p1" in text
    for name in ("TMUX=", "TMUX_PANE=", "ZELLIJ=", "ZELLIJ_SESSION_NAME=", "STY=", "TERM_PROGRAM="):
        assert name not in text.replace("grep -E", ""), name
    # dsh inside the pane: refused, saying why and what to do.
    dsh.type_line(" ".join(dsh_cmd) + " ; echo EXIT=$?")
    text = dsh.wait_for("EXIT=2")
    assert "of dsh session" in text and "--nested" in text
