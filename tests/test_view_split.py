"""The view's HSplit keeps its division of the height while nothing it divides by changed, and divides
as prompt_toolkit's does whatever the children ask."""

from __future__ import annotations

import random

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.layout import containers
from prompt_toolkit.layout.containers import HSplit, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.screen import WritePosition

from dsh.ui.split import ViewHSplit


class _Asking(Window):
    """A window whose wanted height can change between frames, as a message or a wrapped prompt's."""

    def __init__(self, dimension: Dimension) -> None:
        super().__init__()
        self.dimension = dimension

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        return self.dimension


def _dimension(rng: random.Random) -> Dimension:
    low = rng.randint(0, 4)
    high = low + rng.randint(0, 30)
    return Dimension(min=low, max=high, preferred=rng.randint(low, high), weight=rng.randint(1, 3))


@pytest.mark.parametrize("seed", range(20))
def test_each_frame_is_divided_as_prompt_toolkit_divides_it(seed: int) -> None:
    rng = random.Random(seed)
    children = [_Asking(_dimension(rng)) for _ in range(rng.randint(1, 5))]
    ours, theirs = ViewHSplit(children), HSplit(children)
    with set_app(Application()):
        for _ in range(30):
            if rng.random() < 0.3:
                rng.choice(children).dimension = _dimension(rng)
            at = WritePosition(0, 0, 80, rng.choice([1, 5, 24, 40, 100]))
            assert ours._divide_heights(at) == theirs._divide_heights(at)


def test_an_unchanged_frame_is_not_divided_again(monkeypatch: pytest.MonkeyPatch) -> None:
    turns: list[int] = []
    take = containers.take_using_weights

    def counting(items, weights):  # type: ignore[no-untyped-def]
        turns.append(1)
        return take(items, weights)

    monkeypatch.setattr(containers, "take_using_weights", counting)
    status = _Asking(Dimension.exact(1))
    split = ViewHSplit([_Asking(Dimension.exact(1)), _Asking(Dimension(weight=1)), status])
    at = WritePosition(0, 0, 140, 40)
    with set_app(Application()):
        sizes = split._divide_heights(at)
        assert sizes == [1, 0, 38, 0, 1] and len(turns) == 1  # the zeros: prompt_toolkit's padding
        sizes.append(99)  # a caller's list is its own
        assert split._divide_heights(at) == [1, 0, 38, 0, 1] and len(turns) == 1
        status.dimension = Dimension.exact(3)  # a taller status: divided again
        assert split._divide_heights(at) == [1, 0, 36, 0, 3] and len(turns) == 2
