"""Geometry: weights to whole cells, borders, tiny terminals, and the pane across a border."""

from __future__ import annotations

import pytest

from dsh.layout.geometry import Border, Rect, distribute, layout_rects, neighbor
from dsh.layout.tree import Leaf, Split

AREA = Rect(0, 0, 80, 24)


def grid() -> Split:
    """a b / c d: two columns of two stacked panes."""
    return Split(
        "row",
        [Split("column", [Leaf("a"), Leaf("c")]), Split("column", [Leaf("b"), Leaf("d")])],
    )


def covered_cells(layout) -> int:
    cells = sum(r.width * r.height for r in layout.rects.values())
    return cells + sum(b.length for b in layout.borders)


def test_distribute_adds_up_exactly_and_honours_weights() -> None:
    assert distribute(79, [1, 1], [1, 1]) == [40, 39]
    assert distribute(10, [1, 1, 1], [0, 0, 0]) == [4, 3, 3]
    assert distribute(100, [1, 3], [1, 1]) == [25, 75]
    for total in range(0, 50):
        assert sum(distribute(total, [0.3, 1.7, 2.0], [0, 0, 0])) == total


def test_distribute_pins_small_shares_at_their_minimum() -> None:
    assert distribute(30, [1, 100], [5, 5]) == [5, 25]


def test_distribute_gives_back_integer_weights_exactly() -> None:
    # resize stores cell counts as weights; they must come back unchanged
    for first in range(1, 78):
        assert distribute(79, [float(first), float(79 - first)], [1, 1]) == [first, 79 - first]


def test_side_by_side_rects_and_vertical_border() -> None:
    layout = layout_rects(Split("row", [Leaf("a"), Leaf("b")]), AREA)
    assert layout.rects == {"a": Rect(0, 0, 40, 24), "b": Rect(41, 0, 39, 24)}
    assert layout.borders == [Border(40, 0, 24, "vertical")]
    assert not layout.too_small


def test_stacked_rects_and_horizontal_border() -> None:
    layout = layout_rects(Split("column", [Leaf("a"), Leaf("b")]), AREA)
    assert layout.rects == {"a": Rect(0, 0, 80, 12), "b": Rect(0, 13, 80, 11)}
    assert layout.borders == [Border(0, 12, 80, "horizontal")]


def test_grid_covers_every_cell_once() -> None:
    layout = layout_rects(grid(), AREA)
    assert covered_cells(layout) == 80 * 24
    assert layout.rects["d"] == Rect(41, 13, 39, 11)
    # the horizontal borders stop at the vertical one
    assert Border(0, 12, 40, "horizontal") in layout.borders
    assert Border(41, 12, 39, "horizontal") in layout.borders


def test_area_offset_is_respected() -> None:
    layout = layout_rects(Split("row", [Leaf("a"), Leaf("b")]), Rect(3, 2, 21, 5))
    assert layout.rects == {"a": Rect(3, 2, 10, 5), "b": Rect(14, 2, 10, 5)}


def test_weights_set_sizes() -> None:
    layout = layout_rects(Split("row", [Leaf("a"), Leaf("b")], [1.0, 3.0]), Rect(0, 0, 81, 10))
    assert layout.rects["a"].width == 20
    assert layout.rects["b"].width == 60


@pytest.mark.parametrize("width,height", [(0, 0), (1, 1), (3, 2), (7, 1), (12, 3), (-5, 4)])
def test_tiny_area_never_raises_and_stays_inside(width: int, height: int) -> None:
    deep = Split("row", [Leaf("a"), Split("column", [Leaf("b"), Split("row", [Leaf("c"), Leaf("d")])])])
    layout = layout_rects(deep, Rect(0, 0, width, height))
    assert layout.too_small
    assert set(layout.rects) == {"a", "b", "c", "d"}
    for rect in layout.rects.values():
        assert rect.width >= 0 and rect.height >= 0
        assert 0 <= rect.x and rect.right <= max(0, width)
        assert 0 <= rect.y and rect.bottom <= max(0, height)


def test_small_area_keeps_panes_at_the_minimum_when_it_can() -> None:
    # 17 columns hold three panes of 5 plus two borders only if the big one gives way
    heavy_first = Split("row", [Leaf("a"), Leaf("b"), Leaf("c")], [10.0, 1.0, 1.0])
    layout = layout_rects(heavy_first, Rect(0, 0, 17, 5))
    assert [layout.rects[p].width for p in "abc"] == [5, 5, 5]
    assert not layout.too_small


