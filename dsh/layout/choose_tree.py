"""tmux's choose-tree (prefix w) as plain data: a line per tab and per pane of this session, the active
pane selected, and the thumbnail of a pane's screen shown beside the list."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dsh.attention.agents_list import Line, ListModel, Target
from dsh.layout.tabs import TabSet
from dsh.text import sanitize


class TreeModel(ListModel):
    """The tree's lines; `thumbnail(pane_id)` gives that pane's screen rows as they are now."""

    def __init__(self, lines: list[Line], thumbnail: Callable[[str], list[str]]) -> None:
        super().__init__("tabs and panes (Enter goes there, Esc closes)", lines, "no tab")
        self.thumbnail = thumbnail


def tree_model(
    tabs: TabSet,
    describe: Callable[[str], str],
    thumbnail: Callable[[str], list[str]],
    *,
    session_id: str,
    cwd: str,
) -> TreeModel:
    """Tab lines (`0: title (N panes)`) with their panes under them (`describe(pane_id)`: title, state)."""
    lines: list[Line] = []
    selected = 0
    for index, tab in enumerate(tabs.tabs):
        panes = tab.pane_ids()
        title = sanitize(tab.title or describe(tab.active_pane).split("  ")[0], max_len=40)
        count = f"{len(panes)} pane{'s' if len(panes) != 1 else ''}"
        lines.append(Line("", "▾", f"{index}: {title} ({count})", Target(session_id, tab.active_pane, cwd)))
        for position, pane_id in enumerate(panes):
            branch = "└" if position == len(panes) - 1 else "├"
            if index == tabs.active_index and pane_id == tab.active_pane:
                selected = len(lines)
            lines.append(Line("", " ", f"  {branch} {pane_id} {describe(pane_id)}", Target(session_id, pane_id, cwd)))
    model = TreeModel(lines, thumbnail)
    model.selected = selected
    return model


def thumbnail(rows: Sequence[str], width: int, height: int) -> list[str]:
    """The last `height` rows of a screen that hold anything (trailing blank rows dropped), each cut to
    `width` columns: what a small picture of the pane shows."""
    shown = [row.rstrip() for row in rows]
    while shown and not shown[-1]:
        shown.pop()
    return [sanitize(row, max_len=max(1, width))[:width] for row in shown[-max(0, height) :]] if height > 0 else []
