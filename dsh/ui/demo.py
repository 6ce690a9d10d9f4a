"""`python -m dsh.ui.demo [CMD...]`: one full-screen pane running CMD ($SHELL by default); C-] quits."""

from __future__ import annotations

import asyncio
import os
import sys

from prompt_toolkit.application import Application
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth

from dsh.term.terminal import Terminal
from dsh.text import sanitize
from dsh.ui.terminal_control import TerminalControl


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv) or [os.environ.get("SHELL", "/bin/sh")]
    app: Application[int] | None = None

    def redraw() -> None:
        if app is not None:
            app.invalidate()

    term = Terminal(
        argv, cwd=os.getcwd(), on_change=redraw, on_exit=lambda _code: redraw(), on_title=lambda _t: redraw()
    )
    control = TerminalControl(term)
    kb = KeyBindings()

    @kb.add("c-]", eager=True)
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=term.exit_status or 0)

    @kb.add(Keys.ScrollUp)
    def _up(event: KeyPressEvent) -> None:
        term.scroll_by(1)

    @kb.add(Keys.ScrollDown)
    def _down(event: KeyPressEvent) -> None:
        term.scroll_by(-1)

    @kb.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        term.paste(event.data)

    @kb.add(Keys.Any)
    def _key(event: KeyPressEvent) -> None:
        for press in event.key_sequence:
            term.send_key(press.key, press.data)

    def status() -> str:
        state = "running" if term.running else f"exited {term.exit_status}"
        return sanitize(f" {term.title or ' '.join(argv)} | {state} | C-] quits", 200)

    layout = Layout(
        HSplit(
            [
                Window(control),
                Window(FormattedTextControl(lambda: [("reverse", status())]), height=1),
            ]
        ),
        focused_element=control,
    )
    # 24-bit colour when the terminal says it draws it (prompt_toolkit would map it to 256 colours)
    depth = ColorDepth.TRUE_COLOR if os.environ.get("COLORTERM") in ("truecolor", "24bit") else None
    app = Application(
        layout=layout,
        key_bindings=kb,
        full_screen=True,
        mouse_support=True,
        max_render_postpone_time=0.02,
        min_redraw_interval=1 / 60,
        color_depth=depth,
    )

    async def run() -> int:
        term.start()
        try:
            return await app.run_async()
        finally:
            term.kill()

    return asyncio.run(run())


if __name__ == "__main__":
    sys.exit(main())
