"""prompt_toolkit's HSplit, keeping its division of the height while nothing it divides by changed."""

from __future__ import annotations

from prompt_toolkit.application.current import get_app
from prompt_toolkit.layout.containers import HSplit
from prompt_toolkit.layout.screen import WritePosition


class ViewHSplit(HSplit):
    """prompt_toolkit divides an HSplit's height a row at a time, each row a turn of a weighted
    round robin, at every frame: a tenth of a keystroke's frame in instructions for the view's two
    splits, whose division hardly ever changes. The division depends only on the height, the
    children's dimensions and whether the application is done, so it is kept for those and made
    again by prompt_toolkit when one of them changes."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # HSplit's own arguments, passed on
        self._division: tuple[tuple[object, ...], list[int] | None] | None = None

    def _divide_heights(self, write_position: WritePosition) -> list[int] | None:
        if not self.children:
            return []
        width, height = write_position.width, write_position.height
        dimensions = [child.preferred_height(width, height) for child in self._all_children]
        key = (
            height,
            get_app().is_done,
            tuple((d.min, d.max, d.preferred, d.weight) for d in dimensions),
        )
        kept = self._division
        if kept is not None and kept[0] == key:
            return None if kept[1] is None else list(kept[1])
        sizes = super()._divide_heights(write_position)
        self._division = (key, None if sizes is None else list(sizes))
        return sizes


__all__ = ["ViewHSplit"]
