"""End to end: a pane program's cursor shape (DECSCUSR, vim's insert bar) reaches the user's terminal
while the keys go to that pane, and the terminal's own shape comes back on dsh's prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Launch

pytestmark = pytest.mark.slow


def test_the_pane_programs_cursor_shape_reaches_the_terminal(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    d = launch(cwd=work, env=dsh_env, rows=24, cols=80)
    d.wait_for("PROMPT")
    assert b" q" not in d.raw
    d.type_line("printf '\\033[6 q'; echo shaped")
    d.wait_for("\nshaped")
    if "IN PANE" not in d.text():
        d.send("\x1d")  # C-]: the keys into the pane
    d.wait_for("IN PANE")
    d.wait_until(lambda _: b"\x1b[6 q" in d.raw, what="the bar shape sent to the terminal")
    start = len(d.raw)
    d.send("\x1d")  # back to the prompt
    d.wait_for("PROMPT")
    d.wait_until(lambda _: b"\x1b[0 q" in d.raw[start:], what="the terminal's own shape again")
