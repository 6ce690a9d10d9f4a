"""The attached clients: who the session speaks to, one size for the panes, one focus report per pane."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.layout.geometry import Rect
from dsh.session.observer import NoObserver, Observers

if TYPE_CHECKING:
    from dsh.session.observer import SessionObserver
    from dsh.session.session import Session

# Variables an attaching client brings for panes started after it (tmux's update-environment).
CLIENT_ENV = ("DISPLAY", "SSH_AUTH_SOCK", "SSH_CONNECTION", "WAYLAND_DISPLAY")


def attach(session: Session, observer: SessionObserver) -> None:
    if observer not in session.views:
        session.views.append(observer)
    _speak_to_views(session)
    client_looks(session, observer)  # a client attaching sees the focused pane: what it flagged is read


def detach(session: Session, observer: SessionObserver) -> None:
    if observer in session.views:
        session.views.remove(observer)
    _speak_to_views(session)
    if session._client_areas.pop(id(observer), None) is not None:
        _area_changed(session)
    for pane_id in list(session._focus_holders):
        hold_child_focus(session, observer, pane_id, False)


def _speak_to_views(session: Session) -> None:
    views = session.views
    session.observer = NoObserver() if not views else views[0] if len(views) == 1 else Observers(views)


def set_client_area(session: Session, view: object, area: Rect) -> None:
    """A client's view drew its pane area at this size; the panes take the smallest attached (tmux's
    window-size smallest), or with `ui.window_size = "latest"` that of the client that drew last."""
    key = id(view)
    if session._client_areas.get(key) == area and session._latest_area is not None:
        return
    session._client_areas[key] = area
    session._latest_area = area
    _area_changed(session)


def _area_changed(session: Session) -> None:
    areas = list(session._client_areas.values())
    if not areas:
        return
    latest = session._latest_area
    if session.config.text("ui.window_size") == "latest" and latest is not None:
        width, height = latest.width, latest.height
    else:
        width, height = min(a.width for a in areas), min(a.height for a in areas)
    first = areas[0]
    area = Rect(first.x, first.y, width, height)
    if area != session.area:
        session.area = area
        if len(session.views) > 1:
            session.observer.on_changed()  # the others lay out again at the new size


def client_active(session: Session, view: object) -> None:
    """A client pressed a key: with `ui.window_size = "latest"` the panes take its size (tmux's
    latest: the client with the most recent activity, not only the last to attach or resize)."""
    if len(session._client_areas) < 2:
        return
    area = session._client_areas.get(id(view))
    if area is None or area == session._latest_area:
        return
    session._latest_area = area
    _area_changed(session)


def client_looks(session: Session, view: SessionObserver) -> None:
    """A client's screen shows the panes again (an overlay closed): the focused pane is visited."""
    pane = session.active_pane
    if pane is not None and view in session.views and view.looks_at(pane.id):
        session.attention.visited(pane.id)


def on_screen_of(session: Session, view: object, pane_id: str) -> bool:
    """True unless the panes, laid out larger than this client's window (`ui.window_size = "latest"`
    and a smaller client), put the pane wholly past its right or bottom edge."""
    own = session._client_areas.get(id(view))
    if own is None or (own.width >= session.area.width and own.height >= session.area.height):
        return True
    rect = session.tabs.rects(view_area(session, own)).rects.get(pane_id)
    return rect is None or (rect.x < own.x + own.width and rect.y < own.y + own.height)


def view_area(session: Session, own: Rect) -> Rect:
    """Where a view lays the panes out in its own pane area `own`: at the session's size, so every
    client's panes are the same size (the cells past it stay empty)."""
    if len(session._client_areas) < 2:
        return own
    return Rect(own.x, own.y, session.area.width, session.area.height)


def hold_child_focus(session: Session, view: object, pane_id: str, held: bool) -> None:
    """A view's keyboard entered (or left) a pane: its program hears focus-in when the first view
    enters and focus-out when the last leaves, never once per client."""
    holders = session._focus_holders.setdefault(pane_id, set())
    before = bool(holders)
    (holders.add if held else holders.discard)(id(view))
    if not holders:
        del session._focus_holders[pane_id]
    pane = session.panes.get(pane_id)
    if before != bool(holders) and pane is not None and pane.running:
        pane.terminal.set_focus(bool(holders))


def update_environment(session: Session, client_env: dict[str, str]) -> None:
    """Take the attaching client's DISPLAY, SSH_AUTH_SOCK… for panes started from now on."""
    for name in CLIENT_ENV:
        value = client_env.get(name)
        if value:
            session.env[name] = value
        else:
            session.env.pop(name, None)
