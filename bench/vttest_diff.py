"""vttest and esctest2 as a differential suite: dsh's emulator beside a tmux pane of the same size.

vttest: each menu of tests/data/vttest/record.py is walked in both at once (the same keys, Return at each
"Push <RETURN>"), and every screen is compared cell by cell, with the cursor. esctest2 (its own pass and
fail verdicts) runs at each VT level given, in both. Prints the counts, and with --verbose each screen
or test where the two part.

    apt-get install -y vttest tmux
    git clone https://github.com/ThomasDickey/esctest2 /tmp/esctest2     # or any checkout, or git dir
    python bench/vttest_diff.py --esctest /tmp/esctest2 [--levels 3 5] [--only vttest|esctest] [--verbose]

dsh's side runs the program in a PTY whose terminal is dsh's own emulator (`TermScreen`, answering the
program's queries as a pane does); tmux's runs it in a pane of a private tmux server. Takes a few minutes
(vttest waits for quiet after each key; esctest waits for the reports tmux does not give).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ptyprocess  # noqa: E402

from dsh.term.drawing import CHARSETS  # noqa: E402
from dsh.term.screen import TermScreen  # noqa: E402
from tests.tmuxserver import TmuxServer  # noqa: E402

ROWS, COLS = 24, 80
QUIET = 0.6  # seconds without a change: the program waits for a key
ESC_ROWS = 25  # esctest wants a line more than vttest
# Menus whose items depend on the level the terminal reports (DA1): dsh says VT220, tmux 3.3a VT100, so
# the same keys would open different tests. dsh's emulator is put at VT100 level (DECSCL 61, as a
# program may) before vttest asks, so both report VT100 and walk the same items.
LEVEL_DEPENDENT = {"3"}
VT100_LEVEL = b'\x1b[61;1"p'

_ACS_LETTERS = {ord(glyph): code for code, glyph in CHARSETS["0"].items() if glyph != " "}
_SUMMARY = re.compile(r"\*\*\* (\d+) tests? passed, (\d+) known bugs?, (\d+) (?:tests?|TESTS?) (?:failed|FAILED)")


def _load_plan() -> tuple[dict[str, list[tuple[str, str]]], str]:
    """The menus to walk and vttest's menu prompt, from the recorder of tests/data/vttest."""
    spec = importlib.util.spec_from_file_location("vttest_record", ROOT / "tests/data/vttest/record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MENUS, module.MENU_PROMPT


class OwnSide:
    """A program in a PTY whose terminal is dsh's emulator."""

    def __init__(self, argv: list[str], rows: int, cols: int, cwd: str | None = None) -> None:
        env = dict(os.environ, TERM="xterm", LANG="C.UTF-8")
        self.proc = ptyprocess.PtyProcess.spawn(argv, env=env, cwd=cwd, dimensions=(rows, cols))
        self.screen = TermScreen(cols, rows, write_process_input=lambda d: self.proc.write(d.encode()))
        self.changed = time.monotonic()
        os.set_blocking(self.proc.fd, False)

    def pump(self) -> bool:
        """Read what is there; False once the program has gone."""
        try:
            data = os.read(self.proc.fd, 65536)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not data:
            return False
        self.screen.feed(data)
        self.changed = time.monotonic()
        return True

    def press(self, keys: str) -> None:
        self.proc.write(keys.encode())

    def lines(self) -> list[str]:
        # (tmux's capture shows DEC line drawing as the letters sent: so are dsh's read here)
        return [line.rstrip().translate(_ACS_LETTERS) for line in self.screen.display]

    def cursor(self) -> tuple[int, int]:
        return self.screen.cursor.x, self.screen.cursor.y

    def close(self) -> None:
        self.proc.terminate(force=True)


class TmuxSide:
    """The same program in a tmux pane; quiet when its capture has not changed for QUIET."""

    def __init__(self, tmux: TmuxServer, name: str, command: str, rows: int, cols: int, cwd: str | None = None) -> None:
        self.tmux, self.name = tmux, name
        # (the pause: the status line is turned off, and the pane at its full height, before it starts)
        tmux.start(name, f"sleep 0.3; exec {command}", cols, rows, cwd=cwd)
        self.last: tuple[list[str], tuple[int, int]] | None = None
        self.changed = time.monotonic()

    def pump(self) -> bool:
        try:
            now = (self.lines(), self.cursor())
        except (RuntimeError, ValueError):
            return False
        if now != self.last:
            self.last, self.changed = now, time.monotonic()
        return True

    def press(self, keys: str) -> None:
        for part in re.split(r"(\r)", keys):
            if part == "\r":
                self.tmux.keys(self.name, "Enter")
            elif part:
                self.tmux.keys(self.name, part, literal=True)

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.tmux.screen(self.name)]

    def cursor(self) -> tuple[int, int]:
        return self.tmux.cursor(self.name)


