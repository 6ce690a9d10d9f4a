"""The whole view's frame, as a keystroke's echo draws it: two panes of coloured text side by side at
140x40 (the size bench/latency.py uses), the tab bar, status line and prompt, rendered by the real
DshApp to a VT100 output that goes nowhere; one character typed on the prompt between frames. Prints
the CPU time per frame (median of rounds) and, as the in-run reference, the same frame rendered by a
bare prompt_toolkit Application whose one Window shows the same text, so a busy machine still gives
a fair ratio. --flood feeds one pane a screenful of new lines before each frame (untimed), as a pane
beside a flood is drawn. Each dsh figure is given with prompt_toolkit's own screen diff too (the view
uses ui/screen_diff.py's by rows).

    python bench/frame.py [--frames N] [--rounds N] [--flood] [--profile]

--profile adds where the dsh frame's time goes (cProfile, by own time; the profiler slows it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import pstats
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import prompt_toolkit.renderer as pt_renderer
from prompt_toolkit.application import Application, create_app_session
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output.vt100 import Vt100_Output

ROWS, COLS = 40, 140


def text_lines(seed: int) -> bytes:
    """Shell-like output: coloured names and plain numbers, a screenful and more."""
    lines = []
    for n in range(120):
        lines.append(f"\x1b[1;3{(n + seed) % 7 + 1}mitem-{n:04d}\x1b[0m  {'x' * ((n * 7 + seed) % 50)}  {n * 31}")
    return ("\r\n".join(lines) + "\r\n").encode()


def output_to_nowhere() -> Vt100_Output:
    sink = open(os.devnull, "w")  # lives as long as the bench
    return Vt100_Output(sink, lambda: Size(rows=ROWS, columns=COLS), term="xterm-256color")


def time_frames(app: Application, frames: int, change: object, profile: cProfile.Profile | None = None) -> float:
    """CPU milliseconds per frame: `change()` then a full render, `frames` times."""
    renderer = app.renderer
    took = []
    for _ in range(frames):
        change()  # type: ignore[operator]
        start = time.process_time()
        if profile is not None:
            profile.enable()
        renderer.render(app, app.layout)
        if profile is not None:
            profile.disable()
        took.append(time.process_time() - start)
    return statistics.median(took) * 1000


@contextlib.asynccontextmanager
async def two_panes(workdir: Path) -> AsyncIterator[tuple[Any, Any, list[Any]]]:
    """A running view of a new session with two panes side by side, each showing a screenful of
    coloured text: (session, view, panes), the first pane active; ended and reaped on the way out."""
    from dsh.config import load_config
    from dsh.session.session import Session
    from dsh.store.store import Store
    from dsh.ui.app import DshApp
    from dsh.ui.view_options import ViewOptions

    os.environ.update(SHELL="/bin/sh", ENV="", PS1="$ ")
    config = load_config()
    store = Store(config)
    log = store.create_session(str(workdir))
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=output_to_nowhere()):
        session = Session(config=config, store=store, log=log, cwd=str(workdir))
        session.start()
        view = DshApp(session, ViewOptions())
        task = asyncio.ensure_future(view.run_async())
        while not (view.application.is_running and view.active_pane is not None):
            await asyncio.sleep(0.01)
        session.split("row", None)
        await asyncio.sleep(0.3)
        panes = list(session.panes.values())
        for n, pane in enumerate(panes):
            pane.terminal.feed(text_lines(n))
        try:
            yield session, view, panes
        finally:
            session.quit()
            await asyncio.wait_for(task, 5)
            await session.reap_panes(0.5)


async def dsh_frames(
    frames: int,
    rounds: int,
    workdir: Path,
    *,
    flood: bool = False,
    stock_diff: bool = False,
    profile: cProfile.Profile | None = None,
) -> list[float]:
    async with two_panes(workdir) as (_session, view, panes):
        buffer = view.prompt_buffer
        typed = iter("echo the quick brown fox jumps over the lazy dog " * 1000)
        flooded = panes[-1]
        fed = iter(range(1 << 30))

        def type_one() -> None:
            buffer.insert_text(next(typed))
            if flood:
                flooded.terminal.feed(text_lines(next(fed)))

        from dsh.ui import screen_diff

        ours = pt_renderer._output_screen_diff
        if stock_diff:
            pt_renderer._output_screen_diff = screen_diff._STOCK

        results = []
        try:
            for _ in range(rounds):
                buffer.text = ""
                results.append(time_frames(view.application, frames, type_one, profile))
        finally:
            pt_renderer._output_screen_diff = ours
    return results


def reference_frames(frames: int, rounds: int) -> list[float]:
    """prompt_toolkit alone: one Window of the same coloured text, a character added between frames."""
    from prompt_toolkit.formatted_text import ANSI, to_formatted_text

    text = to_formatted_text(ANSI(text_lines(0).decode()))
    typed = ["x"]
    control = FormattedTextControl(lambda: [*text, ("", typed[0])])
    from dsh.ui import screen_diff

    installed = pt_renderer._output_screen_diff
    pt_renderer._output_screen_diff = screen_diff._STOCK  # the reference is prompt_toolkit alone
    try:
        return _reference_frames(control, typed, frames, rounds)
    finally:
        pt_renderer._output_screen_diff = installed


def _reference_frames(control: FormattedTextControl, typed: list[str], frames: int, rounds: int) -> list[float]:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=output_to_nowhere()):
        app: Application[None] = Application(layout=Layout(Window(control)), full_screen=True)
        app.renderer.reset()

        def add_one() -> None:
            typed[0] += "x"

        with set_app(app):  # as if running: else every get_app() makes a DummyApplication
            return [time_frames(app, frames, add_one) for _ in range(rounds)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--flood", action="store_true", help="a screenful of new lines in one pane before each frame")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    profile = cProfile.Profile() if args.profile else None
    figures = {}
    for stock in (False, True):
        with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as work:
            os.environ["DSH_HOME"] = home
            figures[stock] = asyncio.run(
                dsh_frames(
                    args.frames,
                    args.rounds,
                    Path(work),
                    flood=args.flood,
                    stock_diff=stock,
                    profile=None if stock else profile,
                )
            )
    reference = reference_frames(args.frames, args.rounds)
    ref_ms = statistics.median(reference)
    print(f"view frame at {COLS}x{ROWS}, CPU per frame, median of {args.rounds} rounds of {args.frames} frames")
    what = "a key typed on the prompt" + (", one pane flooded" if args.flood else "")
    for stock, label in ((False, "row diff"), (True, "prompt_toolkit's diff")):
        dsh_ms = statistics.median(figures[stock])
        rounds = ", ".join(f"{x:.2f}" for x in figures[stock])
        print(f"  dsh view, two panes, {what}, {label}: {dsh_ms:6.2f} ms  ({dsh_ms / ref_ms:.2f}x; rounds {rounds})")
    print(f"  prompt_toolkit, one Window of the same text:      {ref_ms:6.2f} ms")
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
