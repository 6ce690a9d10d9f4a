"""A session's tab-wide changes: preset layouts, panes moved between tabs, a tab closed, every restored
pane started; each saved to the snapshot as every structural change is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.layout.tree import Orientation
from dsh.persist.states import PaneState
from dsh.session.structure import restructured

if TYPE_CHECKING:
    from dsh.session.pane import Pane
    from dsh.session.session import Session


def _changed(session: Session) -> None:
    restructured(session)  # saved and told once, the pane now shown visited


def select_layout(session: Session, name: str) -> str:
    """Lay the active tab out as preset `name` at the session's pane area; the preset's full name."""
    full = session.tabs.select_layout(
        name,
        session.area,
        main_pane_height=session.config.text("layout.main_pane_height"),
        main_pane_width=session.config.text("layout.main_pane_width"),
    )
    _changed(session)
    return full


def spread_evenly(session: Session) -> bool:
    """tmux's select-layout -E on the active pane; False when its panes were even already."""
    changed = session.tabs.spread_evenly(session.area)
    if changed:
        _changed(session)
    return changed


def break_pane(session: Session) -> str:
    """Move the active pane to a tab of its own; the new tab's id."""
    tab = session.tabs.break_pane()
    _changed(session)
    return tab.id


def move_pane(session: Session, index: int, orientation: Orientation = "column") -> str:
    """Move the active pane into the tab at `index` (beside that tab's active pane); the tab's id."""
    tab = session.tabs.move_pane(index, orientation)
    _changed(session)
    return tab.id


def tab_panes(session: Session, index: int) -> list[Pane]:
    """The panes of the tab at `index`, in reading order."""
    return [session.panes[p] for p in session.tabs.tabs[index].pane_ids() if p in session.panes]


def kill_tab(session: Session, index: int) -> None:
    """Close the tab at `index` and end its programs; the last tab closing ends the session, as the last
    pane closing does."""
    pane_ids, result = session.tabs.close_tab(index)
    session.synced_tabs = {t for t in session.synced_tabs if t in session.tabs.tab_ids()}
    for pane_id in pane_ids:
        pane = session.panes.pop(pane_id, None)
        if pane is not None:
            pane.terminal.kill()
            session.log_event("pane_closed", pane_id=pane_id)
    if result.last_tab_closed:
        session.quit()
        return
    _changed(session)


def start_all(session: Session) -> list[Pane]:
    """Start every pane a restore left waiting: a fresh shell in each RESTORED pane's directory, each
    RESUMABLE agent's own resume. A command a pane's shell ran is never run again here (that is M-r, on
    that pane). The panes that started."""
    waiting = [p for p in session.panes.values() if p.state in (PaneState.RESTORED, PaneState.RESUMABLE)]
    started = []
    for pane in waiting:
        session.start_tombstone(pane)
        if pane.running:
            started.append(pane)
    return started
