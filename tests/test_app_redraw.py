"""When the view draws: any pane's output shows without a key; a key sent on to a pane draws nothing itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_app_harness import (
    C_B,
    C_RBRACKET,
    plain_shell,  # noqa: F401  (autouse: panes run /bin/sh)
    run,
    running_app,
)


def _drawn_text(window: object) -> str:
    info = getattr(window, "render_info", None)
    if info is None:
        return ""
    content = info.ui_content
    return "\n".join("".join(text for _, text, *_ in content.get_line(i)) for i in range(content.line_count))


def test_a_background_pane_s_output_is_drawn_without_a_key(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            left = h.pane.id
            h.send(C_B + "%")
            await h.wait(lambda: h.session.tabs.active_pane != left, "a second pane")
            right = h.session.tabs.active_pane
            await h.wait(lambda: h.session.panes[right].running, "its shell")
            # Two writes 20 ms apart, from a background job (no change of foreground program, which
            # would redraw for its own reasons): the second comes while the frame drawn for the first
            # is still the one shown.
            h.type_line("(sleep 0.4; echo first; sleep 0.02; echo printed-$((6*7))) &")
            h.send(C_B + "o")  # focus back on the left: the right pane prints in the background
            await h.wait(lambda: h.session.tabs.active_pane == left, "focus on the left pane")
            window = h.app.slots[right].body
            await h.wait(lambda: "printed-42" in _drawn_text(window), "the background pane's line on screen")

    run(body)


def test_a_key_sent_into_a_pane_draws_nothing_until_the_program_answers(tmp_path: Path) -> None:
    """The program's echo draws the frame: one drawn for the key itself would only delay the echo."""

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("stty -echo; cat > /dev/null")  # a program that reads keys and shows nothing
            await h.wait(lambda: h.app.mode == "pane", "the keyboard to follow cat into the pane")
            sent = h.record(h.pane)
            app = h.app.application
            await asyncio.sleep(0.3)
            before = app.render_counter
            h.send("x")
            await h.wait(lambda: b"x" in b"".join(sent), "x to reach the pane")
            await asyncio.sleep(0.2)
            assert app.render_counter == before
            h.send(C_RBRACKET)  # a key the view answers itself still draws
            await h.wait(lambda: h.app.mode == "prompt", "C-] to leave the pane")
            await h.wait(lambda: app.render_counter > before, "a frame for the mode change")

    run(body)


def test_other_panes_redraw_less_often_while_keys_are_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A background pane that floods is redrawn whole (every row new) at each of its frames, the longest
    thing a key's echo could wait behind; right after a key its frame is kept longer."""
    from dsh.session import client_state as app_module
    from dsh.session.client_state import BACKGROUND_FRAME_SECONDS, BACKGROUND_FRAME_SECONDS_TYPING

    # The typing window is made long, and its end reached by moving the last key's time back: at load
    # 15 under -n 2 the check after the key came more than 0.3 s (the real window) after it.
    typing = 30.0

    async def body() -> None:
        async with running_app(tmp_path) as h:
            left = h.pane.id
            h.send(C_B + "%")
            await h.wait(lambda: h.session.tabs.active_pane != left, "a second pane")
            control = h.app.slots[left].control  # the pane without the keyboard now
            h.app.state.last_key_time -= typing + 1
            assert control.refresh_interval() == BACKGROUND_FRAME_SECONDS
            h.send("x")  # typed on the prompt
            await h.wait(lambda: h.app.prompt_buffer.text.endswith("x"), "the key handled")
            assert control.refresh_interval() == BACKGROUND_FRAME_SECONDS_TYPING
            h.app.state.last_key_time -= typing + 1
            assert control.refresh_interval() == BACKGROUND_FRAME_SECONDS

    monkeypatch.setattr(app_module, "TYPING_SECONDS", typing)

    run(body)


def test_a_background_pane_with_no_frame_held_is_paced_as_typing_asks(tmp_path: Path) -> None:
    """Where no drawn frame is held (the pane's frame is due), its output still redraws at most at the
    pace the controls use: every BACKGROUND_FRAME_SECONDS_TYPING right after a key, not every
    BACKGROUND_FRAME_SECONDS."""
    from dsh.session.client_state import BACKGROUND_FRAME_SECONDS, BACKGROUND_FRAME_SECONDS_TYPING

    async def body() -> None:
        async with running_app(tmp_path) as h:
            left = h.pane.id
            h.send(C_B + "%")
            await h.wait(lambda: h.session.tabs.active_pane != left, "a second pane")
            h.app.slots[left].control = None  # no held frame: the view's own pace decides
            await h.wait(lambda: h.session.panes[h.session.tabs.active_pane].running, "its shell")
            await asyncio.sleep(0.5)  # both shells have printed their prompts: only our calls redraw
            redraws: list[float] = []
            h.app.invalidate = lambda: redraws.append(asyncio.get_running_loop().time())  # type: ignore[method-assign]
            h.app.state.on_pane_output(left)
            await h.wait(lambda: redraws, "the output's redraw")
            h.send("x")  # typed on the prompt, just after that redraw
            await h.wait(lambda: h.app.prompt_buffer.text.endswith("x"), "the key handled")
            h.app.state.on_pane_output(left)
            await h.wait(lambda: len(redraws) == 2, "the next output redraw")
            # A slow machine only widens the gap; at the pace for no typing it would be 0.1 s.
            assert redraws[1] - redraws[0] >= BACKGROUND_FRAME_SECONDS_TYPING - 0.02
            assert BACKGROUND_FRAME_SECONDS_TYPING - 0.02 > BACKGROUND_FRAME_SECONDS

    run(body)
