"""What the pane in view sends its terminal, passed on to the user's: a BEL rings (at most once in
BELL_GAP), an OSC 9/777 notification goes out; a pane off screen is dsh's notice instead."""

from __future__ import annotations

from pathlib import Path

from dsh.ui.outer_terminal import OuterTerminal
from tests.test_app_harness import (
    C_B,
    plain_shell,  # noqa: F401  (autouse: panes run a quick /bin/sh)
    run,
    running_app,
)


def test_a_bell_and_a_notification_in_view_are_passed_on_and_off_screen_are_notices(tmp_path: Path) -> None:
    sent: list[tuple[str, str]] = []

    async def body() -> None:
        async with running_app(tmp_path, outward=lambda title, body: sent.append((title, body))) as h:
            rings: list[int] = []
            h.app.ring_bell = lambda: rings.append(1)  # type: ignore[method-assign]
            h.pane.terminal.write(b"printf '\\007\\033]9;build done\\007'; echo sa''id\r")
            await h.wait_output(h.pane, "said")
            await h.wait(lambda: rings and sent, "the bell and the notification passed on")
            assert rings == [1] and sent == [("sh", "build done")]
            assert h.session.notifications == []  # seen where it happened: nothing kept
            first = h.pane
            h.send(C_B + "c")  # a new tab: the first pane off screen
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "a second tab")
            first.terminal.write(b"printf '\\007'\r")
            await h.wait(lambda: len(h.session.notifications) == 1, "the hidden pane's bell, a notice")
            assert rings == [1]  # not rung as the pane in view's is
            assert sent[-1] == ("sh", "bell in sh")  # dsh's own notice, out to the terminal

    run(body)


def test_a_flood_of_bells_rings_once_in_bell_gap() -> None:
    written: list[str] = []

    class Output:
        def write_raw(self, data: str) -> None:
            written.append(data)

        def flush(self) -> None:
            pass

    view = type("View", (), {"application": type("A", (), {"output": Output()})()})()
    outer = OuterTerminal(view)  # type: ignore[arg-type]  (a view with only what the bell writes to)
    for _ in range(50):
        outer.ring_bell()
    assert written == ["\x07"]
