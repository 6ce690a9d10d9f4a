"""End to end: a BEL and a desktop notification (OSC 9, 777) from the pane on screen reach the user's
terminal as they would from a program of its own (those off screen are dsh's notices, tests elsewhere)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch

pytestmark = pytest.mark.slow

OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def test_a_bell_and_a_notification_from_the_pane_in_view_reach_the_terminal(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    # From files: the typed commands' echo holds neither a BEL nor the notification's text.
    (work / "bell.sh").write_text("printf 'rung\\007\\n'\n")
    (work / "note.sh").write_text("printf '\\033]9;%s\\007' build-fin''ished; echo noted\n")
    env = {**dsh_env, "TERM_PROGRAM": "WezTerm"}  # a terminal that takes OSC 9
    d = launch(cwd=work, env=env, rows=24, cols=100)
    d.wait_for("PROMPT")
    start = len(d.raw)
    d.type_line("sh bell.sh")
    d.wait_for("\nrung")
    d.wait_until(lambda _: b"\x07" in OSC.sub(b"", bytes(d.raw[start:])), what="a BEL written to the terminal")
    start = len(d.raw)
    d.type_line("sh note.sh")
    d.wait_for("\nnoted")
    d.wait_until(lambda _: re.search(rb"\x1b\]9;[^\x07]*build-finished", d.raw[start:]), what="the OSC 9 passed on")
