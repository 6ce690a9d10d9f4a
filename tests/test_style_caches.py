"""prompt_toolkit's style and cell caches stay bounded in a long-lived host (issue 28)."""

from __future__ import annotations

from types import SimpleNamespace

from prompt_toolkit.layout import screen

from dsh.ui import style_caches


def test_style_caches_past_their_bound_are_dropped_after_a_frame() -> None:
    small = {f"fg:#{i:06x}": i for i in range(10)}
    big = {f"fg:#{i:06x}": i for i in range(style_caches.STYLES_MAX + 1)}
    escapes = {24: dict(big), 8: dict(small)}
    renderer = SimpleNamespace(_attrs_for_style=dict(big), _style_string_has_style=dict(big))
    app = SimpleNamespace(renderer=renderer, output=SimpleNamespace(_escape_code_caches=escapes))
    style_caches.trim(app)
    assert renderer._attrs_for_style is None and renderer._style_string_has_style is None  # made anew
    assert escapes[24] == {} and escapes[8] == small  # a small one is kept as it is
    renderer._attrs_for_style = dict(small)
    renderer._style_string_has_style = dict(small)
    style_caches.trim(app)
    assert renderer._attrs_for_style == small and renderer._style_string_has_style == small


def test_the_screens_cell_cache_keeps_its_newest_within_its_bound() -> None:
    style_caches.bound_cell_cache()
    cache = screen._CHAR_CACHE
    assert cache.size <= style_caches.CELLS_MAX
    for i in range(style_caches.CELLS_MAX + 500):
        cache["x", f"fg:#{i:06x}"]
    assert len(cache) <= style_caches.CELLS_MAX + 1  # its own rule: one past the size, then the oldest goes
    assert ("x", f"fg:#{style_caches.CELLS_MAX + 499:06x}") in cache


def test_a_view_application_bounds_them_after_each_frame() -> None:
    from prompt_toolkit.application import Application

    from dsh.ui.view_application import ViewApplication

    assert issubclass(ViewApplication, Application)
    app = ViewApplication()
    assert style_caches.trim in [handler for handler in app.after_render._handlers]
    assert screen._CHAR_CACHE.size <= style_caches.CELLS_MAX
