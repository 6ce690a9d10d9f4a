"""The tabs model: split, close, focus (by direction, next/prev), zoom, resize, swap, tabs."""

from __future__ import annotations

import pytest

from dsh.layout import LayoutError, Rect, Split, TabSet, next_id
from dsh.layout.tree import pane_ids

AREA = Rect(0, 0, 81, 25)


def two_by_two() -> TabSet:
    """p1 p2 / p3 p4, focus on p1 at the end."""
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    tabs.split("p4", "column")
    tabs.focus("p1")
    tabs.split("p3", "column")
    tabs.focus("p1")
    return tabs


def test_new_tab_and_ids() -> None:
    tabs = TabSet()
    tab = tabs.new_tab("p1", title="work")
    assert tab.id == "t1" and tab.title == "work"
    assert tabs.active_pane == "p1"
    second = tabs.new_tab("p2")
    assert second.id == "t2" and second.title is None
    assert tabs.active_index == 1
    assert tabs.pane_ids() == ["p1", "p2"]
    assert tabs.tab_of("p1") is tab
    assert tabs.tab_of("nope") is None


def test_ids_are_checked() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    with pytest.raises(LayoutError, match="already in use"):
        tabs.split("p1", "row")
    with pytest.raises(LayoutError, match="invalid pane id"):
        tabs.split("../etc", "row")
    with pytest.raises(LayoutError, match="already in use"):
        tabs.new_tab("p9", tab_id="t1")
    assert tabs.pane_ids() == ["p1"]


def test_next_id_counts_past_the_highest() -> None:
    assert next_id("p", []) == "p1"
    assert next_id("p", ["p1", "p7", "t9", "px", "p3"]) == "p8"
    assert next_id("t", ["p1", "p2"]) == "t1"


def test_split_focuses_new_pane_and_places_it() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    assert tabs.active_pane == "p2"
    assert pane_ids(tabs.active_tab.root) == ["p1", "p2"]
    tabs.split("p0", "row", pane_id="p1", before=True)
    assert pane_ids(tabs.active_tab.root) == ["p0", "p1", "p2"]
    root = tabs.active_tab.root
    # joining a same-orientation parent keeps one flat split and halves the target's share
    assert isinstance(root, Split) and root.orientation == "row"
    assert root.weights == [0.5, 0.5, 1.0]


def test_split_other_orientation_nests() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    tabs.split("p3", "column")
    root = tabs.active_tab.root
    assert isinstance(root, Split) and root.orientation == "row"
    inner = root.children[1]
    assert isinstance(inner, Split) and inner.orientation == "column"
    assert pane_ids(inner) == ["p2", "p3"]


def test_split_in_other_tab_switches_to_it() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.new_tab("p2")
    tabs.split("p3", "row", pane_id="p1")
    assert tabs.active_index == 0 and tabs.active_pane == "p3"


def test_focus_direction_grid() -> None:
    tabs = two_by_two()
    assert tabs.focus_direction("right", AREA) and tabs.active_pane == "p2"
    assert tabs.focus_direction("down", AREA) and tabs.active_pane == "p4"
    assert tabs.focus_direction("left", AREA) and tabs.active_pane == "p3"
    assert tabs.focus_direction("up", AREA) and tabs.active_pane == "p1"
    assert not tabs.focus_direction("up", AREA)
    assert not tabs.focus_direction("left", AREA)
    assert tabs.active_pane == "p1"


def test_focus_direction_returns_to_last_active_in_l_shape() -> None:
    tabs = TabSet()
    tabs.new_tab("a")
    tabs.split("b", "row")
    tabs.split("c", "column")  # a | (b / c), focus c
    assert tabs.focus_direction("left", AREA) and tabs.active_pane == "a"
    assert tabs.focus_direction("right", AREA) and tabs.active_pane == "c"
    tabs.focus("b")
    tabs.focus_direction("left", AREA)
    assert tabs.focus_direction("right", AREA) and tabs.active_pane == "b"


def test_focus_direction_rejects_bad_direction() -> None:
    tabs = two_by_two()
    with pytest.raises(LayoutError, match="direction"):
        tabs.focus_direction("sideways", AREA)  # type: ignore[arg-type]


def test_focus_next_prev_wrap() -> None:
    tabs = two_by_two()
    order = pane_ids(tabs.active_tab.root)
    assert order == ["p1", "p3", "p2", "p4"]
    seen = []
    for _ in range(4):
        assert tabs.focus_next()
        seen.append(tabs.active_pane)
    assert seen == ["p3", "p2", "p4", "p1"]
    assert tabs.focus_prev() and tabs.active_pane == "p4"
    lone = TabSet()
    lone.new_tab("x")
    assert not lone.focus_next() and not lone.focus_prev()


def test_focus_other_tab_switches_tab() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.new_tab("p2")
    tabs.focus("p1")
    assert tabs.active_index == 0
    with pytest.raises(LayoutError, match="no pane"):
        tabs.focus("p9")


