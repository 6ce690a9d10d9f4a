"""Tabs and the split tree as plain data: split, close, focus by direction, zoom, resize, serialize."""

from dsh.layout.errors import LayoutError
from dsh.layout.geometry import DIRECTIONS, Border, Direction, Layout, Rect, layout_rects, neighbor
from dsh.layout.ids import next_id
from dsh.layout.tabs import CloseResult, Tab, TabSet
from dsh.layout.tree import Leaf, Node, Orientation, Split

__all__ = [
    "DIRECTIONS",
    "Border",
    "CloseResult",
    "Direction",
    "Layout",
    "LayoutError",
    "Leaf",
    "Node",
    "Orientation",
    "Rect",
    "Split",
    "Tab",
    "TabSet",
    "layout_rects",
    "neighbor",
    "next_id",
]