def _settle(sides: list[OwnSide | TmuxSide], quiet: float = QUIET, limit: float = 20.0) -> None:
    """Until every side has been quiet for `quiet` seconds (or `limit` has passed)."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        alive = [side.pump() for side in sides]
        now = time.monotonic()
        if all(now - side.changed >= quiet for side in sides) or not all(alive):
            return
        time.sleep(0.05)


def _padded(lines: list[str]) -> list[str]:
    return [(lines[y] if y < len(lines) else "").ljust(COLS) for y in range(ROWS)]


def _cells_differing(mine: list[str], theirs: list[str]) -> int:
    a, b = _padded(mine), _padded(theirs)
    return sum(1 for y in range(ROWS) for x in range(COLS) if a[y][x : x + 1] != b[y][x : x + 1])


class Walk:
    """One vttest menu walked in dsh's emulator and in tmux with the same keys, each screen compared."""

    def __init__(self, tmux: TmuxServer, menu: str, prompt: str, verbose: bool) -> None:
        self.menu, self.prompt, self.verbose = menu, prompt, verbose
        self.own = OwnSide(["vttest"], ROWS, COLS)
        if menu in LEVEL_DEPENDENT:
            self.own.screen.feed(VT100_LEVEL)
        self.theirs = TmuxSide(tmux, f"vt{menu.replace('.', '-')}", "vttest", ROWS, COLS)
        self.sides: list[OwnSide | TmuxSide] = [self.own, self.theirs]
        self.screens = self.same = 0

    def start(self) -> None:
        """Both at vttest's main menu before the first key (a key typed while it starts is lost)."""
        for _ in range(40):
            _settle(self.sides)
            if all(self.prompt in "\n".join(side.lines()) for side in self.sides):
                return

    def _agree(self) -> bool:
        return self.own.lines() == self.theirs.lines() and self.own.cursor() == self.theirs.cursor()

    def press(self, keys: str) -> None:
        for side in self.sides:
            side.press(keys)
        _settle(self.sides)
        # tmux, drawn through its own server and read by capture, may be behind on a loaded machine: it
        # gets a few seconds to show what dsh shows; a screen that still differs gets a longer quiet
        # spell, so that the next key finds both waiting for it (vttest drops keys typed ahead).
        deadline = time.monotonic() + 4
        while not self._agree() and time.monotonic() < deadline:
            time.sleep(0.1)
            self.theirs.pump()
            self.own.pump()
        agree = self._agree()
        if not agree:
            _settle(self.sides, quiet=1.5)
            agree = self._agree()
        self.screens += 1
        self.same += agree
        if self.verbose and not agree:
            self._show(keys)

    def _show(self, keys: str) -> None:
        a, b = self.own.lines(), self.theirs.lines()
        title = next((line.strip() for line in a if line.strip()), "")[:60]
        print(
            f"    DIFF menu {self.menu} screen {self.screens} ({keys!r}): {_cells_differing(a, b)} cells, "
            f"cursor dsh {self.own.cursor()} tmux {self.theirs.cursor()}: {title}"
        )
        rows = [y for y, (x, z) in enumerate(zip(_padded(a), _padded(b), strict=True)) if x != z]
        for y in rows[:3]:
            print(f"      row {y:2} dsh  {_padded(a)[y].rstrip()!r}\n             tmux {_padded(b)[y].rstrip()!r}")

    def walk(self, steps: list[tuple[str, str]]) -> None:
        for kind, keys in steps:
            self.press(keys)
            if kind == "walk":
                for _ in range(80):
                    if self.prompt in "\n".join(self.own.lines()):
                        break
                    self.press("\r")


def run_vttest(tmux: TmuxServer, verbose: bool) -> tuple[int, int]:
    """Walk every menu in both; returns (screens, screens the same)."""
    plan, prompt = _load_plan()
    screens = same = 0
    for menu, steps in plan.items():
        walk = Walk(tmux, menu, prompt, verbose)
        try:
            walk.start()
            walk.walk(steps)
        finally:
            walk.own.close()
        print(f"  menu {menu:5} {walk.screens:3} screens, {walk.same:3} the same in dsh and tmux")
        screens += walk.screens
        same += walk.same
    return screens, same


