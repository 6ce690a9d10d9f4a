"""The client's terminal's keypad mode follows the pane the keys go to (ui/keypad.py)."""

from __future__ import annotations

from types import SimpleNamespace

from dsh.ui.keypad import APPLICATION, NUMERIC, KeypadMirror


def test_the_mode_is_written_at_the_first_frame_and_then_only_when_it_changes() -> None:
    written: list[str] = []
    app = SimpleNamespace(output=SimpleNamespace(write_raw=written.append))
    wanted = [False]
    mirror = KeypadMirror(lambda: wanted[0])
    mirror.before_render(app)
    assert written == [NUMERIC] and not mirror.on  # a view before this one may have left it on
    mirror.before_render(app)
    assert written == [NUMERIC]
    wanted[0] = True
    mirror.before_render(app)
    mirror.before_render(app)
    assert written == [NUMERIC, APPLICATION] and mirror.on
    wanted[0] = False
    mirror.before_render(app)
    assert written == [NUMERIC, APPLICATION, NUMERIC]
