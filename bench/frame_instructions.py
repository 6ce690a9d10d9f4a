"""The whole view's frame counted in instructions (valgrind's cachegrind), which, unlike CPU time, do not
move with a busy machine: small changes to a frame's cost show here when bench/frame.py's timings cannot
tell them from noise. Three frames of the view at 140x40 with two panes of coloured text: a key typed on
the prompt; a key echoed in a pane (the pane's program printing it); a key on the prompt while the other
pane is flooded with a screenful of new lines before every frame, drawn every frame. The reference, in the
same run: prompt_toolkit alone, one Window of the same text with a character added between frames (as
bench/frame.py's). Each figure is (instructions for 60 frames - for 10 frames) / 50, so start-up cancels.

    python bench/frame_instructions.py            # needs valgrind (apt-get install valgrind)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import frame  # bench/frame.py: the same text, output and reference

FEW, MANY = 10, 60
MODES = ("prompt", "pane", "flood")


async def _view_frames(mode: str, count: int, workdir: Path) -> None:
    async with frame.two_panes(workdir) as (_session, view, panes):
        first, flooded = panes[0], panes[-1]
        if mode == "pane":
            view.enter_pane()
        if mode == "flood":  # every frame draws the flooded pane, as one in three does when it is due
            view.slots[flooded.id].control.refresh_interval = lambda: 0.0
        app = view.application
        for _ in range(3):
            app.renderer.render(app, app.layout)
        typed = iter("echo the quick brown fox jumps over the lazy dog " * 100)
        for n in range(count):
            if mode == "pane":
                first.terminal.feed(next(typed).encode())
            else:
                view.prompt_buffer.insert_text(next(typed))
                if mode == "flood":
                    flooded.terminal.feed(frame.text_lines(n))
            app.renderer.render(app, app.layout)


def child(mode: str, count: int) -> None:
    if mode == "reference":
        frame.reference_frames(count, 1)
        return
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as work:
        os.environ["DSH_HOME"] = home
        asyncio.run(_view_frames(mode, count, Path(work)))


def instructions(valgrind: str, mode: str, count: int) -> int:
    grind = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    done = subprocess.run(
        [*grind, sys.executable, __file__, "--child", mode, str(count)],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found[1].replace(",", ""))


def per_frame(valgrind: str, mode: str) -> float:
    return (instructions(valgrind, mode, MANY) - instructions(valgrind, mode, FEW)) / (MANY - FEW)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, metavar=("MODE", "FRAMES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    reference = per_frame(valgrind, "reference")
    print(f"instructions per frame at {frame.COLS}x{frame.ROWS} ((frames {MANY} - frames {FEW}) / {MANY - FEW})")
    labels = {
        "prompt": "a key typed on the prompt",
        "pane": "a key echoed in a pane",
        "flood": "a key on the prompt, the other pane flooded",
    }
    for mode in MODES:
        count = per_frame(valgrind, mode)
        print(f"  dsh view, {labels[mode]:45s} {count / 1e6:6.2f} M  ({count / reference:.2f}x)")
    print(f"  prompt_toolkit, one Window of the same text:      {reference / 1e6:6.2f} M")


if __name__ == "__main__":
    main()