def _esctest_tree(source: Path, into: Path) -> Path:
    """An esctest2 work tree: `source` itself, or the files of a git directory (a bare clone, a mirror)."""
    if (source / "esctest" / "esctest.py").is_file():
        return source
    subprocess.run(f"git --git-dir={source} archive HEAD | tar -x -C {into}", shell=True, check=True)
    return into


def _esctest_argv(level: int, log: Path) -> list[str]:
    return [
        sys.executable,
        "esctest.py",
        "--expected-terminal=xterm",
        f"--max-vt-level={level}",
        f"--logfile={log}",
        "--timeout=0.3",
        "--no-print-logs",
    ]


def _esctest_result(log: Path) -> tuple[tuple[int, int, int], set[str]]:
    """(passed, known bugs and skipped, failed) from esctest's summary line, and the failed tests."""
    text = log.read_text(errors="replace") if log.exists() else ""
    found = _SUMMARY.findall(text)
    counts = tuple(int(n) for n in found[-1]) if found else (0, 0, 0)
    failed = set(re.findall(r"\*\*\* TEST (\S+) FAILED", text))
    return counts, failed  # type: ignore[return-value]


def _ended(tmux: TmuxServer, session: str) -> bool:
    try:
        return session not in tmux.run("list-sessions", "-F", "#{session_name}").split()
    except RuntimeError:  # no server: no session either
        return True


def _wait(done: Callable[[], bool], limit: float) -> None:
    end = time.monotonic() + limit
    while not done() and time.monotonic() < end:
        time.sleep(0.2)


def run_esctest(tmux: TmuxServer, source: Path, levels: list[int], verbose: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tree = _esctest_tree(source, Path(tmp)) / "esctest"
        for level in levels:
            own_log, tmux_log = Path(tmp, f"dsh-{level}.log"), Path(tmp, f"tmux-{level}.log")
            name = f"esc{level}"
            argv = _esctest_argv(level, tmux_log)
            TmuxSide(tmux, name, " ".join(argv) + "; sleep 1", ESC_ROWS, COLS, cwd=str(tree))
            own = OwnSide(_esctest_argv(level, own_log), ESC_ROWS, COLS, cwd=str(tree))
            start = time.monotonic()
            while own.pump() and time.monotonic() - start < 900:
                time.sleep(0.002)
            own.close()
            _wait(lambda: _ended(tmux, name), 900)  # noqa: B023  (waited for here, in this turn of the loop)
            (passed, other, failed), own_failed = _esctest_result(own_log)
            (t_passed, _, t_failed), tmux_failed = _esctest_result(tmux_log)
            print(
                f"  level {level}: dsh {passed} passed, {failed} failed; tmux {t_passed} passed, {t_failed} failed"
                f" (of {passed + failed + other} tests; the rest known xterm bugs or above the level)"
            )
            if verbose:
                for test in sorted(own_failed - tmux_failed):
                    print(f"    fails in dsh only:  {test}")
                for test in sorted(tmux_failed - own_failed):
                    print(f"    fails in tmux only: {test}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--esctest", type=Path, help="an esctest2 checkout or git directory")
    parser.add_argument("--levels", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--only", choices=("vttest", "esctest"))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    missing = [tool for tool in ("tmux", "vttest") if shutil.which(tool) is None]
    if missing:
        print(f"needs {' and '.join(missing)} (apt-get install -y {' '.join(missing)})")
        return 2
    tmux = TmuxServer({**os.environ, "TERM": "xterm"})
    version = subprocess.run(["vttest", "-V"], capture_output=True, text=True).stdout.strip()
    print(f"tmux {tmux.version()}, {version or 'vttest'}; load average {os.getloadavg()[0]:.1f}")
    try:
        if args.only != "esctest":
            print(f"\nvttest ({COLS}x{ROWS}), each screen cell by cell and the cursor:")
            screens, same = run_vttest(tmux, args.verbose)
            print(f"vttest: {same} of {screens} screens the same in dsh and tmux")
        if args.only != "vttest":
            if args.esctest is None:
                print("\nesctest2: not run (--esctest PATH: a checkout of github.com/ThomasDickey/esctest2)")
            else:
                print(f"\nesctest2 ({COLS}x{ESC_ROWS}, --expected-terminal=xterm), its own verdicts:")
                run_esctest(tmux, args.esctest, args.levels, args.verbose)
    finally:
        tmux.kill()
    print(f"(load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
