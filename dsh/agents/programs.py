"""Which program an argv runs (looking through `env` and `npx`), and whether an agent adapter knows it.

Kept apart from the adapters so that a host starting its first pane (a shell) reads the argv without
importing them: dsh.agents was 15-20 ms of a cold start's imports, none of it needed for a shell.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# The programs and npm packages the adapters of dsh.agents.registry run: each adapter's `binary` and
# `packages` (tests/test_agents.py holds the two equal).
AGENT_PROGRAMS = frozenset(
    {"claude", "@anthropic-ai/claude-code", "codex", "@openai/codex", "opencode", "opencode-ai", "cursor-agent"}
)

_ENV_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_ENV_OPTS_WITH_VALUE = {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}
_NPX = {"npx", "bunx", "pnpx"}
_NPX_OPTS_WITH_VALUE = {"-p", "--package", "--cache", "--registry", "--userconfig"}


def _basename(arg: str) -> str:
    return arg.rstrip("/").rsplit("/", 1)[-1]


def _package_name(spec: str) -> str:
    """`@scope/name@1.2` -> `@scope/name`, `name@latest` -> `name`."""
    at = spec.find("@", 1)
    return spec[:at] if at > 0 else spec


def _locate(argv: Sequence[str]) -> tuple[int, bool] | None:
    """(index of the program that runs, whether it is an npm package run by npx), or None."""
    i = 0
    while i < len(argv):
        name = _basename(argv[i])
        if name == "env":
            i += 1
            while i < len(argv):
                arg = argv[i]
                if arg == "--":
                    i += 1
                    break
                if arg in _ENV_OPTS_WITH_VALUE:
                    i += 2
                elif arg.startswith("-") or _ENV_ASSIGN.fullmatch(arg):
                    i += 1
                else:
                    break
            continue
        if name in _NPX:
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                arg = argv[i]
                i += 2 if arg in _NPX_OPTS_WITH_VALUE else 1
                if arg == "--":
                    break
            return (i, True) if i < len(argv) else None
        return i, False
    return None


def program_index(argv: Sequence[str]) -> int | None:
    """Index of the program that actually runs, looking through `env [opts] [VAR=x...]` and `npx [-y] pkg`.

    Behind npx-style launchers it is the index of the package argument.
    """
    found = _locate(argv)
    return found[0] if found else None


def program_name(argv: Sequence[str]) -> str | None:
    """The name of the program that runs: a basename, or an npm package name (no version) behind npx."""
    if isinstance(argv, str) or not argv or not all(isinstance(arg, str) for arg in argv):
        return None
    found = _locate(argv)
    if found is None:
        return None
    i, via_npx = found
    return _package_name(argv[i]) if via_npx else _basename(argv[i])


def runs_agent(argv: Sequence[str]) -> bool:
    """True when `argv` runs a program one of the agent adapters recognizes."""
    return program_name(argv) in AGENT_PROGRAMS
