"""The prompt history of one workspace: one file under $DSH_HOME/history, appended safely.

The format is prompt_toolkit's FileHistory (`# <time>` then one `+<line>` per line of an entry), so
files written before stay readable. Lines are stored as the bytes typed: a byte that was not UTF-8
(a lone surrogate in Python) is written back as that byte, and read back the same.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from dsh.home import dsh_home
from dsh.safefile import append_line, ensure_dir, open_read
from dsh.store.workspace import workspace_partition

HISTORY_FOLDER = "history"
# Entries loaded at most: the prompt walks them one by one, and a runaway file must not fill memory.
MAX_ENTRIES = 50_000
_ENCODING = ("utf-8", "surrogateescape")


class PromptHistory:
    """One workspace's prompt history file. `load` and `append` raise OSError when the disk refuses
    (full, failing, a link or a FIFO planted in its place); the caller reports it and carries on."""

    def __init__(self, path: Path, base: Path) -> None:
        self.path = Path(path)
        self.base = Path(base)  # folders are made from here down, none of them a link

    @classmethod
    def for_workspace(cls, cwd: str) -> PromptHistory:
        home = dsh_home()
        return cls(home / HISTORY_FOLDER / workspace_partition(cwd), home)

    def load(self) -> list[str]:
        """Every entry, oldest first (the newest MAX_ENTRIES). A missing file is an empty history."""
        entries: list[str] = []
        lines: list[str] = []
        try:
            with open_read(self.path) as handle:
                for raw in handle:
                    line = raw.decode(*_ENCODING)
                    if line.startswith("+"):
                        lines.append(line[1:])
                    else:
                        if lines:
                            entries.append("".join(lines)[:-1])
                        lines = []
        except FileNotFoundError:
            return []
        if lines:
            entries.append("".join(lines)[:-1])
        return entries[-MAX_ENTRIES:]

    def append(self, entry: str) -> None:
        """Add one entry at the end, mode 0600; never through a link, never into a FIFO or a device."""
        ensure_dir(self.path.parent, self.base)
        stamp = datetime.datetime.now().isoformat(sep=" ")
        text = f"\n# {stamp}\n" + "".join(f"+{line}\n" for line in entry.split("\n"))
        try:
            data = text.encode(*_ENCODING)
        except UnicodeEncodeError:  # a surrogate no byte maps to (pasted, not typed): kept as its code
            data = text.encode("utf-8", "surrogatepass")
        append_line(self.path, data)
