"""A saved session's last screen, as a small picture for the picker's preview: its active pane's tail
replayed into a screen of that pane's size. Read only (a damaged snapshot is left for its host's loader
to move aside), bounded, and anything unreadable is simply no picture."""

from __future__ import annotations

import json
import os

from dsh.persist.snapshot import MAX_SNAPSHOT_BYTES, SNAPSHOT_FILE, state_dir, tail_path
from dsh.safefile import open_read

# Of a tail, the end is what the last screen shows; more is only more time.
TAIL_READ = 65536
MAX_SIDE = 500


def _active_pane(data: object) -> tuple[str, int, int] | None:
    """(pane id, rows, cols) of the active tab's active pane in a snapshot's JSON, or None."""
    if not isinstance(data, dict):
        return None
    tabs, panes = data.get("tabs"), data.get("panes")
    if not isinstance(tabs, list) or not tabs or not isinstance(panes, list):
        return None
    index = data.get("active_tab")
    tab = tabs[index] if isinstance(index, int) and 0 <= index < len(tabs) else tabs[0]
    pane_id = tab.get("active_pane") if isinstance(tab, dict) else None
    for pane in panes:
        if isinstance(pane, dict) and pane.get("id") == pane_id and isinstance(pane_id, str):
            rows, cols = pane.get("rows"), pane.get("cols")
            if type(rows) is int and type(cols) is int and 0 < rows <= MAX_SIDE and 0 < cols <= MAX_SIDE:
                return pane_id, rows, cols
    return None


def last_screen(session_id: str) -> list[str] | None:
    """The rows the active pane showed when the session was last saved, or None (no snapshot, no tail,
    anything unreadable)."""
    from dsh.term.replay import strip_modes
    from dsh.term.screen import TermScreen

    try:
        with open_read(state_dir(session_id) / SNAPSHOT_FILE) as handle:
            raw = handle.read(MAX_SNAPSHOT_BYTES + 1)
        if len(raw) > MAX_SNAPSHOT_BYTES:
            return None
        found = _active_pane(json.loads(raw))
        if found is None:
            return None
        pane_id, rows, cols = found
        with open_read(tail_path(session_id, pane_id)) as handle:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(0, size - TAIL_READ))
            tail = handle.read(TAIL_READ)
        screen = TermScreen(cols, rows, scrollback=0)
        screen.feed(strip_modes(tail))
        return list(screen.display)
    except Exception:  # a picture is a nicety: nothing to show is the answer to anything wrong
        return None
