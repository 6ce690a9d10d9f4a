"""The structural verbs: each changes the session's tabs, then saves the snapshot and tells the views once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from dsh.layout.geometry import is_direction
from dsh.layout.tree import find_path
from dsh.session import hook_folders

if TYPE_CHECKING:
    from dsh.layout.geometry import Direction
    from dsh.layout.tree import Orientation
    from dsh.session.pane import Pane
    from dsh.session.session import Session

# Where /focus and the focus keys move: a neighbour by its side, reading order, or the pane before.
FocusTarget = Literal["left", "right", "up", "down", "next", "prev", "last"]
SwapTarget = Literal["left", "right", "up", "down", "next", "prev"]


# -- the follow-ups, each said once here ---------------------------------------------------------------
def restructured(session: Session, new_pane: Pane | None = None) -> None:
    """The layout changed (a pane or tab added, closed, moved, resized, zoomed): the pane shown is
    visited, read budgets follow the active pane, the snapshot is written at once, the views told once."""
    _visit_active(session)
    session.apply_read_budgets()
    session.scheduler.structural_change()
    session.observer.on_structure_changed(new_pane)


def refocused(session: Session, *, save: bool) -> None:
    """The focus moved: the pane now shown is visited, read budgets follow it, the views told once; a
    tab switched is saved at once (the snapshot names the tab shown), a pane's focus with the next write."""
    _visit_active(session)
    session.apply_read_budgets()
    if save:
        session.scheduler.structural_change()
    session.observer.on_focus_changed()


def renamed(session: Session) -> None:
    """A name changed (a tab's, a pane's, the session's): saved at once, the views told once."""
    session.scheduler.structural_change()
    session.observer.on_changed()


def _visit_active(session: Session) -> None:
    pane = session.active_pane
    if pane is not None and session.observer_looks_at(pane.id):
        session.attention.visited(pane.id)


# -- panes -----------------------------------------------------------------------------------------
def split(
    session: Session,
    orientation: Orientation,
    argv: list[str] | None,
    cwd: str | None = None,
    *,
    at: str | None = None,
    percent: float | None = None,
) -> Pane | None:
    """Split pane `at` (default: the active one) for a new pane running `argv` in `cwd` (default: where
    the split pane's shell is), taking `percent` of the room when given; None (and said) when the panes
    would be too small to use, as tmux refuses."""
    if at is not None and at in session.panes and session.tabs.tabs:
        session.tabs.focus(at)
    if cwd is None:
        cwd = session.follow_cwd()
    pane = session.create_pane(argv, cwd=cwd)
    if not session.tabs.tabs:
        session.tabs.new_tab(pane.id)
    else:
        cramped = session.tabs.rects(session.area).too_small
        session.tabs.split(pane.id, orientation)
        if session.tabs.rects(session.area).too_small and not cramped:
            session.tabs.close_pane(pane.id)
            session.panes.pop(pane.id, None)
            session.announce("no space for a new pane here: /zoom, /close or a bigger window", error=True)
            if at is not None:
                refocused(session, save=False)  # the focus did move to the pane asked for
            return None
        if percent is not None:
            _set_share(session, pane.id, percent)
    session.start_pane(pane)
    restructured(session, pane)
    return pane


def _set_share(session: Session, pane_id: str, percent: float) -> None:
    """Give a new pane `percent` of the room it split from the pane before it."""

    path = find_path(session.tabs.active_tab.root, pane_id)
    if not path:
        return
    parent, index = path[-1]
    if index == 0:
        return
    weights = parent.weights
    share = weights[index - 1] + weights[index]
    weights[index] = share * percent / 100.0
    weights[index - 1] = share - weights[index]


def open_tab(session: Session, argv: list[str] | None, cwd: str | None = None) -> Pane:
    """A new tab whose one pane runs `argv` (default: the shell) in `cwd`."""
    pane = session.create_pane(argv, cwd=cwd)
    session.tabs.new_tab(pane.id)
    session.start_pane(pane)
    restructured(session, pane)
    return pane


