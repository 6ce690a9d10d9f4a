"""Random sequences of layout operations keep the invariants: exact cover, no overlap, lossless round trip."""

from __future__ import annotations

import random

from dsh.layout import DIRECTIONS, Rect, TabSet, next_id


def check_invariants(tabs: TabSet, area: Rect) -> None:
    ids = tabs.pane_ids()
    assert len(ids) == len(set(ids))
    shown = tabs.active_index
    for index in range(len(tabs)):
        tabs.select_tab(index)
        tab = tabs.active_tab
        assert tab.active_pane in tab.pane_ids()
        assert tab.active_pane not in tab.last_active
        assert set(tab.last_active) <= set(tab.pane_ids())
        layout = tabs.rects(area)
        cells: set[tuple[int, int]] = set()
        for rect in layout.rects.values():
            assert area.x <= rect.x and rect.right <= area.right
            assert area.y <= rect.y and rect.bottom <= area.bottom
            block = {(x, y) for x in range(rect.x, rect.right) for y in range(rect.y, rect.bottom)}
            assert not block & cells
            cells |= block
        if not layout.too_small and not tab.zoomed:
            for border in layout.borders:
                if border.orientation == "vertical":
                    line = {(border.x, y) for y in range(border.y, border.y + border.length)}
                else:
                    line = {(x, border.y) for x in range(border.x, border.x + border.length)}
                assert not line & cells
                cells |= line
            assert len(cells) == area.width * area.height
    tabs.select_tab(shown)
    assert TabSet.from_dict(tabs.to_dict()).to_dict() == tabs.to_dict()


def fresh(used: list[str]) -> str:
    pane = next_id("p", used)
    used.append(pane)
    return pane


def test_random_operations_keep_invariants() -> None:
    rng = random.Random(4)
    for _round in range(20):
        area = Rect(rng.randrange(0, 3), rng.randrange(0, 3), rng.randrange(1, 100), rng.randrange(1, 36))
        tabs = TabSet()
        used: list[str] = []

        tabs.new_tab(fresh(used))
        for _step in range(30):
            op = rng.choice(["split", "split", "close", "focus", "resize", "swap", "zoom", "tab", "next"])
            if op == "split":
                tabs.split(fresh(used), rng.choice(["row", "column"]), before=rng.random() < 0.3)
            elif op == "close" and len(tabs.pane_ids()) > 1:
                result = tabs.close_pane(rng.choice(tabs.pane_ids()))
                assert result.new_active == tabs.active_pane
            elif op == "focus":
                tabs.focus_direction(rng.choice(DIRECTIONS), area)
            elif op == "resize":
                moved = tabs.resize(rng.choice(DIRECTIONS), rng.randrange(1, 30), area)
                assert moved >= 0
            elif op == "swap":
                tabs.swap(rng.choice(["next", "prev", *DIRECTIONS]), area)
            elif op == "zoom":
                tabs.toggle_zoom()
            elif op == "tab":
                tabs.new_tab(fresh(used))
            else:
                tabs.next_tab()
            check_invariants(tabs, area)