def test_too_small_falls_back_to_one_cell_each() -> None:
    layout = layout_rects(Split("row", [Leaf("a"), Leaf("b"), Leaf("c")]), Rect(0, 0, 9, 5))
    assert layout.too_small
    assert all(layout.rects[p].width >= 1 for p in "abc")
    assert sum(layout.rects[p].width for p in "abc") == 7


def test_lone_leaf_too_small() -> None:
    assert layout_rects(Leaf("a"), Rect(0, 0, 2, 1)).too_small
    assert not layout_rects(Leaf("a"), Rect(0, 0, 5, 2)).too_small


def test_neighbor_in_a_grid() -> None:
    rects = layout_rects(grid(), AREA).rects
    assert neighbor(rects, "a", "right") == "b"
    assert neighbor(rects, "a", "down") == "c"
    assert neighbor(rects, "d", "left") == "c"
    assert neighbor(rects, "d", "up") == "b"
    assert neighbor(rects, "a", "left") is None
    assert neighbor(rects, "a", "up") is None
    assert neighbor(rects, "missing", "up") is None


def l_shape() -> Split:
    """a full height on the left; b over c on the right."""
    return Split("row", [Leaf("a"), Split("column", [Leaf("b"), Leaf("c")])])


def test_neighbor_l_shape_uses_centre_line_then_recent() -> None:
    root = l_shape()
    rects = layout_rects(root, Rect(0, 0, 80, 24)).rects
    assert neighbor(rects, "b", "left") == "a"
    assert neighbor(rects, "c", "left") == "a"
    # equal halves: a's centre row lies on the border between b and c, the overlaps tie: top-most
    assert neighbor(rects, "a", "right") == "b"
    root.children[1].weights = [1.0, 3.0]  # type: ignore[union-attr]
    rects = layout_rects(root, Rect(0, 0, 80, 24)).rects
    assert rects["c"].y < 12 < rects["c"].bottom
    assert neighbor(rects, "a", "right") == "c"
    assert neighbor(rects, "a", "right", recent=["b"]) == "b"
    assert neighbor(rects, "a", "right", recent=["c", "b"]) == "c"


def test_neighbor_prefers_most_overlap_when_centre_is_on_a_border() -> None:
    # a spans rows 0..9 (centre 5.0); b rows 0..2, border 3, c rows 4..9: centre in c
    rects = {"a": Rect(0, 0, 10, 10), "b": Rect(11, 0, 10, 3), "c": Rect(11, 4, 10, 6)}
    assert neighbor(rects, "a", "right") == "c"
    # centre row 5 on a border row: the larger overlap wins
    rects = {"a": Rect(0, 0, 10, 10), "b": Rect(11, 0, 10, 5), "c": Rect(11, 6, 10, 4)}
    assert neighbor(rects, "a", "right") == "b"
    # centre row 5.5 in no pane: d overlaps most
    rects = {
        "a": Rect(0, 0, 10, 11),
        "b": Rect(11, 0, 10, 3),
        "c": Rect(11, 4, 10, 1),
        "d": Rect(11, 6, 10, 5),
    }
    assert neighbor(rects, "a", "right") == "d"


def test_neighbor_prefers_the_nearest_pane() -> None:
    rects = layout_rects(Split("row", [Leaf("a"), Leaf("b"), Leaf("c")]), AREA).rects
    assert neighbor(rects, "a", "right") == "b"
    assert neighbor(rects, "c", "left") == "b"


def test_neighbor_deep_nesting() -> None:
    # a | (b / (c | (d / e)))
    d_over_e = Split("column", [Leaf("d"), Leaf("e")])
    root = Split("row", [Leaf("a"), Split("column", [Leaf("b"), Split("row", [Leaf("c"), d_over_e])])])
    rects = layout_rects(root, Rect(0, 0, 120, 40)).rects
    assert neighbor(rects, "e", "up") == "d"
    assert neighbor(rects, "d", "up") == "b"
    assert neighbor(rects, "e", "left") == "c"
    assert neighbor(rects, "c", "left") == "a"
    assert neighbor(rects, "c", "up") == "b"
    assert neighbor(rects, "b", "down") in {"c", "d"}
    assert neighbor(rects, "e", "down") is None


def test_neighbor_skips_squeezed_out_panes() -> None:
    rects = {"a": Rect(0, 0, 5, 5), "b": Rect(6, 0, 0, 5), "c": Rect(7, 0, 5, 5)}
    assert neighbor(rects, "a", "right") == "c"


def test_distribute_survives_zero_weights() -> None:
    assert distribute(10, [0.0, 0.0], [0, 0]) == [5, 5]
