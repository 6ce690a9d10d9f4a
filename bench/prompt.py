"""The prompt's completion and suggestions at scale, beside plain references run in the same process.

- Tab in a folder of 10,000 files (`less file-0<Tab>`): the candidates, sorted and quoted, ready for
  the menu; reference: `os.listdir` of the same folder.
- Tab on a command name with a PATH of 5,000 executables: first (cold, the PATH is listed) and warm;
  reference: `os.listdir` of the PATH folder.
- A suggestion per keystroke from 100,000 history lines (typing `git commit -m "fix` one key at a
  time); reference: a plain newest-first scan with `str.startswith`.
- Building the suggestion index from those lines (done once per view, on a worker thread).

    python bench/prompt.py
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from dsh.prompt.complete import CommandNames, complete_line, complete_path, current_word
from dsh.prompt.suggest import Suggester

TARGET_FILES_MS = 50.0
TARGET_COMMANDS_MS = 30.0
TARGET_SUGGEST_P99_MS = 5.0


def timed(fn, repeat: int = 7) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def history(count: int) -> list[str]:
    rng = random.Random(7)
    verbs = [
        "git status",
        "git commit -m",
        "git push",
        "make test",
        "ls -la",
        "cd src",
        "vim",
        "pytest -k",
        "docker compose up",
        "kubectl get pods",
        "grep -rn",
        "python3 -m",
        "npm run",
        "cargo build",
    ]
    words = ["fix", "parser", "render", "tests", "docs", "api", "cache", "login", "build", "deploy"]
    return [f"{rng.choice(verbs)} {rng.choice(words)}{rng.randrange(1000)} {rng.choice(words)}" for _ in range(count)]


def menu(found: list) -> object:  # type: ignore[type-arg]
    """What the view makes of the candidates: prompt_toolkit's completions and their menu state."""
    from prompt_toolkit.buffer import CompletionState
    from prompt_toolkit.completion import Completion
    from prompt_toolkit.document import Document

    completions = [Completion(c.text, start_position=-6, display=c.display, display_meta=c.meta) for c in found]
    return CompletionState(Document("less file-0"), completions)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "files"
        folder.mkdir()
        for n in range(10_000):
            (folder / f"file-{n:05d}.log").touch()
        ref_ms, _ = timed(lambda: os.listdir(folder))
        tab_ms, found = timed(lambda: complete_path(current_word("less file-0"), str(folder)))
        menu_ms, _ = timed(lambda: menu(found))  # type: ignore[arg-type]
        print(
            f"Tab in a folder of 10,000 files: {tab_ms:.1f} ms for {found.total} matches "  # type: ignore[attr-defined]
            f"+ {menu_ms:.1f} ms to make the menu's entries = {tab_ms + menu_ms:.1f} ms "
            f"(target <= {TARGET_FILES_MS:.0f} ms); os.listdir of it: {ref_ms:.1f} ms "
            f"({(tab_ms + menu_ms) / ref_ms:.1f}x)"
        )

        bin_dir = Path(tmp) / "bin"
        bin_dir.mkdir()
        for n in range(5000):
            tool = bin_dir / f"tool-{n:04d}"
            tool.touch()
            tool.chmod(0o755)
        env = {"PATH": str(bin_dir), "HOME": tmp}
        ref_ms, _ = timed(lambda: os.listdir(bin_dir))
        names = CommandNames()
        start = time.perf_counter()
        complete_line("tool-1", tmp, env, names)
        cold_ms = (time.perf_counter() - start) * 1000
        warm_ms, (_, found) = timed(lambda: complete_line("tool-1", tmp, env, names))  # type: ignore[misc]
        print(
            f"Tab on a command name, PATH of 5,000 executables: cold {cold_ms:.1f} ms, warm {warm_ms:.2f} ms "
            f"for {len(found)} candidates (target <= {TARGET_COMMANDS_MS:.0f} ms); os.listdir of it: "
            f"{ref_ms:.1f} ms (cold {cold_ms / ref_ms:.1f}x)"
        )

    lines = history(100_000)
    start = time.perf_counter()
    suggester = Suggester([lines[:20_000], lines[20_000:80_000], lines[80_000:]])
    build_ms = (time.perf_counter() - start) * 1000
    newest_first = list(reversed(lines))
    typed = 'git commit -m "fix'
    per_key, reference = [], []
    for round_ in range(20):
        for end in range(1, len(typed) + 1):
            prefix = typed[:end] if round_ % 2 else typed[:end].replace("git commit", "make test")
            start = time.perf_counter()
            suggester.suggest(prefix)
            per_key.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            next((line for line in newest_first if line.startswith(prefix) and line != prefix), None)
            reference.append((time.perf_counter() - start) * 1000)
    per_key.sort()
    reference.sort()
    p50, p99 = statistics.median(per_key), per_key[int(0.99 * (len(per_key) - 1))]
    ref50, ref99 = statistics.median(reference), reference[int(0.99 * (len(reference) - 1))]
    print(
        f"suggestion per keystroke, 100,000 history lines: p50 {p50:.3f} ms, p99 {p99:.3f} ms "
        f"(target p99 <= {TARGET_SUGGEST_P99_MS:.0f} ms); plain newest-first scan: p50 {ref50:.3f} ms, "
        f"p99 {ref99:.3f} ms ({p99 / ref99:.2f}x at p99)"
    )
    print(f"building the suggestion index of 100,000 lines (once per view, on a worker): {build_ms:.0f} ms")
    foreground_check()


def foreground_check() -> None:
    """What the keys-follow-the-foreground check costs: two syscalls on the PTY master, polled on pane
    output (at most every 50 ms) and on a 100 ms timer, never per key."""
    import asyncio

    from dsh.session.pane_programs import FOREGROUND_POLL_SECONDS
    from dsh.term.terminal import Terminal

    async def measure() -> tuple[float, float, float]:
        term = Terminal(["/bin/sh"], cwd="/", env={"PATH": os.defpath, "PS1": "$ "})
        term.start()
        await asyncio.sleep(0.3)
        calls = 2000
        start = time.perf_counter()
        for _ in range(calls):
            term.program_takes_keys()
        check_us = (time.perf_counter() - start) / calls * 1e6
        start = time.perf_counter()
        for _ in range(calls):
            term.foreground_process()
        program_us = (time.perf_counter() - start) / calls * 1e6
        start = time.perf_counter()
        for _ in range(calls):
            os.getpid()
        ref_us = (time.perf_counter() - start) / calls * 1e6
        term.kill()
        return check_us, program_us, ref_us

    check_us, program_us, ref_us = asyncio.run(measure())
    per_second = 1 / FOREGROUND_POLL_SECONDS + 10
    print(
        f"foreground check: {check_us:.1f} us a call (tcgetpgrp + tcgetattr), the foreground program's name "
        f"{program_us:.1f} us (/proc); at most {per_second:.0f} checks a second per pane, none per key "
        f"(at most {per_second * (check_us + program_us) / 1000:.2f} ms of each second); os.getpid: "
        f"{ref_us:.2f} us"
    )


if __name__ == "__main__":
    main()