def test_close_goes_to_last_active() -> None:
    tabs = two_by_two()
    tabs.focus("p4")
    tabs.focus("p2")
    result = tabs.close_pane("p2")
    assert result.new_active == "p4" and not result.tab_closed
    assert "p2" not in tabs.pane_ids()


def test_close_without_history_goes_to_the_pane_that_takes_the_space() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    tabs.split("p3", "row")
    tab = tabs.active_tab
    tab.last_active = []
    result = tabs.close_pane("p3")
    assert result.new_active == "p2"
    assert isinstance(tab.root, Split) and tab.root.weights == [1.0, 1.0]
    tab.active_pane = "p1"
    tab.last_active = []
    result = tabs.close_pane("p1")  # first child: the next one grows
    assert result.new_active == "p2"
    assert tab.root == tabs.active_tab.root and pane_ids(tab.root) == ["p2"]


def test_close_collapses_single_child_split() -> None:
    tabs = two_by_two()
    tabs.close_pane("p3")
    root = tabs.active_tab.root
    assert isinstance(root, Split) and root.orientation == "row"
    assert pane_ids(root.children[0]) == ["p1"]
    assert not isinstance(root.children[0], Split)
    layout = tabs.rects(AREA)
    assert layout.rects["p1"].height == 25


def test_close_inactive_pane_keeps_focus() -> None:
    tabs = two_by_two()
    result = tabs.close_pane("p4")
    assert result.new_active == "p1" and tabs.active_pane == "p1"
    assert "p4" not in tabs.active_tab.last_active


def test_close_last_pane_closes_tab_then_last_tab() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.new_tab("p2")
    tabs.new_tab("p3")
    tabs.select_tab(0)
    tabs.select_tab(2)
    result = tabs.close_pane("p3")
    assert result.tab_closed and not result.last_tab_closed
    assert result.new_active == "p1"  # the tab shown before comes back
    result = tabs.close_pane("p2")
    assert result.tab_closed and tabs.active_index == 0 and result.new_active == "p1"
    result = tabs.close_pane("p1")
    assert result == type(result)(True, True, None)
    assert len(tabs) == 0
    with pytest.raises(LayoutError, match="no tabs"):
        _ = tabs.active_pane


def test_close_tab_before_the_active_one_keeps_the_active_tab() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.new_tab("p2")
    result = tabs.close_pane("p1")
    assert result.tab_closed and tabs.active_pane == "p2" and tabs.active_index == 0


def test_zoom_gives_the_whole_area_and_ends_on_focus_change() -> None:
    tabs = two_by_two()
    assert tabs.toggle_zoom()
    layout = tabs.rects(AREA)
    assert layout.rects == {"p1": AREA} and layout.borders == []
    assert not tabs.toggle_zoom()
    assert len(tabs.rects(AREA).rects) == 4
    tabs.toggle_zoom()
    assert tabs.focus_direction("right", AREA)  # navigation still sees the real layout
    assert tabs.active_pane == "p2" and not tabs.active_tab.zoomed


def test_zoom_lone_pane_is_refused() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    assert not tabs.toggle_zoom()


def test_zoom_too_small() -> None:
    tabs = two_by_two()
    tabs.toggle_zoom()
    assert tabs.rects(Rect(0, 0, 3, 1)).too_small


def test_resize_moves_exactly_n_cells() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    before = tabs.rects(AREA).rects
    assert before["p1"].width == 40 and before["p2"].width == 40
    # p2 has a border on its left: it moves left, p2 grows
    assert tabs.resize("left", 5, AREA) == 5
    after = tabs.rects(AREA).rects
    assert after["p1"].width == 35 and after["p2"].width == 45 and after["p2"].x == 36
    # no border on p2's right: its left border moves right instead, p2 shrinks
    assert tabs.resize("right", 3, AREA) == 3
    assert tabs.rects(AREA).rects["p2"].width == 42
    tabs.focus("p1")
    assert tabs.resize("right", 1, AREA) == 1
    assert tabs.rects(AREA).rects["p1"].width == 39


def test_resize_clamps_at_minimum() -> None:
    tabs = TabSet(min_width=5, min_height=2)
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    assert tabs.resize("left", 100, AREA) == 35
    rects = tabs.rects(AREA).rects
    assert rects["p1"].width == 5 and rects["p2"].width == 75
    assert tabs.resize("left", 1, AREA) == 0
    assert not tabs.rects(AREA).too_small


def test_resize_vertical_in_nested_grid() -> None:
    tabs = two_by_two()  # focus p1, top-left
    assert tabs.resize("down", 4, AREA) == 4
    rects = tabs.rects(AREA).rects
    assert rects["p1"].height == 16 and rects["p3"].height == 8
    assert rects["p2"].height == 12  # the other column is untouched
    assert tabs.resize("up", 2, AREA) == 2
    assert tabs.rects(AREA).rects["p1"].height == 14


def test_resize_reaches_an_outer_split() -> None:
    tabs = two_by_two()
    tabs.focus("p3")  # bottom-left: its right border belongs to the outer row split
    assert tabs.resize("right", 6, AREA) == 6
    rects = tabs.rects(AREA).rects
    assert rects["p1"].width == 46 and rects["p3"].width == 46 and rects["p2"].width == 34


