"""What the tests compare of an agent's argv: the command without the options that carry dsh's hooks."""

from __future__ import annotations


def without_hooks(argv: list[str]) -> list[str]:
    """`argv` less the options that give an agent dsh's hooks (Claude's `--settings FILE`, Codex's
    `-c notify=...` and `-c tui.notification...`), which every agent dsh starts gets
    (dsh/agents/hook_launch.py)."""
    out: list[str] = []
    skip = False
    for i, word in enumerate(argv):
        if skip:
            skip = False
            continue
        if word == "--settings" or (word == "-c" and i + 1 < len(argv) and argv[i + 1].startswith(("notify=", "tui."))):
            skip = True
            continue
        out.append(word)
    return out
