"""Tabs and split trees to and from JSON-safe dicts; reading validates everything and says what is wrong.

Shape (version 1):
    {"version": 1, "active_index": 0, "tabs": [{"id": "t1", "title": null, "active_pane": "p1",
      "zoomed": false, "last_active": ["p2"], "root": NODE}]}
    NODE = {"pane": "p1"} | {"split": "row" | "column", "children": [NODE, ...], "weights": [1.0, ...]}

Broken structure (wrong types, bad or duplicate ids, empty splits, bad weights, too deep) raises
LayoutError. References that merely dangle are repaired: an unknown active pane becomes the tab's first
pane, unknown `last_active` entries are dropped, an out-of-range `active_index` is clamped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dsh.layout import tree
from dsh.layout.errors import LayoutError
from dsh.layout.ids import is_valid_id
from dsh.layout.tabs import Tab, clean_title
from dsh.layout.tree import ORIENTATIONS, Leaf, Node, Split

if TYPE_CHECKING:
    from dsh.layout.tabs import TabSet

FORMAT_VERSION = 1
MAX_DEPTH = 32
MAX_PANES = 1024
MAX_TABS = 256


def node_to_dict(node: Node) -> dict[str, Any]:
    """A JSON-safe picture of a split tree."""
    if isinstance(node, Leaf):
        return {"pane": node.pane_id}
    return {
        "split": node.orientation,
        "children": [node_to_dict(child) for child in node.children],
        "weights": [float(w) for w in node.weights],
    }


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _check_id(value: object, where: str, what: str) -> str:
    if not is_valid_id(value):
        raise LayoutError(f"{where}: invalid {what} {repr(value)[:40]}")
    return value


class _Reader:
    def __init__(self) -> None:
        self.panes: set[str] = set()

    def node(self, data: object, where: str, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise LayoutError(f"{where}: splits nested deeper than {MAX_DEPTH}")
        if not isinstance(data, Mapping):
            raise LayoutError(f"{where}: expected a pane or a split object, got {_type_name(data)}")
        if "pane" in data:
            pane_id = _check_id(data["pane"], where, "pane id")
            if pane_id in self.panes:
                raise LayoutError(f"{where}: pane id {pane_id!r} appears twice")
            if len(self.panes) >= MAX_PANES:
                raise LayoutError(f"{where}: more than {MAX_PANES} panes")
            self.panes.add(pane_id)
            return Leaf(pane_id)
        orientation = data.get("split")
        if orientation not in ORIENTATIONS:
            raise LayoutError(f"{where}: expected \"pane\", or \"split\" as 'row' or 'column'")
        children = data.get("children")
        if not isinstance(children, list) or not children:
            raise LayoutError(f"{where}: a split needs a non-empty list of children")
        weights = data.get("weights")
        if weights is None:
            weights = [1.0] * len(children)
        if not isinstance(weights, list) or len(weights) != len(children):
            raise LayoutError(f"{where}: a split needs one weight per child")
        for i, weight in enumerate(weights):
            if isinstance(weight, bool) or not isinstance(weight, int | float):
                raise LayoutError(f"{where}.weights[{i}]: expected a number, got {_type_name(weight)}")
            if not math.isfinite(weight) or weight <= 0:
                raise LayoutError(f"{where}.weights[{i}]: a weight must be a positive number")
        nodes = [self.node(child, f"{where}.children[{i}]", depth + 1) for i, child in enumerate(children)]
        return tree.normalize(Split(orientation, nodes, [float(w) for w in weights]))


def node_from_dict(data: object) -> Node:
    """Read a split tree written by `node_to_dict`; LayoutError when malformed."""
    return _Reader().node(data, "root", 0)


def tabset_to_dict(tabs: TabSet) -> dict[str, Any]:
    """A JSON-safe picture of every tab."""
    return {
        "version": FORMAT_VERSION,
        "active_index": tabs.active_index,
        "tabs": [
            {
                "id": tab.id,
                "title": tab.title,
                "active_pane": tab.active_pane,
                "zoomed": tab.zoomed,
                "last_active": list(tab.last_active),
                "root": node_to_dict(tab.root),
            }
            for tab in tabs.tabs
        ],
    }


def tabset_from_dict(data: object, into: TabSet) -> TabSet:
    """Fill the empty `into` from `tabset_to_dict` output; LayoutError when malformed."""

    if not isinstance(data, Mapping):
        raise LayoutError(f"layout: expected an object, got {_type_name(data)}")
    version = data.get("version", FORMAT_VERSION)
    if isinstance(version, bool) or not isinstance(version, int):
        raise LayoutError(f"layout: version must be a whole number, got {_type_name(version)}")
    if version > FORMAT_VERSION:
        raise LayoutError(f"layout: format version {version} is newer than this dsh reads ({FORMAT_VERSION})")
    raw_tabs = data.get("tabs")
    if not isinstance(raw_tabs, list) or not raw_tabs:
        raise LayoutError("layout: expected a non-empty list of tabs")
    if len(raw_tabs) > MAX_TABS:
        raise LayoutError(f"layout: more than {MAX_TABS} tabs")
    reader = _Reader()
    tabs: list[Tab] = []
    for i, raw in enumerate(raw_tabs):
        where = f"tabs[{i}]"
        if not isinstance(raw, Mapping):
            raise LayoutError(f"{where}: expected an object, got {_type_name(raw)}")
        tab_id = _check_id(raw.get("id"), where, "tab id")
        if any(t.id == tab_id for t in tabs):
            raise LayoutError(f"{where}: tab id {tab_id!r} appears twice")
        title = raw.get("title")
        if title is not None and not isinstance(title, str):
            raise LayoutError(f"{where}.title: expected text or null, got {_type_name(title)}")
        root = reader.node(raw.get("root"), f"{where}.root", 0)
        panes = tree.pane_ids(root)
        active = raw.get("active_pane")
        if active is not None and not isinstance(active, str):
            raise LayoutError(f"{where}.active_pane: expected text, got {_type_name(active)}")
        if active not in panes:
            active = panes[0]
        zoomed = raw.get("zoomed", False)
        if not isinstance(zoomed, bool):
            raise LayoutError(f"{where}.zoomed: expected true or false, got {_type_name(zoomed)}")
        last = raw.get("last_active", [])
        if not isinstance(last, list):
            raise LayoutError(f"{where}.last_active: expected a list, got {_type_name(last)}")
        known = [x for x in last if isinstance(x, str) and x in panes and x != active]
        last_active = list(dict.fromkeys(known))
        zoomed = zoomed and len(panes) > 1
        tabs.append(Tab(tab_id, clean_title(title), root, active, zoomed, last_active))
    index = data.get("active_index", 0)
    if isinstance(index, bool) or not isinstance(index, int):
        raise LayoutError(f"layout.active_index: expected a whole number, got {_type_name(index)}")
    into.tabs = tabs
    into.active_index = min(max(index, 0), len(tabs) - 1)
    return into