def test_resize_lone_pane_or_zero_does_nothing() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    assert tabs.resize("left", 5, AREA) == 0
    tabs.split("p2", "column")
    assert tabs.resize("left", 5, AREA) == 0
    assert tabs.resize("up", 0, AREA) == 0


def test_a_dragged_border_goes_where_the_mouse_takes_it() -> None:
    tabs = two_by_two()  # the outer border is column 40; p1 | p2 above p3 | p4
    rects = tabs.rects(AREA).rects
    assert rects["p1"].right == 40
    assert tabs.drag_border(AREA, 40, 3, 30) == 30  # grabbed anywhere along it
    rects = tabs.rects(AREA).rects
    assert rects["p1"].width == 30 and rects["p3"].width == 30 and rects["p2"].x == 31
    assert tabs.drag_border(AREA, 30, 20, 2) == 5  # no further than the left panes' minimum width
    # the stacked panes' border in the left column moves only there
    top, right_column = tabs.rects(AREA).rects["p1"].bottom, tabs.rects(AREA).rects["p2"].height
    assert tabs.drag_border(AREA, 2, top, top + 3) == top + 3
    rects = tabs.rects(AREA).rects
    assert rects["p1"].height == top + 3 and rects["p2"].height == right_column
    assert tabs.drag_border(AREA, 50, 5, 10) is None  # no border there
    tabs.toggle_zoom()
    assert tabs.drag_border(AREA, 5, top + 3, 1) is None  # a zoomed tab shows no borders


def test_swap_next_prev_and_direction() -> None:
    tabs = two_by_two()
    rect_before = tabs.rects(AREA).rects["p1"]
    assert tabs.swap("next")
    assert pane_ids(tabs.active_tab.root) == ["p3", "p1", "p2", "p4"]
    assert tabs.active_pane == "p1"
    assert tabs.swap("prev")
    assert pane_ids(tabs.active_tab.root) == ["p1", "p3", "p2", "p4"]
    assert tabs.swap("right", AREA)
    assert pane_ids(tabs.active_tab.root) == ["p2", "p3", "p1", "p4"]
    assert tabs.rects(AREA).rects["p2"] == rect_before
    assert not tabs.swap("right", AREA)
    with pytest.raises(LayoutError, match="area"):
        tabs.swap("left")


def test_swap_lone_pane() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    assert not tabs.swap("next")


def test_tabs_next_prev_select_rename() -> None:
    tabs = TabSet()
    for pane in ("p1", "p2", "p3"):
        tabs.new_tab(pane)
    assert tabs.next_tab() and tabs.active_index == 0
    assert tabs.prev_tab() and tabs.active_index == 2
    tabs.select_tab(1)
    assert tabs.active_pane == "p2"
    with pytest.raises(LayoutError, match="no tab 7"):
        tabs.select_tab(7)
    tabs.rename_tab("  build  ")
    assert tabs.tabs[1].title == "build"
    tabs.rename_tab("logs", index=0)
    assert tabs.tabs[0].title == "logs"
    tabs.rename_tab("")
    assert tabs.tabs[1].title is None
    with pytest.raises(LayoutError):
        tabs.rename_tab("x", index=5)
    lone = TabSet()
    lone.new_tab("p1")
    assert not lone.next_tab() and not lone.prev_tab()


def test_focus_last_toggles_between_two_panes() -> None:
    tabs = two_by_two()
    tabs.focus("p4")
    assert tabs.focus_last() and tabs.active_pane == "p1"
    assert tabs.focus_last() and tabs.active_pane == "p4"
    lone = TabSet()
    lone.new_tab("x")
    assert not lone.focus_last()


def test_split_before_in_other_orientation_nests_new_pane_first() -> None:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    tabs.split("p3", "column", pane_id="p1", before=True)
    root = tabs.active_tab.root
    assert isinstance(root, Split)
    assert pane_ids(root) == ["p3", "p1", "p2"]
    rects = tabs.rects(AREA).rects
    assert rects["p3"].y == 0 and rects["p1"].y > rects["p3"].bottom - 1
    assert tabs.active_pane == "p3"


def test_resize_ends_zoom() -> None:
    tabs = two_by_two()
    tabs.toggle_zoom()
    assert tabs.resize("down", 1, AREA) == 1
    assert not tabs.active_tab.zoomed
    assert len(tabs.rects(AREA).rects) == 4


def test_zero_minimum_is_raised_to_one_cell() -> None:
    tabs = TabSet(min_width=0, min_height=0)
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    assert tabs.resize("left", 500, AREA) == 39
    assert tabs.rects(AREA).rects["p1"].width == 1


def test_tab_titles_never_keep_control_characters() -> None:
    tabs = TabSet()
    tabs.new_tab("p1", title="\x1b]0;evil\x07build")
    assert tabs.active_tab.title == "^[]0;evil^Gbuild"
    tabs.rename_tab("a\x1b[2Jb")
    assert tabs.active_tab.title == "a^[[2Jb"
