"""Layout to and from JSON-safe dicts: round trip, repairs, and hostile input."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from dsh.layout import LayoutError, Rect, TabSet
from dsh.layout.serialize import MAX_DEPTH, node_from_dict

AREA = Rect(0, 0, 100, 30)


def sample() -> TabSet:
    tabs = TabSet()
    tabs.new_tab("p1", title="editor")
    tabs.split("p2", "row")
    tabs.split("p3", "column")
    tabs.resize("left", 7, AREA)
    tabs.toggle_zoom()
    tabs.new_tab("p4", tab_id="logs")
    tabs.select_tab(0)
    return tabs


def test_round_trip_through_json() -> None:
    tabs = sample()
    data = json.loads(json.dumps(tabs.to_dict()))
    back = TabSet.from_dict(data)
    assert back.to_dict() == tabs.to_dict()
    assert back.rects(AREA) == tabs.rects(AREA)
    assert back.active_tab.zoomed and back.active_pane == "p3"
    assert back.active_tab.last_active == ["p2", "p1"]
    assert [t.id for t in back.tabs] == ["t1", "logs"]
    back.active_tab.zoomed = False
    tabs.active_tab.zoomed = False
    assert back.rects(AREA) == tabs.rects(AREA)


def good() -> dict[str, Any]:
    return copy.deepcopy(sample().to_dict())


def with_change(path: list[Any], value: Any) -> dict[str, Any]:
    data = good()
    target: Any = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return data


HOSTILE = [
    ([], "expected an object"),
    ("tabs", "expected an object"),
    ({}, "non-empty list of tabs"),
    ({"tabs": []}, "non-empty list of tabs"),
    ({"tabs": "x"}, "non-empty list of tabs"),
    ({"tabs": [None]}, r"tabs\[0\]: expected an object"),
    (with_change(["version"], 99), "newer"),
    (with_change(["version"], "1"), "version"),
    (with_change(["active_index"], "0"), "active_index"),
    (with_change(["tabs", 0, "id"], None), "invalid tab id"),
    (with_change(["tabs", 1, "id"], "t1"), "appears twice"),
    (with_change(["tabs", 0, "title"], 5), "title"),
    (with_change(["tabs", 0, "root"], None), "expected a pane or a split"),
    (with_change(["tabs", 0, "root"], {"split": "diagonal", "children": []}), "row' or 'column"),
    (with_change(["tabs", 0, "root"], {"split": "row", "children": []}), "non-empty list of children"),
    (with_change(["tabs", 0, "root", "weights"], [1]), "one weight per child"),
    (with_change(["tabs", 0, "root", "weights"], [1, "a"]), r"weights\[1\]: expected a number"),
    (with_change(["tabs", 0, "root", "weights"], [1, float("nan")]), "positive"),
    (with_change(["tabs", 0, "root", "weights"], [1, -2]), "positive"),
    (with_change(["tabs", 0, "root", "weights"], [True, 1]), "expected a number"),
    (with_change(["tabs", 0, "root", "children", 0], {"pane": "../../etc/passwd"}), "invalid pane id"),
    (with_change(["tabs", 0, "root", "children", 0], {"pane": 7}), "invalid pane id"),
    (with_change(["tabs", 0, "root", "children", 0], {"pane": "p4"}), "'p4' appears twice"),
    (with_change(["tabs", 0, "root", "children", 0], {"pane": "p2"}), "'p2' appears twice"),
    (with_change(["tabs", 0, "active_pane"], ["p1"]), "active_pane"),
    (with_change(["tabs", 0, "zoomed"], "yes"), "zoomed"),
    (with_change(["tabs", 0, "last_active"], "p1"), "last_active"),
]


@pytest.mark.parametrize("data,message", HOSTILE)
def test_hostile_input_raises_layout_error(data: Any, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        TabSet.from_dict(data)


def test_deep_nesting_is_refused_not_a_recursion_error() -> None:
    node: dict[str, Any] = {"pane": "p1"}
    for _ in range(5000):
        node = {"split": "row", "children": [node]}
    with pytest.raises(LayoutError, match="deeper than"):
        node_from_dict(node)
    ok: dict[str, Any] = {"pane": "p0"}
    for i in range(MAX_DEPTH):
        ok = {"split": "row" if i % 2 else "column", "children": [ok, {"pane": f"q{i}"}]}
    assert node_from_dict(ok) is not None


def test_dangling_references_are_repaired() -> None:
    data = good()
    data["active_index"] = 9
    data["tabs"][0]["active_pane"] = "gone"
    data["tabs"][0]["last_active"] = ["p2", "ghost", 3, "p2"]
    tabs = TabSet.from_dict(data)
    assert tabs.active_index == 1
    first = tabs.tabs[0]
    assert first.active_pane == "p1"  # the tab's first pane
    assert first.last_active == ["p2"]


def test_single_child_split_collapses_and_weights_default() -> None:
    data = good()
    data["tabs"][1]["root"] = {"split": "column", "children": [{"pane": "p4"}]}
    data["tabs"][0]["root"]["children"][1].pop("weights")
    tabs = TabSet.from_dict(data)
    assert tabs.tabs[1].root.__class__.__name__ == "Leaf"
    assert tabs.tabs[0].root.children[1].weights == [1.0, 1.0]  # type: ignore[union-attr]


def test_zoom_on_a_lone_pane_is_dropped() -> None:
    data = good()
    data["tabs"][1]["zoomed"] = True
    assert not TabSet.from_dict(data).tabs[1].zoomed


def test_long_title_is_capped() -> None:
    data = good()
    data["tabs"][0]["title"] = "x" * 10_000
    assert len(TabSet.from_dict(data).tabs[0].title or "") == 200


def test_title_from_disk_is_escaped() -> None:
    data = good()
    data["tabs"][0]["title"] = "x\x1b[31my\x9b"
    assert TabSet.from_dict(data).tabs[0].title == "x^[[31my\\x9b"