def close_pane(session: Session, pane_id: str | None = None) -> None:
    """Close a pane (default: the active one) and end its program; the last pane closing ends the session."""
    pane_id = pane_id or (session.tabs.active_pane if session.tabs.tabs else None)
    pane = session.panes.get(pane_id) if pane_id else None
    if pane is None:
        return
    result = session.tabs.close_pane(pane.id)
    pane.terminal.kill()
    session.panes.pop(pane.id, None)
    hook_folders.remove_pane(session.log.id, pane.id)
    session.wake_waiters()
    session.log_event("pane_closed", pane_id=pane.id)
    if result.last_tab_closed:
        session.quit()
        return
    restructured(session)


def zoom(session: Session) -> bool:
    """Zoom the active pane to the whole tab, or unzoom; whether it is zoomed now."""
    zoomed = session.tabs.toggle_zoom()
    restructured(session)
    return zoomed


def resize(session: Session, direction: Direction, cells: int) -> int:
    """Move the active pane's border on that side `cells` cells; how far it moved."""
    moved = session.tabs.resize(direction, cells, session.area)
    restructured(session)
    return moved


def swap(session: Session, target: SwapTarget) -> bool:
    """Exchange the active pane with its neighbour; False when there is none."""
    if is_direction(target):
        swapped = session.tabs.swap(target, session.area)
    else:
        swapped = session.tabs.swap("next" if target == "next" else "prev")
    restructured(session)
    return swapped


def drag_border(session: Session, x: int, y: int, to: int) -> int | None:
    """A border of the active tab dragged with the mouse from cell (x, y) to column or row `to`: its
    place now, or None when no border is there. Drawn at each move, written with the next write of
    content; `border_dropped` writes it at once."""
    if not session.tabs.tabs:
        return None
    at = session.tabs.drag_border(session.area, x, y, to)
    if at is not None:
        session.scheduler.mark_dirty()
        session.observer.on_changed()
    return at


def border_dropped(session: Session) -> None:
    """The mouse let go of a border: the sizes it left are saved at once (the views drew each move)."""
    session.scheduler.structural_change()


# -- focus -----------------------------------------------------------------------------------------
def focus(session: Session, target: str) -> None:
    """Move the focus: to the neighbour on a side, in reading order (next/prev), or to the pane before."""
    if target == "last":
        session.tabs.focus_last()
    elif target == "next":
        session.tabs.focus_next()
    elif target == "prev":
        session.tabs.focus_prev()
    elif is_direction(target):
        session.tabs.focus_direction(target, session.area)
    refocused(session, save=False)


def focus_pane(session: Session, pane_id: str) -> None:
    """Make `pane_id` the active pane, switching to its tab (a click, /agents' Enter, `dsh focus`)."""
    if pane_id in session.panes:
        session.tabs.focus(pane_id)
        refocused(session, save=False)


# -- tabs ------------------------------------------------------------------------------------------
def select_tab(session: Session, index: int) -> None:
    """Show the tab at `index` (0-based; LayoutError past the last), from /tab select or a click."""
    session.tabs.select_tab(index)
    refocused(session, save=True)


def step_tab(session: Session, step: Literal[1, -1]) -> None:
    """Show the next (1) or previous (-1) tab, wrapping around."""
    if step == 1:
        session.tabs.next_tab()
    else:
        session.tabs.prev_tab()
    refocused(session, save=True)


def rename_tab(session: Session, title: str | None) -> None:
    """Name the active tab; None or empty gives it back its automatic name."""
    session.tabs.rename_tab(title or None)
    renamed(session)


def name_pane(session: Session, pane: Pane, name: str | None) -> None:
    """Name a pane; None gives it back its program's name."""
    pane.name = name
    renamed(session)


def set_title(session: Session, title: str) -> None:
    """Set the session's title (/rename, `dsh rename`), kept in its log."""
    session.title = title
    session.titles.explicit = title or None
    session.log_event("title", title=title)
    renamed(session)
