"""SGR for what a pane cell's style holds beyond prompt_toolkit's Attrs: palette indices, underline styles."""

from __future__ import annotations

from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Attrs
from pyte.graphics import FG_BG_256

from dsh.term.features import NO_FEATURES, Features

__all__ = ["EXTRAS_MAX", "Rendition", "rendition"]

Rendition = tuple[Attrs, str]  # prompt_toolkit's attributes to set, then SGR of dsh's own ("" for none)
_PALETTE = (ColorDepth.DEPTH_8_BIT, ColorDepth.DEPTH_24_BIT)  # terminals with a palette of 256
EXTRAS_MAX = 4096
_cache: dict[tuple[str, Attrs, ColorDepth, Features], Rendition] = {}


def _index(value: str) -> int | None:
    return int(value) if len(value) < 4 and value.isdigit() and int(value) < 256 else None


def _compute(style: str, attrs: Attrs, depth: ColorDepth, features: Features) -> Rendition:
    params: list[str] = []
    for token in style.split():
        if not (token.startswith("[") and token.endswith("]")):
            continue
        name, _, value = token[1:-1].partition(":")
        if name in ("fi", "bi") and depth in _PALETTE:
            index = _index(value)
            # Only while the colour is still this cell's: a style after it (a selection, a search
            # match) may have set another, which is then prompt_toolkit's to write.
            fg = name == "fi"
            if index is not None and (attrs.color if fg else attrs.bgcolor) == FG_BG_256[index]:
                attrs = attrs._replace(color="") if fg else attrs._replace(bgcolor="")
                params.append(f"{38 if fg else 48};5;{index}")
        elif name == "us" and features.styled_underline and attrs.underline and value in ("2", "3", "4", "5"):
            params.append(f"4:{value}")
        elif name == "uc" and features.underline_colour and attrs.underline and depth != ColorDepth.DEPTH_1_BIT:
            index = _index(value)
            if index is not None:
                params.append(f"58:5:{index}")
            elif len(value) == 6:
                try:
                    rgb = int(value, 16)
                except ValueError:
                    continue
                params.append(f"58:2::{rgb >> 16}:{(rgb >> 8) & 255}:{rgb & 255}")
        elif name == "ov" and features.overline:
            params.append("53")
    return attrs, f"\x1b[{';'.join(params)}m" if params else ""


def rendition(style: str, attrs: Attrs, depth: ColorDepth, features: Features = NO_FEATURES) -> Rendition:
    """What to write for a cell of `style` (whose attributes prompt_toolkit resolved to `attrs`) on a
    terminal of `depth` that draws `features`: a palette index as `38;5;N` where the terminal has a
    palette (not the RGB value prompt_toolkit would send), underline styles, the underline colour and
    overline where it draws them; a style without bracketed tokens is prompt_toolkit's alone."""
    if "[" not in style:
        return attrs, ""
    key = (style, attrs, depth, features)
    found = _cache.get(key)
    if found is None:
        if len(_cache) >= EXTRAS_MAX:
            _cache.clear()
        found = _cache[key] = _compute(style, attrs, depth, features)
    return found
