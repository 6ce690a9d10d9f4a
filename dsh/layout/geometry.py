"""Turn a split tree into whole-cell rectangles and separator lines, and find the pane across a border."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal, TypeAlias, TypeGuard

from dsh.layout.tree import Leaf, Node, Split
from dsh.values import Value

Direction: TypeAlias = Literal["left", "right", "up", "down"]
DIRECTIONS: tuple[Direction, ...] = ("left", "right", "up", "down")


def is_direction(word: object) -> TypeGuard[Direction]:
    """True when `word` is one of DIRECTIONS (a typed word, a request's field)."""
    return word in DIRECTIONS


# Smallest pane a layout gives out while the terminal has room for it.
MIN_WIDTH = 5
MIN_HEIGHT = 2


class Rect(Value, fields=("x", "y", "width", "height"), frozen=True):
    """A block of cells: columns x..x+width-1, rows y..y+height-1."""

    __slots__ = ("height", "width", "x", "y")
    x: int
    y: int
    width: int
    height: int

    def __init__(self, x: int, y: int, width: int, height: int) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "x", x)
        setattr_(self, "y", y)
        setattr_(self, "width", width)
        setattr_(self, "height", height)

    @property
    def right(self) -> int:
        """The first column past the rectangle."""
        return self.x + self.width

    @property
    def bottom(self) -> int:
        """The first row past the rectangle."""
        return self.y + self.height

    @property
    def empty(self) -> bool:
        """True when the rectangle holds no cell (a pane squeezed out by a tiny terminal)."""
        return self.width <= 0 or self.height <= 0


class Border(Value, fields=("x", "y", "length", "orientation"), frozen=True):
    """A one-cell separator line: "vertical" between side-by-side panes, "horizontal" between stacked ones.

    A vertical border covers column `x`, rows y..y+length-1; a horizontal one row `y`, columns x..x+length-1.
    """

    __slots__ = ("length", "orientation", "x", "y")
    x: int
    y: int
    length: int
    orientation: Literal["vertical", "horizontal"]

    def __init__(self, x: int, y: int, length: int, orientation: Literal["vertical", "horizontal"]) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "x", x)
        setattr_(self, "y", y)
        setattr_(self, "length", length)
        setattr_(self, "orientation", orientation)


class Layout(Value, fields=("rects", "borders", "too_small")):
    """Where every pane goes: `rects` by pane id, the `borders` to draw, and whether the area was too small.

    When `too_small` is set, some panes got less than the minimum size, possibly nothing (an empty Rect);
    every rectangle still lies inside the area.
    """

    __slots__ = ("borders", "rects", "too_small")
    rects: dict[str, Rect]
    borders: list[Border]
    too_small: bool

    def __init__(
        self, rects: dict[str, Rect] | None = None, borders: list[Border] | None = None, too_small: bool = False
    ) -> None:
        self.rects = {} if rects is None else rects
        self.borders = [] if borders is None else borders
        self.too_small = too_small


def distribute(total: int, weights: Sequence[float], minimums: Sequence[int]) -> list[int]:
    """Split `total` cells by `weights`, each share at least its minimum; the shares add up to `total`.

    Shares whose weighted size falls below their minimum are pinned at it and the rest re-shared; the
    whole cells left over after flooring go to the largest fractions (earlier children first on ties).
    The caller makes sure `sum(minimums) <= total`.
    """
    count = len(weights)
    if count == 0:
        return []
    total = max(0, total)
    pinned: dict[int, int] = {}
    while True:
        free = [i for i in range(count) if i not in pinned]
        if not free:
            break
        remaining = total - sum(pinned.values())
        weight_sum = sum(weights[i] for i in free)
        if weight_sum > 0:
            ideal = {i: remaining * weights[i] / weight_sum for i in free}
        else:  # weights are repaired on load; this only guards a hand-built tree
            ideal = {i: remaining / len(free) for i in free}
        short = [i for i in free if ideal[i] < minimums[i]]
        if not short:
            break
        for i in short:
            pinned[i] = minimums[i]
    sizes = [0] * count
    fractions: list[tuple[float, int]] = []
    for i in range(count):
        if i in pinned:
            sizes[i] = pinned[i]
            continue
        exact = round(ideal[i], 9)  # so 13.0 computed as 12.9999999 still counts as 13
        sizes[i] = int(exact)
        fractions.append((exact - sizes[i], i))
    leftover = total - sum(sizes)
    for _fraction, i in sorted(fractions, key=lambda item: (-item[0], item[1]))[: max(0, leftover)]:
        sizes[i] += 1
    return sizes


def _along_width(split: Split) -> bool:
    return split.orientation == "row"


def min_size(node: Node, horizontal: bool, min_width: int, min_height: int) -> int:
    """Fewest cells `node` needs across (`horizontal`) or down, borders included."""
    if isinstance(node, Leaf):
        return min_width if horizontal else min_height
    sizes = [min_size(child, horizontal, min_width, min_height) for child in node.children]
    if _along_width(node) == horizontal:
        return sum(sizes) + len(sizes) - 1
    return max(sizes)


