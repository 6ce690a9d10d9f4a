"""The prompt line's control answers its height once a render, as prompt_toolkit's would each time."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.layout.controls import BufferControl

from dsh.ui.prompt_control import PromptControl


def _in_a_render_loop(body: Callable[[Application[None]], None]) -> None:
    """Run `body` with an application current and a loop running (a buffer loads its history as a task)."""

    async def run() -> None:
        app: Application[None] = Application()
        with set_app(app):
            body(app)

    asyncio.run(run())


def _controls(text: str) -> tuple[PromptControl, BufferControl]:
    ours = PromptControl(lambda: None, buffer=Buffer(document=None))
    ours.buffer.text = text
    theirs = BufferControl(buffer=Buffer())
    theirs.buffer.text = text
    return ours, theirs


@pytest.mark.parametrize("text", ["", "ls", "x" * 35, "echo " + "y" * 100, "a\nb\nc"])
@pytest.mark.parametrize("wrap", [True, False])
def test_every_maximum_in_a_render_gets_prompt_toolkits_answer(text: str, wrap: bool) -> None:
    ours, theirs = _controls(text)

    def body(app: Application[None]) -> None:
        # Every order of maxima a render could ask in, each order in a render of its own.
        for order in itertools.permutations([40, 3, 2, 1, 0]):
            app.render_counter += 1
            for most in order:
                assert ours.preferred_height(10, most, wrap, None) == theirs.preferred_height(10, most, wrap, None)

    _in_a_render_loop(body)


def test_the_line_is_processed_once_a_render(monkeypatch: pytest.MonkeyPatch) -> None:
    ours, _ = _controls("echo hello")
    made: list[int] = []
    create = BufferControl.create_content

    def counting(self: BufferControl, width: int, height: int, preview_search: bool = False):  # type: ignore[no-untyped-def]
        made.append(width)
        return create(self, width, height, preview_search)

    monkeypatch.setattr(BufferControl, "create_content", counting)

    def body(app: Application[None]) -> None:
        app.render_counter = 7
        # The three askers of a 140x40 frame: the chrome's split, its float, the window.
        assert [ours.preferred_height(140, most, True, None) for most in (40, 2, 1)] == [1, 1, 1]
        assert len(made) == 1
        app.render_counter += 1  # the next render may hold another line
        ours.buffer.text = "x" * 300
        assert ours.preferred_height(140, 40, True, None) == 3
        assert len(made) == 2

    _in_a_render_loop(body)
