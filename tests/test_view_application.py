"""The view's Application: one placeholder buffer while a pane has the keys, and no frame left to the collector."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout import screen as pt_screen
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import DummyOutput

from dsh.ui.view_application import ViewApplication


def _pane_focused_app() -> ViewApplication[None]:
    """An app whose focus is on a control that is not a buffer, as when a pane has the keys."""
    pane = Window(FormattedTextControl("pane text", focusable=True))
    return ViewApplication(layout=Layout(HSplit([pane]), focused_element=pane), full_screen=True)


def test_one_placeholder_buffer_while_a_pane_has_the_keys() -> None:
    app = _pane_focused_app()
    first = app.current_buffer
    assert app.current_buffer is first  # the stock property made a new Buffer at every call
    first.insert_text("stray")
    assert app.current_buffer is not first  # something typed into it: a clean one next time
    assert app.current_buffer.text == ""


@pytest.fixture
def collector_off() -> Iterator[None]:
    """Only the view's own passes may free a frame (the automatic collector would hide their absence)."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def test_a_frame_is_freed_once_the_next_one_is_drawn(collector_off: None, monkeypatch: pytest.MonkeyPatch) -> None:
    screens: list[weakref.ref[pt_screen.Screen]] = []
    original_init = pt_screen.Screen.__init__

    def remember(self: pt_screen.Screen, *args: object, **kwargs: object) -> None:
        original_init(self, *args, **kwargs)  # type: ignore[arg-type]
        screens.append(weakref.ref(self))

    monkeypatch.setattr(pt_screen.Screen, "__init__", remember)

    async def run() -> None:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            app = _pane_focused_app()

            async def draw_then_quit() -> None:
                for _ in range(6):
                    app.invalidate()
                    await asyncio.sleep(0.02)
                app.exit()

            task = asyncio.get_running_loop().create_task(draw_then_quit())
            await app.run_async()
            await task

    asyncio.run(run())
    assert len(screens) >= 4
    # Every frame but the newest ones is gone without a collection of our own: each was left in a
    # reference cycle by prompt_toolkit's window drawing, and the view freed it after the next frame.
    alive = [ref for ref in screens[:-2] if ref() is not None]
    assert alive == []


def test_views_share_prompt_toolkit_s_default_key_bindings_and_other_applications_keep_their_own() -> None:
    from prompt_toolkit.application import Application

    first, second = _pane_focused_app(), _pane_focused_app()
    assert first._default_bindings is second._default_bindings  # built once, not per attach
    assert len(first._default_bindings.bindings) > 100
    plain = Application()
    assert plain._default_bindings is not first._default_bindings  # the library's own path is untouched


def test_no_young_pass_after_a_frame_while_a_worker_has_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker making 120,000 picker rows turns the collector off (gc_paused); a pass after each frame
    walked its new objects all the same, 11-16 ms of a key's frame. Once the pause ends, it runs again."""
    from dsh.resume.candidates import gc_paused
    from dsh.ui import view_application

    passes: list[int] = []
    monkeypatch.setattr(view_application.gc, "collect", lambda generation=2: passes.append(generation) or 0)
    monkeypatch.setattr(view_application.gc, "get_count", lambda: (10, 0, 0))
    with gc_paused():
        view_application._collect_young(None)
    assert passes == []
    view_application._collect_young(None)
    assert passes == [1]