class _Walk(Value, fields=("min_width", "min_height", "layout", "on_split")):
    __slots__ = ("layout", "min_height", "min_width", "on_split")
    min_width: int
    min_height: int
    layout: Layout
    on_split: Callable[[Split, Rect, list[int], list[int]], None] | None

    def __init__(
        self,
        min_width: int,
        min_height: int,
        layout: Layout,
        on_split: Callable[[Split, Rect, list[int], list[int]], None] | None = None,
    ) -> None:
        self.min_width = min_width
        self.min_height = min_height
        self.layout = layout
        self.on_split = on_split

    def visit(self, node: Node, rect: Rect) -> None:
        if isinstance(node, Leaf):
            self.layout.rects[node.pane_id] = rect
            if rect.width < self.min_width or rect.height < self.min_height:
                self.layout.too_small = True
            return
        horizontal = _along_width(node)
        total = (rect.width if horizontal else rect.height) - (len(node.children) - 1)
        mins = [min_size(c, horizontal, self.min_width, self.min_height) for c in node.children]
        if sum(mins) > total:
            mins = [min_size(c, horizontal, 1, 1) for c in node.children]
            if sum(mins) > total:
                mins = [0] * len(mins)
        sizes = distribute(total, node.weights, mins)
        if self.on_split is not None:
            self.on_split(node, rect, sizes, mins)
        start, end = (rect.x, rect.right) if horizontal else (rect.y, rect.bottom)
        pos = start
        for index, (child, size) in enumerate(zip(node.children, sizes, strict=True)):
            lo = min(pos, end)
            hi = min(pos + size, end)
            if horizontal:
                self.visit(child, Rect(lo, rect.y, hi - lo, rect.height))
            else:
                self.visit(child, Rect(rect.x, lo, rect.width, hi - lo))
            pos += size
            if index < len(sizes) - 1:
                if pos < end:
                    if horizontal:
                        self.layout.borders.append(Border(pos, rect.y, rect.height, "vertical"))
                    else:
                        self.layout.borders.append(Border(rect.x, pos, rect.width, "horizontal"))
                pos += 1


def layout_rects(
    node: Node,
    area: Rect,
    *,
    min_width: int = MIN_WIDTH,
    min_height: int = MIN_HEIGHT,
    on_split: Callable[[Split, Rect, list[int], list[int]], None] | None = None,
) -> Layout:
    """Lay `node` out in `area`: integer cell sizes from the weights, one border cell between siblings.

    Never raises for a small area: panes shrink to the minimum, then to one cell, then to nothing, and
    `too_small` says so. `on_split(split, rect, sizes, minimums)` sees every split's computed sizes.
    """
    area = Rect(area.x, area.y, max(0, area.width), max(0, area.height))
    walk = _Walk(max(1, min_width), max(1, min_height), Layout(), on_split)
    walk.visit(node, area)
    return walk.layout


def _overlap(a_lo: int, a_hi: int, b_lo: int, b_hi: int) -> int:
    return min(a_hi, b_hi) - max(a_lo, b_lo)


def neighbor(
    rects: Mapping[str, Rect], pane_id: str, direction: Direction, *, recent: Sequence[str] = ()
) -> str | None:
    """The pane visually across `pane_id`'s border in `direction`, or None at the edge.

    Candidates lie wholly on that side and overlap the pane along the border. The nearest wins; among
    equally near ones, the most recently active (`recent`, most recent first), then the one crossing the
    pane's centre line, then the one overlapping most, then the top-most / left-most.
    """
    active = rects.get(pane_id)
    if active is None:
        return None
    horizontal = direction in ("left", "right")
    best: tuple[tuple[float, ...], str] | None = None
    rank = {pid: i for i, pid in enumerate(recent)}
    for other_id, other in rects.items():
        if other_id == pane_id or other.empty:
            continue
        if direction == "left":
            gap = active.x - other.right
        elif direction == "right":
            gap = other.x - active.right
        elif direction == "up":
            gap = active.y - other.bottom
        else:
            gap = other.y - active.bottom
        if gap < 0:
            continue
        if horizontal:
            overlap = _overlap(active.y, active.bottom, other.y, other.bottom)
            centre = active.y + active.height / 2
            on_centre = other.y <= centre < other.bottom
            position = (other.y, other.x)
        else:
            overlap = _overlap(active.x, active.right, other.x, other.right)
            centre = active.x + active.width / 2
            on_centre = other.x <= centre < other.right
            position = (other.x, other.y)
        if overlap <= 0:
            continue
        key = (gap, rank.get(other_id, len(rank)), 0 if on_centre else 1, -overlap, *position)
        if best is None or key < best[0]:
            best = (key, other_id)
    return best[1] if best else None
