"""prefix w: this session's tabs and panes as a tree with a live thumbnail of the selected pane, shown
in the list overlay's place (its keys: ui/agents_view.py list_bindings; Enter focuses the pane)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.layout.choose_tree import thumbnail, tree_model
from dsh.ui import agents_view
from dsh.ui.chrome import pane_state_label

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


def open_tree(app: DshApp) -> None:
    session = app.session

    def describe(pane_id: str) -> str:
        pane = session.panes.get(pane_id)
        return f"{pane.title}  {pane_state_label(pane)}" if pane is not None else "(gone)"

    def picture(pane_id: str) -> list[str]:
        pane = session.panes.get(pane_id)
        if pane is None:
            return []
        width = max(10, session.area.width - 6)
        return thumbnail(pane.terminal.screen.display, width, 16)  # read at each draw: live

    model = tree_model(session.tabs, describe, picture, session_id=session.log.id, cwd=session.cwd)
    agents_view.show(app, model)
