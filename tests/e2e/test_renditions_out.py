"""End to end: a pane's colours and underlines reach the user's terminal as the program sent them, in the
bytes the client writes: a palette index as an index, the 16 colours as SGR 30-37/90-97, curly
underlines, underline colour and overline only where the terminal's terminfo says it draws them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

# Run from a file, so the typed command's echo holds none of the sequences looked for.
SCRIPT = (
    r"printf '\033[38;5;208mORANGE\033[0m \033[48;5;100mOLIVE\033[0m \033[31mRED\033[94mBLUE\033[0m "
    r"\033[38;2;1;2;3mRGB\033[0m \033[4:3;58:5:100mCURLY\033[0m \033[4;58:2::1:2:3mTINT\033[0m "
    r"\033[53mOVER\033[0m\n'"
)
SHOWN = "ORANGE OLIVE REDBLUE RGB CURLY TINT OVER"


def _run(launch: Launch, env: dict[str, str], tmp_path: Path) -> PtyDriver:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "colours.sh").write_text(SCRIPT + "\n")
    d = launch(cwd=work, env=env, rows=24, cols=100)
    d.wait_for("PROMPT")
    d.type_line("sh colours.sh")
    # Waited for in the bytes: the test's terminal (stock pyte) reads no colon sub-parameters, so
    # where dsh sends them its screen is garbled, as any such terminal's would be.
    d.wait_until(lambda _: b"OVER" in d.raw, what="the pane's line drawn")
    return d


def _sgrs(raw: bytes) -> list[bytes]:
    """Every SGR's parameters in the bytes, in order."""
    return re.findall(rb"\x1b\[([0-9;:]*)m", raw)


def test_palette_indices_stay_indices_on_a_true_colour_terminal(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**dsh_env, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    d = _run(launch, env, tmp_path)
    d.wait_for(SHOWN)
    params = b" ".join(_sgrs(bytes(d.raw)))
    assert re.search(rb"\b38;5;208\b", params), params  # not 38;2;255;135;0, xterm's RGB for 208
    assert re.search(rb"\b48;5;100\b", params)
    assert b"38;2;255;135;0" not in params and b"48;2;135;135;0" not in params
    assert re.search(rb"\b31\b", params) and re.search(rb"\b94\b", params)  # the terminal's own red, blue
    assert b"38;2;1;2;3" in params  # 24-bit stays 24-bit
    # xterm-256color's terminfo has no Smulx, Setulc or Smol: a plain underline, nothing it would misread
    assert b"4:3" not in params and b"58" not in params and not re.search(rb"\b53\b", params)


def test_underline_styles_colour_and_overline_where_the_terminfo_has_them(
    launch: Launch, dsh_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**dsh_env, "TERM": "vte-256color"}  # Smulx, setal and Smol in ncurses' entry
    env.pop("COLORTERM", None)
    d = _run(launch, env, tmp_path)
    params = b" ".join(_sgrs(bytes(d.raw)))
    assert b"4:3" in params
    assert b"58:5:100" in params and b"58:2::1:2:3" in params
    assert re.search(rb"\b53\b", params)
    assert re.search(rb"\b38;5;208\b", params)
