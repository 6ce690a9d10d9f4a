"""The split tree: leaves hold pane ids; splits hold children side by side ("row") or stacked ("column")."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Literal, TypeAlias, TypeGuard

from dsh.layout.errors import LayoutError
from dsh.values import Value

Orientation: TypeAlias = Literal["row", "column"]
ORIENTATIONS: tuple[Orientation, ...] = ("row", "column")


def is_orientation(word: object) -> TypeGuard[Orientation]:
    """True when `word` is one of ORIENTATIONS (a typed word, a request's field)."""
    return word in ORIENTATIONS


class Leaf(Value, fields=("pane_id",)):
    """One pane's place in the tree."""

    __slots__ = ("pane_id",)
    pane_id: str

    def __init__(self, pane_id: str) -> None:
        self.pane_id = pane_id


class Split(Value, fields=("orientation", "children", "weights")):
    """Children laid out along one axis: "row" = side by side (tmux `split -h`), "column" = stacked.

    `weights` are relative sizes, one per child; geometry turns them into whole cells.
    """

    __slots__ = ("children", "orientation", "weights")
    orientation: Orientation
    children: list[Node]
    weights: list[float]

    def __init__(self, orientation: Orientation, children: list[Node], weights: list[float] | None = None) -> None:
        self.orientation = orientation
        self.children = children
        self.weights = [] if weights is None else weights
        self.__post_init__()

    def __post_init__(self) -> None:
        if self.orientation not in ORIENTATIONS:
            raise LayoutError(f"split orientation must be 'row' or 'column', not {self.orientation!r}")
        if not self.weights:
            self.weights = [1.0] * len(self.children)
        if len(self.weights) != len(self.children):
            raise LayoutError(f"a split has {len(self.children)} children but {len(self.weights)} weights")


Node: TypeAlias = Leaf | Split

# A path from the root to a node: each step is (split, index of the child taken).
Path: TypeAlias = list[tuple[Split, int]]


def iter_leaves(node: Node) -> Iterator[Leaf]:
    """Leaves in reading order (left to right, top to bottom)."""
    if isinstance(node, Leaf):
        yield node
        return
    for child in node.children:
        yield from iter_leaves(child)


def pane_ids(node: Node) -> list[str]:
    """Pane ids in reading order."""
    return [leaf.pane_id for leaf in iter_leaves(node)]


def find_path(node: Node, pane_id: str) -> Path | None:
    """The splits (and child indexes) leading from `node` to the leaf holding `pane_id`, or None."""
    if isinstance(node, Leaf):
        return [] if node.pane_id == pane_id else None
    for index, child in enumerate(node.children):
        rest = find_path(child, pane_id)
        if rest is not None:
            return [(node, index), *rest]
    return None


def find_leaf(node: Node, pane_id: str) -> Leaf | None:
    """The leaf holding `pane_id`, or None."""
    for leaf in iter_leaves(node):
        if leaf.pane_id == pane_id:
            return leaf
    return None


def _clean_weight(weight: float) -> float:
    return weight if isinstance(weight, int | float) and math.isfinite(weight) and weight > 0 else 1.0


def normalize(node: Node) -> Node:
    """Collapse splits with one child into that child and repair weights; same-orientation nesting stays."""
    if isinstance(node, Leaf):
        return node
    children = [normalize(child) for child in node.children]
    if len(children) == 1:
        return children[0]
    node.children = children
    node.weights = [_clean_weight(w) for w in node.weights]
    return node


def split_pane(root: Node, target: str, new_id: str, orientation: Orientation, *, before: bool = False) -> Node:
    """Put a new leaf next to `target` and return the (possibly new) root.

    When the target's parent already runs along `orientation`, the new pane joins it and takes half of
    the target's share (as tmux does); otherwise the target's leaf becomes a two-child split.
    """
    if orientation not in ORIENTATIONS:
        raise LayoutError(f"split orientation must be 'row' or 'column', not {orientation!r}")
    path = find_path(root, target)
    if path is None:
        raise LayoutError(f"no pane {target!r} in this tab")
    new_leaf = Leaf(new_id)
    if not path:
        return Split(orientation, [new_leaf, root] if before else [root, new_leaf])
    parent, index = path[-1]
    if parent.orientation == orientation:
        half = parent.weights[index] / 2
        at = index if before else index + 1
        parent.weights[index] = half
        parent.children.insert(at, new_leaf)
        parent.weights.insert(at, half)
        return root
    old = parent.children[index]
    parent.children[index] = Split(orientation, [new_leaf, old] if before else [old, new_leaf])
    return root


def remove_pane(root: Node, pane_id: str) -> tuple[Node | None, str | None]:
    """Remove the leaf holding `pane_id`; return (new root or None if it was the only leaf, heir pane).

    The space goes to the previous sibling, or the next one when the pane was first (tmux's rule); the
    heir is the pane of that sibling nearest to where the removed pane was.
    """
    path = find_path(root, pane_id)
    if path is None:
        raise LayoutError(f"no pane {pane_id!r} in this tab")
    if not path:
        return None, None
    parent, index = path[-1]
    weight = parent.weights[index]
    del parent.children[index]
    del parent.weights[index]
    receiver = index - 1 if index > 0 else 0
    parent.weights[receiver] += weight
    heir_leaves = pane_ids(parent.children[receiver])
    heir = heir_leaves[-1] if receiver < index else heir_leaves[0]
    if len(parent.children) == 1:
        only = parent.children[0]
        if len(path) == 1:
            return only, heir
        grand, parent_index = path[-2]
        grand.children[parent_index] = only
    return root, heir


def swap_panes(root: Node, first: str, second: str) -> None:
    """Exchange the places of two panes; the sizes stay where they were."""
    a, b = find_leaf(root, first), find_leaf(root, second)
    if a is None or b is None:
        missing = first if a is None else second
        raise LayoutError(f"no pane {missing!r} in this tab")
    a.pane_id, b.pane_id = b.pane_id, a.pane_id
