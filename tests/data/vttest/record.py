"""Record what vttest writes for each of its screens, to replay through the pane engine in tests.

    python tests/data/vttest/record.py          # needs vttest (apt-get install vttest)

Runs vttest in an 80x24 PTY, walks menus 1, 2, 3, 8 and 11.6 with the keys a person would press
(Return at each "Push <RETURN>"), and writes, per menu, the bytes vttest wrote (`menu-*.bin`) and
where each screen ends in them (`screens.json`). A dsh screen answers vttest's queries (cursor
reports, device attributes), as the pane would. vttest is by Thomas E. Dickey and Per Lindberg;
see COPYING here for its licence, which covers these recordings of its output.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from pathlib import Path

import ptyprocess

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from dsh.term.screen import TermScreen

HERE = Path(__file__).resolve().parent
ROWS, COLS = 24, 80
QUIET = 0.6  # seconds without output: vttest is waiting for a key

# What to press for each menu: ("menu", keys) opens a menu (one screen); ("walk", keys) starts a
# test, then Return is pressed at each of its screens until a menu shows again.
MENUS: dict[str, list[tuple[str, str]]] = {
    "1": [("walk", "1\r")],
    "2": [("walk", "2\r")],
    "3": [("menu", "3\r"), ("walk", "8\r"), ("walk", "9\r"), ("walk", "10\r"), ("walk", "11\r")],
    "8": [("walk", "8\r")],
    "11.6": [
        ("menu", "11\r"),
        ("menu", "6\r"),
        *(("walk", f"{n}\r") for n in (2, 3, 4, 5)),
        ("menu", "6\r"),
        *(("walk", f"{n}\r") for n in (1, 2, 3)),
        ("menu", "0\r"),
        ("menu", "7\r"),
        ("menu", "1\r"),
        ("walk", "2\r"),
        ("menu", "0\r"),
        *(("walk", f"{n}\r") for n in (2, 3, 6)),
        ("menu", "0\r"),
        ("walk", "8\r"),
        ("walk", "9\r"),
    ],
}
MENU_PROMPT = "Enter choice number"


class Recorder:
    def __init__(self) -> None:
        env = dict(os.environ, TERM="xterm", LANG="C.UTF-8")
        self.proc = ptyprocess.PtyProcess.spawn(["vttest"], env=env, dimensions=(ROWS, COLS))
        self.screen = TermScreen(COLS, ROWS, write_process_input=lambda d: self.proc.write(d.encode()))
        self.out = bytearray()

    def read_until_quiet(self) -> None:
        last = time.monotonic()
        while time.monotonic() - last < QUIET:
            ready, _, _ = select.select([self.proc.fd], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.proc.fd, 65536)
                except OSError:
                    return
                self.out += data
                self.screen.feed(data)
                last = time.monotonic()

    def press(self, keys: str) -> None:
        self.proc.write(keys.encode())
        self.read_until_quiet()

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)


def record(name: str, plan: list[tuple[str, str]]) -> list[dict]:
    rec = Recorder()
    rec.read_until_quiet()
    start = len(rec.out)
    screens: list[dict] = []

    def note(keys: str) -> None:
        screens.append({"keys": keys, "start": start, "end": len(rec.out), "text": rec.text()})

    for kind, keys in plan:
        rec.press(keys)
        note(keys)
        if kind == "walk":
            for _ in range(80):
                if MENU_PROMPT in rec.text():
                    break
                rec.press("\r")
                note("\r")
            else:
                raise RuntimeError(f"no menu after 80 screens:\n{rec.text()}")
    rec.proc.terminate(force=True)
    (HERE / f"menu-{name}.bin").write_bytes(bytes(rec.out))
    return screens


def main() -> int:
    index = {name: record(name, plan) for name, plan in MENUS.items()}
    (HERE / "screens.json").write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    for name, screens in index.items():
        print(f"menu {name}: {len(screens)} screens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
