"""The sessions as an aligned text table: `dsh sessions`, and `dsh attach` when nothing here is detached."""

from __future__ import annotations

import shutil
import time
from collections.abc import Container
from typing import TYPE_CHECKING, TextIO

from dsh.store.timefmt import epoch_from_iso
from dsh.text import sanitize

if TYPE_CHECKING:
    from dsh.store.summary import Summary


def age(iso: str, now: float | None = None) -> str:
    then = epoch_from_iso(iso)
    if then is None:
        return "?"
    seconds = max(0, int((time.time() if now is None else now) - then))
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            count = seconds // size
            if unit == "w" and count > 8:
                return time.strftime("%Y-%m-%d", time.gmtime(then))
            return f"{count}{unit}"
    return f"{seconds}s"


def state(row: Summary, stopped: bool = False) -> str:
    """attached, detached, closed or crashed (see Summary.state), `stopped` for a live session whose host
    is stopped (SIGSTOP), and whether it is archived."""
    shown = "stopped" if stopped and row.live_pid is not None else row.state
    return shown + (",archived" if row.archived else "")


def write_table(
    out: TextIO,
    rows: list[Summary],
    *,
    with_workspace: bool,
    width: int | None = None,
    agents: dict[str, str] | None = None,
    stopped: Container[str] = (),
) -> None:
    """An aligned table; every text field from disk is sanitized and cut to fit the terminal. `agents`:
    a live session's agents' states by its id ("1 needs you · 2 working"), in an AGENTS column when any
    row has them; `stopped`: the ids of live sessions whose hosts are stopped."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    agents = agents or {}
    header = (
        ["ID", "AGE", "STATE", "PANES"] + (["AGENTS"] if agents else []) + (["WORKSPACE"] if with_workspace else [])
    )
    header.append("TITLE")
    now = time.time()
    table: list[list[str]] = []
    for row in rows:
        cells = [row.id, age(row.updated_at, now), state(row, row.id in stopped), str(row.pane_count)]
        if agents:
            cells.append(agents.get(row.id, ""))
        if with_workspace:
            label = sanitize(row.workspace_label)
            cells.append(label if len(label) <= 32 else "…" + label[-31:])
        title = row.title
        if row.unresumable_reason:
            title += f" (cannot resume: {row.unresumable_reason})"
        cells.append(title)
        table.append(cells)
    widths = [max(len(header[i]), *(len(cells[i]) for cells in table)) for i in range(len(header) - 1)]
    room = max(20, width - sum(w + 2 for w in widths))
    for cells in [header, *table]:
        fixed = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells[:-1]))
        out.write(f"{fixed}  {sanitize(cells[-1], max_len=room)}\n")
