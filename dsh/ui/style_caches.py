"""prompt_toolkit's caches of styles and cells, bounded: a long-lived host drawing ever-new colours.

A pane of ever-changing 24-bit colour (a video, chafa, lolcat) makes new style strings every frame.
prompt_toolkit keeps each in the renderer's style-to-attributes caches, the output's attributes-to-
escape-sequence cache and the screen's (character, style) cache of a million cells, none ever let go:
a host grew from 55 to 446 MB in 90 s. Checked after each frame (a len() each), each is dropped when
past its bound and rebuilt as the next frames ask; the cell cache keeps its newest entries.
"""

from __future__ import annotations

from typing import Any

# Styles in one frame of a 200x60 pane of all-different colours: 12,000; a few frames' worth is kept.
STYLES_MAX = 20_000
CELLS_MAX = 50_000


def bound_cell_cache() -> None:
    """prompt_toolkit's screen keeps 1,000,000 (character, style) cells; keep CELLS_MAX, the newest."""
    from prompt_toolkit.layout import screen

    cache = screen._CHAR_CACHE
    cache.size = min(cache.size, CELLS_MAX)
    while len(cache) > cache.size:
        cache.pop(cache._keys.popleft(), None)


def trim(app: Any) -> None:
    """After a frame: drop the renderer's and the output's style caches that are past STYLES_MAX."""
    renderer = app.renderer
    attrs = renderer._attrs_for_style
    if attrs is not None and len(attrs) > STYLES_MAX:
        renderer._attrs_for_style = None  # made again at the next render
        renderer._style_string_has_style = None
    has_style = renderer._style_string_has_style
    if has_style is not None and len(has_style) > STYLES_MAX:
        renderer._style_string_has_style = None
    for cache in getattr(app.output, "_escape_code_caches", {}).values():
        if len(cache) > STYLES_MAX:
            cache.clear()
