"""A pane cell's rendition as the user's terminal gets it (ui/rendition.py, ui/screen_diff.py): palette
indices as indices, underline styles, underline colour and overline by what the terminal draws
(term/features.py, from its terminfo entry read by term/terminfo.py, or its name)."""

from __future__ import annotations

import io
import re
import struct
from pathlib import Path
from types import SimpleNamespace

import prompt_toolkit.renderer as pt_renderer
import pytest
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.layout.screen import Char, Screen
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Attrs, DummyStyleTransformation, Style

from dsh.term.capture import capture_text
from dsh.term.features import NO_FEATURES, Features, terminal_features
from dsh.term.screen import TermScreen
from dsh.term.terminfo import parse_entry, read_terminfo
from dsh.ui import screen_diff
from dsh.ui.cells import line_fragments
from dsh.ui.remote import LinkOutput
from dsh.ui.rendition import rendition

ALL = Features(True, True, True)
SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def screen_with(data: bytes, cols: int = 20) -> TermScreen:
    s = TermScreen(cols, 2)
    s.feed(data)
    return s


def written(data: bytes, depth: ColorDepth, features: Features = NO_FEATURES) -> str:
    """What the screen diff writes for row 0 of a pane that received `data`."""
    pane = screen_with(data)
    screen = Screen()
    x = 0
    for style, text in line_fragments(pane.buffer[0], 20):
        for ch in text:
            screen.data_buffer[0][x] = Char(ch, style)
            x += 1
    screen.height, screen.width = 1, 20
    screen.cursor_positions[None] = Point(x=0, y=0)  # type: ignore[index]
    sink = io.StringIO()
    output = LinkOutput(sink, lambda: Size(rows=1, columns=20), term="xterm-256color")
    output.features = features
    style = Style.from_dict({})
    attrs = pt_renderer._StyleStringToAttrsCache(style.get_attrs_for_style_str, DummyStyleTransformation())
    screen_diff.output_screen_diff(
        SimpleNamespace(layout=SimpleNamespace(current_window=None)),
        output,
        screen,
        Point(x=0, y=0),
        depth,
        None,
        None,
        False,
        True,
        attrs,
        pt_renderer._StyleStringHasStyleCache(attrs),
        Size(rows=1, columns=20),
        20,
    )
    output.flush()
    return " ".join(SGR.findall(sink.getvalue()))


@pytest.mark.parametrize("depth", [ColorDepth.DEPTH_8_BIT, ColorDepth.DEPTH_24_BIT])
def test_a_palette_index_goes_out_as_the_index_where_the_terminal_has_a_palette(depth: ColorDepth) -> None:
    params = written(b"\x1b[38;5;208ma\x1b[48;5;100mb\x1b[0;31mc\x1b[94md\x1b[38;2;1;2;3me", depth)
    assert re.search(r"\b38;5;208\b", params) and re.search(r"\b48;5;100\b", params)
    assert "255;135;0" not in params and "135;135;0" not in params  # xterm's RGB for them, not sent
    assert re.search(r"\b31\b", params) and re.search(r"\b94\b", params)  # the 16 as SGR 30-37, 90-97
    if depth == ColorDepth.DEPTH_24_BIT:
        assert "38;2;1;2;3" in params


def test_a_terminal_of_16_colours_gets_the_nearest_of_its_own() -> None:
    params = written(b"\x1b[38;5;196ma", ColorDepth.DEPTH_4_BIT)
    assert "38;5" not in params and re.search(r"\b91\b", params)


def test_a_colour_set_over_the_cell_wins_over_its_index() -> None:
    """A style after the cell's (a selection, a search match) that sets another colour is drawn."""
    attrs = Attrs("ansiyellow", "", False, False, False, False, False, False, False, False)
    assert rendition("fg:#ff8700 [fi:208] fg:ansiyellow", attrs, ColorDepth.DEPTH_8_BIT) == (attrs, "")
    mine = attrs._replace(color="ff8700")
    assert rendition("fg:#ff8700 [fi:208]", mine, ColorDepth.DEPTH_8_BIT) == (
        mine._replace(color=""),
        "\x1b[38;5;208m",
    )


