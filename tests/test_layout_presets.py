"""tmux's preset layouts and spread: dsh's rectangles against a real tmux's panes at the same size."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.layout import LayoutError, Rect, TabSet, layout_rects, presets

SIZES = [(160, 45), (80, 24)]
COUNTS = range(2, 10)


class Tmux:
    """A tmux server of its own (its own socket, no config, no status line), for its pane geometry."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0, f"tmux {' '.join(args)}: {done.stderr}"
        return done.stdout

    def panes(self) -> list[tuple[int, int, int, int]]:
        """(x, y, width, height) of each pane, in tmux's pane order (the order its layouts place them)."""
        out = self.run("list-panes", "-F", "#{pane_left} #{pane_top} #{pane_width} #{pane_height}")
        return [tuple(int(n) for n in line.split()) for line in out.splitlines()]  # type: ignore[misc]


@pytest.fixture
def tmux(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed (.ci/run installs it)"
    server = Tmux(tmp_path_factory.mktemp("tmux") / "s")
    server.run("new-session", "-d", "-x", "160", "-y", "45", "sleep 3600", ";", "set", "-g", "status", "off")
    server.run("set", "-g", "window-size", "manual")
    try:
        yield server
    finally:
        subprocess.run(["tmux", "-S", str(server.socket), "kill-server"], capture_output=True, timeout=30)


def dsh_rects(name: str, count: int, width: int, height: int, **options: str) -> list[tuple[int, int, int, int]]:
    ids = [f"p{i}" for i in range(1, count + 1)]
    root = presets.build(name, ids, width, height, **options)
    rects = layout_rects(root, Rect(0, 0, width, height)).rects
    return [(rects[p].x, rects[p].y, rects[p].width, rects[p].height) for p in ids]


def each_case(tmux: Tmux) -> Iterator[tuple[int, int, int]]:
    """Every pane count with every size, tmux's window holding that many panes at that size."""
    panes = 1
    for count in COUNTS:
        while panes < count:
            # Tiled between splits so that nine fit in 80x24; the presets rebuild from the pane list.
            tmux.run("split-window", "-d", "sleep 3600", ";", "select-layout", "tiled")
            panes += 1
        for width, height in SIZES:
            tmux.run("resize-window", "-x", str(width), "-y", str(height))
            yield count, width, height


def test_every_preset_matches_tmux_cell_for_cell(tmux: Tmux) -> None:
    """Each preset for 2 to 9 panes at 160x45 and 80x24, as tmux 3.3a lays it out. At 80x24 the main
    pane of main-horizontal and main-vertical is given a size that leaves the others room, in both
    (tmux's defaults, 24 rows and 80 columns, leave them one row or column there: the next test)."""
    compared = 0
    for count, width, height in each_case(tmux):
        small = width < 100
        options = {"main_pane_height": "16", "main_pane_width": "60"} if small else {}
        tmux.run("set", "-w", "main-pane-height", options.get("main_pane_height", "24"))
        tmux.run("set", "-w", "main-pane-width", options.get("main_pane_width", "80"))
        for name in presets.LAYOUT_NAMES:
            tmux.run("select-layout", name)
            assert dsh_rects(name, count, width, height, **options) == tmux.panes(), (name, count, width, height)
            compared += 1
    assert compared == len(COUNTS) * len(SIZES) * len(presets.LAYOUT_NAMES)


def test_a_percentage_main_pane_matches_tmux(tmux: Tmux) -> None:
    for count, width, height in each_case(tmux):
        if count not in (3, 6):
            continue
        tmux.run("set", "-w", "main-pane-height", "60%", ";", "set", "-w", "main-pane-width", "35%")
        for name in ("main-horizontal", "main-vertical"):
            tmux.run("select-layout", name)
            got = dsh_rects(name, count, width, height, main_pane_height="60%", main_pane_width="35%")
            assert got == tmux.panes(), (name, count, width, height)


def test_tmux_defaults_in_a_small_area_keep_dsh_minimum() -> None:
    """tmux gives the other panes one row under a 22-row main pane at 80x24; a dsh pane needs its header
    and a line, so the main pane gives one up (the tree still says tmux's sizes)."""
    root = presets.build("main-horizontal", ["p1", "p2", "p3"], 80, 24)
    assert root.weights == [22.0, 1.0]  # type: ignore[union-attr]
    rects = layout_rects(root, Rect(0, 0, 80, 24)).rects
    assert (rects["p1"].height, rects["p2"].height, rects["p2"].y) == (21, 2, 22)
    root = presets.build("main-vertical", ["p1", "p2"], 80, 24)
    rects = layout_rects(root, Rect(0, 0, 80, 24)).rects
    assert (rects["p1"].width, rects["p2"].width) == (74, 5)


def test_names_and_prefixes() -> None:
    assert presets.lookup("tiled") == "tiled"
    assert presets.lookup("main-v") == "main-vertical"
    assert presets.lookup("EVEN-H") == "even-horizontal"
    with pytest.raises(LayoutError, match="ambiguous layout 'even'"):
        presets.lookup("even")
    with pytest.raises(LayoutError, match="unknown layout"):
        presets.lookup("spiral")
    with pytest.raises(LayoutError, match="cells or a percentage"):
        presets.build("main-h", ["p1", "p2"], 80, 24, main_pane_height="lots")
    assert presets.size_problem("40%") is None and presets.size_problem("140%")


def five_panes() -> TabSet:
    tabs = TabSet()
    tabs.new_tab("p1")
    for n in range(2, 6):
        tabs.split(f"p{n}", "column")
    return tabs


def test_select_next_layout_and_zoom() -> None:
    tabs = five_panes()
    area = Rect(0, 1, 160, 45)
    tabs.toggle_zoom()
    assert tabs.next_layout_name() == "even-horizontal"
    assert tabs.select_layout("tiled", area) == "tiled"
    assert not tabs.active_tab.zoomed
    assert tabs.next_layout_name() == "even-horizontal" and tabs.next_layout_name(-1) == "main-vertical"
    tabs.select_layout(tabs.next_layout_name(), area)
    rects = tabs.rects(area).rects
    assert [rects[f"p{n}"].width for n in range(1, 6)] == [31, 31, 31, 31, 32]
    assert {r.y for r in rects.values()} == {1}
    assert tabs.active_pane == "p5"  # the focus stays where it was


def test_spread_evenly_evens_the_active_panes_split() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    tabs.split("p3", "row")  # p1 40, p2 and p3 a quarter each: tmux halves the pane split
    area = Rect(0, 0, 80, 24)
    widths = [tabs.rects(area).rects[p].width for p in ("p1", "p2", "p3")]
    assert widths == [39, 20, 19]
    assert tabs.spread_evenly(area)
    assert [tabs.rects(area).rects[p].width for p in ("p1", "p2", "p3")] == [26, 26, 26]
    assert not tabs.spread_evenly(area)  # even already: nothing changes
