"""dsh.values.Value: what the hand-written classes on the start-up path keep of @dataclass."""

from __future__ import annotations

import dataclasses

import pytest

from dsh.layout.geometry import Rect
from dsh.layout.tabs import Tab
from dsh.layout.tree import Leaf
from dsh.values import Value


class Point(Value, fields=("x", "y"), frozen=True):
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int = 0) -> None:
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)


class Box(Value, fields=("items", "name")):
    def __init__(self, items: list[int] | None = None, name: str = "") -> None:
        self.items = [] if items is None else items
        self.name = name


@dataclasses.dataclass(frozen=True)
class DataPoint:
    x: int
    y: int = 0


def test_repr_and_equality_are_a_dataclass_s() -> None:
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    assert repr(DataPoint(1, 2)) == "DataPoint(x=1, y=2)"  # the same shape
    assert repr(Box([1], "b")) == "Box(items=[1], name='b')"
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(1, 3)
    assert Point(1, 2) != (1, 2) and Point(1, 2) != DataPoint(1, 2)  # only the same class compares equal
    assert Box([1], "b") == Box([1], "b") and Box([1]) != Box([2])
    assert Point.__match_args__ == ("x", "y")


def test_frozen_values_hash_by_their_fields_and_refuse_assignment() -> None:
    assert hash(Point(1, 2)) == hash(Point(1, 2))
    assert len({Point(1, 2), Point(1, 2), Point(2, 1)}) == 2
    point = Point(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.y
    assert point == Point(1, 2)


def test_mutable_values_are_unhashable_and_get_fresh_defaults() -> None:
    with pytest.raises(TypeError):
        hash(Box())
    first, second = Box(), Box()
    first.items.append(1)
    assert second.items == []


def test_the_start_up_path_s_classes_keep_their_dataclass_behaviour() -> None:
    rect = Rect(0, 1, 10, 5)
    assert rect == Rect(0, 1, 10, 5) and {rect: "a"}[Rect(0, 1, 10, 5)] == "a"
    assert repr(rect) == "Rect(x=0, y=1, width=10, height=5)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        rect.x = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        rect.other = 1  # type: ignore[attr-defined]  # slots, as before
    tab, other = Tab("t1", None, Leaf("p1"), "p1"), Tab("t1", None, Leaf("p1"), "p1")
    assert tab == other and tab.last_active == [] and tab.last_active is not other.last_active
    with pytest.raises(AttributeError):
        tab.extra = 1  # type: ignore[attr-defined]


def _all_value_classes() -> list[type[Value]]:
    import importlib
    import pkgutil

    import dsh

    for module in pkgutil.walk_packages(dsh.__path__, "dsh."):
        if not module.name.endswith("__main__"):  # that one runs dsh
            importlib.import_module(module.name)
    found, queue = [], list(Value.__subclasses__())
    while queue:
        cls = queue.pop()
        found.append(cls)
        queue += cls.__subclasses__()
    return found


def test_every_value_class_names_each_annotated_field_once_in_order() -> None:
    """A Value lists its fields beside their annotations (and sets them in its __init__): a field added
    to one and not the other would silently drop out of ==, hash and repr."""
    import inspect

    classes = [cls for cls in _all_value_classes() if cls.__module__.startswith("dsh.")]
    assert len(classes) >= 20, "the start path's classes are Values"
    wrong = []
    for cls in classes:
        annotated = tuple(name for name in inspect.get_annotations(cls) if not name.startswith("_"))
        if cls._fields != annotated:
            wrong.append((cls.__qualname__, cls._fields, annotated))
    assert wrong == []