def test_underline_styles_colour_and_overline_where_the_terminal_draws_them() -> None:
    data = b"\x1b[4:3;58:5:100ma\x1b[21;58:2::1:2:3mb\x1b[0;53mc\x1b[0;4:4md"
    params = written(data, ColorDepth.DEPTH_8_BIT, ALL)
    assert "4:3" in params and "58:5:100" in params and "4:2" in params and "58:2::1:2:3" in params
    assert re.search(r"\b53\b", params) and "4:4" in params
    plain = written(data, ColorDepth.DEPTH_8_BIT)
    assert ":" not in plain and "58" not in plain and not re.search(r"\b53\b", plain)
    assert re.search(r"\b4\b", plain)  # degraded to a plain underline


def test_nounderline_after_the_cell_drops_its_style_and_colour() -> None:
    attrs = Attrs("", "", False, False, False, False, False, False, False, False)
    assert rendition("underline [us:3] [uc:100] nounderline", attrs, ColorDepth.DEPTH_8_BIT, ALL) == (attrs, "")


def test_capture_and_decrqss_give_an_index_as_an_index() -> None:
    s = screen_with(b"\x1b[38;5;208;48;5;21;4;58;5;1mX\x1b[0m")
    assert "\x1b[0;4;38;5;208;48;5;21;58;5;1mX" in capture_text([s.buffer[0]], 20, ansi=True)
    replies: list[str] = []
    s = TermScreen(20, 2, write_process_input=replies.append)
    s.feed(b"\x1b[38;5;208m\x1bP$qm\x1b\\")
    assert replies and "38;5;208" in replies[-1] and "255;135;0" not in replies[-1]


def test_terminfo_entries_are_read_with_their_extended_capabilities() -> None:
    tmux = read_terminfo("tmux-256color", {})
    vte = read_terminfo("vte-256color", {})
    xterm = read_terminfo("xterm-256color", {})
    if tmux is None or vte is None or xterm is None:
        pytest.skip("ncurses-base's entries are not installed")
    assert tmux.numbers["colors"] == 256 and tmux.strings["Smulx"] == b"\x1b[4:%p1%dm"
    assert vte.has("Smol") and vte.has("setal") and vte.has("Smulx")
    assert not xterm.has("Smulx") and "AX" in xterm.flags
    assert read_terminfo("no-such-terminal", {}) is None
    assert read_terminfo("../etc/passwd", {}) is None


def test_a_broken_entry_is_refused_not_misread(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        parse_entry(b"garbage that is not an entry")
    with pytest.raises(struct.error):
        parse_entry(b"\x1a\x01")
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "trunc").write_bytes(struct.pack("<6h", 0o432, 5, 0, 20, 0, 0) + b"abc")
    assert read_terminfo("trunc", {"TERMINFO": str(tmp_path)}) is None


def test_features_from_the_terminfo_entry_or_the_terminals_name() -> None:
    if read_terminfo("vte-256color", {}) is None:
        pytest.skip("ncurses-base's entries are not installed")
    assert terminal_features({"TERM": "xterm-256color"}) == NO_FEATURES
    assert terminal_features({"TERM": "vte-256color"}) == ALL  # Smulx, setal, Smol
    assert terminal_features({"TERM": "tmux-256color"}).styled_underline  # Smulx
    assert terminal_features({"TERM": "screen-256color", "TMUX": "/tmp/tmux-0/default,1,0"}) == ALL
    assert terminal_features({"TERM": "xterm-kitty"}) == ALL
    assert terminal_features({"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}) == ALL
    assert terminal_features({"TERM": "foot"}) == Features(True, True, False)
    assert terminal_features({"TERM": "xterm-256color", "VTE_VERSION": "7600"}) == ALL
    assert terminal_features({"TERM": "dumb"}) == NO_FEATURES
