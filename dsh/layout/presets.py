"""tmux's five preset layouts (select-layout) and its spread (select-layout -E), cell for cell.

Each preset is worked out as tmux 3.3a's layout-set.c does, in whole cells for the tab's area, and the
tree it builds carries those cell sizes as its weights, so `layout_rects` gives back exactly tmux's
rectangles at that size (and scales them like any other tree when the window changes size). The
panes take their places in reading order, the first being the "main" one, as tmux uses its pane list.
"""

from __future__ import annotations

from dsh.layout.errors import LayoutError
from dsh.layout.tree import Leaf, Node, Orientation, Split

LAYOUT_NAMES = ("even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled")
# tmux's PANE_MINIMUM: the size a preset gives a pane at the least. dsh's own minimum (a header and a
# line) is applied afterwards by the geometry, which only matters where tmux leaves a pane one cell.
PANE_MINIMUM = 1
# tmux's defaults for main-pane-height and main-pane-width.
MAIN_PANE_HEIGHT = "24"
MAIN_PANE_WIDTH = "80"


def lookup(name: str) -> str:
    """The preset `name` names: its full name or a unique prefix of it (as tmux takes `main-h`)."""
    name = name.strip().lower()
    matches = [full for full in LAYOUT_NAMES if full.startswith(name)] if name else []
    if name in LAYOUT_NAMES:
        return name
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise LayoutError(f"unknown layout {name!r}: one of {', '.join(LAYOUT_NAMES)}")
    raise LayoutError(f"ambiguous layout {name!r}: {', '.join(matches)}")


def size_option(value: object, available: int, default: int = 0) -> int:
    """A main-pane size as tmux reads it: cells (`24`), or a percentage of `available` (`60%`); more than
    `available` is `default`, as tmux falls back to its default there."""
    text = str(value).strip()
    try:
        if text.endswith("%"):
            percent = int(text[:-1])
            if not 0 <= percent <= 100:
                raise ValueError
            return available * percent // 100
        cells = int(text)
        if cells < 0:
            raise ValueError
        return cells if cells <= available else default
    except ValueError:
        raise LayoutError(f"a main pane size is cells or a percentage (24, 60%), not {text!r}") from None


def size_problem(value: str) -> str | None:
    """None when `value` is a main pane size the presets can read; else what is wrong (for config)."""
    try:
        size_option(value, 100)
    except LayoutError as exc:
        return str(exc)
    return None


def spread(size: int, number: int) -> list[int] | None:
    """`size` cells less the borders shared out as tmux's layout_spread_cell does: the same to each, the
    rest to the last; None when there is not a cell for each."""
    if number <= 0 or size < number - 1:
        return None
    each = (size - (number - 1)) // number
    if each == 0:
        return None
    return [each] * (number - 1) + [size - (each + 1) * (number - 1)]


def _line(orientation: Orientation, pane_ids: list[str], size: int) -> Node:
    if len(pane_ids) == 1:
        return Leaf(pane_ids[0])
    sizes = spread(size, len(pane_ids)) or [1] * len(pane_ids)
    return Split(orientation, [Leaf(p) for p in pane_ids], [float(s) for s in sizes])


def _main_sizes(available: int, main_option: str, default: str) -> tuple[int, int]:
    """(main, other) along the main pane's axis, as layout_set_main_h/_v work them out (the other-pane
    option left at its default, 0)."""
    main = size_option(main_option, available, int(default))
    if main + PANE_MINIMUM >= available:
        main = PANE_MINIMUM if available <= 2 * PANE_MINIMUM else available - PANE_MINIMUM
        return main, PANE_MINIMUM
    return main, available - main


def _tiled(pane_ids: list[str], width: int, height: int) -> Node:
    n = len(pane_ids)
    rows = columns = 1
    while rows * columns < n:
        rows += 1
        if rows * columns < n:
            columns += 1
    cell_width = max(PANE_MINIMUM, (width - (columns - 1)) // columns)
    cell_height = max(PANE_MINIMUM, (height - (rows - 1)) // rows)
    row_nodes: list[Node] = []
    heights: list[float] = []
    rest = list(pane_ids)
    for _ in range(rows):
        if not rest:
            break
        if len(rest) == 1 or columns == 1:
            row_nodes.append(Leaf(rest.pop(0)))
        else:
            these, rest = rest[:columns], rest[columns:]
            widths = [cell_width] * len(these)
            used = len(these) * (cell_width + 1) - 1
            if width > used:  # the row's last pane takes what is left of the width
                widths[-1] += width - used
            row_nodes.append(Split("row", [Leaf(p) for p in these], [float(w) for w in widths]))
        heights.append(float(cell_height))
    used = rows * cell_height + rows - 1
    if height > used:  # and the last row what is left of the height
        heights[-1] += height - used
    if len(row_nodes) == 1:
        return row_nodes[0]
    return Split("column", row_nodes, heights)


def build(
    name: str,
    pane_ids: list[str],
    width: int,
    height: int,
    *,
    main_pane_height: str = MAIN_PANE_HEIGHT,
    main_pane_width: str = MAIN_PANE_WIDTH,
) -> Node:
    """The split tree of preset `name` for `pane_ids` (reading order, the first is the main pane) in an
    area of `width` x `height` cells."""
    name = lookup(name)
    if not pane_ids:
        raise LayoutError("a layout needs a pane")
    if len(pane_ids) == 1:
        return Leaf(pane_ids[0])
    first, others = pane_ids[0], pane_ids[1:]
    if name == "even-horizontal":
        return _line("row", pane_ids, width)
    if name == "even-vertical":
        return _line("column", pane_ids, height)
    if name == "main-horizontal":
        main, other = _main_sizes(height - 1, main_pane_height, MAIN_PANE_HEIGHT)
        return Split("column", [Leaf(first), _line("row", others, width)], [float(main), float(other)])
    if name == "main-vertical":
        main, other = _main_sizes(width - 1, main_pane_width, MAIN_PANE_WIDTH)
        return Split("row", [Leaf(first), _line("column", others, height)], [float(main), float(other)])
    return _tiled(pane_ids, width, height)
