"""The prompt's history as one list: the shell's own, every workspace's, then this workspace's."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from dsh.home import dsh_home
from dsh.prompt.shellhist import history_file, read_history
from dsh.store.history_file import HISTORY_FOLDER, PromptHistory
from dsh.store.workspace import workspace_partition

# Lines read from other workspaces' histories at most (the newest files first).
OTHERS_MAX = 50_000


class HistorySources:
    """What Up, C-r and the suggestions walk: three tiers, each oldest first."""

    def __init__(self, workspace: list[str], others: list[str], shell: list[str]) -> None:
        self.workspace = workspace
        self.others = others
        self.shell = shell

    @classmethod
    def load(cls, cwd: str, env: Mapping[str, str], *, own: list[str] | None = None) -> HistorySources:
        """Read the tiers for a prompt in `cwd`'s workspace. `own` is that workspace's history when the
        caller has read it already. Files that cannot be read count as empty."""
        if own is None:
            try:
                own = PromptHistory.for_workspace(cwd).load()
            except (OSError, ValueError):
                own = []
        shell: list[str] = []
        found = history_file(env.get("SHELL", ""), env)
        if found is not None:
            shell = read_history(*found)
        return cls(own, other_workspaces(workspace_partition(cwd)), shell)

    def merged(self) -> list[str]:
        """Every line once, oldest first; a line's place is its newest use, this workspace's last."""
        seen: set[str] = set()
        out: list[str] = []
        for line in reversed([*self.shell, *self.others, *self.workspace]):
            if line not in seen:
                seen.add(line)
                out.append(line)
        out.reverse()
        return out


def other_workspaces(partition: str, limit: int = OTHERS_MAX) -> list[str]:
    """The newest `limit` lines of every other workspace's history, oldest first (by file age)."""
    folder = dsh_home() / HISTORY_FOLDER
    try:
        names = [name for name in os.listdir(folder) if name != partition]
    except OSError:
        return []
    dated = []
    for name in names:
        try:
            dated.append((os.lstat(folder / name).st_mtime, name))
        except OSError:
            continue
    chunks: list[list[str]] = []
    total = 0
    for _, name in sorted(dated, reverse=True):
        try:
            lines = PromptHistory(Path(folder / name), dsh_home()).load()
        except (OSError, ValueError):
            continue
        chunks.append(lines)
        total += len(lines)
        if total >= limit:
            break
    out = [line for chunk in reversed(chunks) for line in chunk]
    return out[-limit:]
