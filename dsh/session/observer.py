"""What a session tells the view attached to it: the observer protocol, and a do-nothing observer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dsh.session.pane import Pane


class SessionObserver(Protocol):
    """The view of the one client attached to a session. Every call is on the event loop."""

    def on_message(self, text: str, error: bool) -> None:
        """A one-line message for the user (already sanitized)."""

    def on_pane_output(self, pane_id: str) -> None:
        """A pane printed something; redraw when convenient."""

    def on_pane_exited(self, pane_id: str) -> None:
        """A pane's program ended (the pane stays, showing its status)."""

    def on_alt_screen(self, pane_id: str, on: bool) -> None:
        """A pane's program entered (on) or left the alternate screen."""

    def on_clipboard(self, pane_id: str, selections: str, data: str) -> None:
        """A pane's program copied (OSC 52: the selections it named, the text in base64)."""

    def on_structure_changed(self, new_pane: Pane | None) -> None:
        """Tabs or splits changed; `new_pane` is a pane just opened, if any."""

    def on_takes_keys(self, pane_id: str, takes: bool) -> None:
        """A program that reads keys itself took (or gave back) the pane's foreground."""

    def on_focus_changed(self) -> None:
        """The active pane or tab changed."""

    def on_changed(self) -> None:
        """Something shown changed (a title, a state); redraw."""

    def on_ended(self) -> None:
        """The session has ended: its log is closed and its panes are going away."""

    def on_config_reloaded(self, warnings: list[str], by: str | None) -> None:
        """The session read its config again (`by`: the session whose /reload asked; None: this one)
        with these warnings: take its keys and say so."""

    def looks_at(self, pane_id: str) -> bool:
        """True when this client's screen shows the panes and this is the focused pane."""

    def shows(self, pane_id: str) -> bool:
        """True when this pane is on this client's screen (in view, not covered by an overlay)."""


class NoObserver:
    """Stands in while no client is attached: the session runs on, and nobody draws."""

    def on_message(self, text: str, error: bool) -> None:
        pass

    def on_pane_output(self, pane_id: str) -> None:
        pass

    def on_pane_exited(self, pane_id: str) -> None:
        pass

    def on_alt_screen(self, pane_id: str, on: bool) -> None:
        pass

    def on_clipboard(self, pane_id: str, selections: str, data: str) -> None:
        pass

    def on_structure_changed(self, new_pane: Pane | None) -> None:
        pass

    def on_takes_keys(self, pane_id: str, takes: bool) -> None:
        pass

    def on_focus_changed(self) -> None:
        pass

    def on_changed(self) -> None:
        pass

    def on_ended(self) -> None:
        pass

    def on_config_reloaded(self, warnings: list[str], by: str | None) -> None:
        pass

    def looks_at(self, pane_id: str) -> bool:
        return False

    def shows(self, pane_id: str) -> bool:
        return False


class Observers:
    """Several clients' views of one session (each attach shares it): every call goes to each of them."""

    def __init__(self, views: list[SessionObserver]) -> None:
        self.views = list(views)

    def _each(self, name: str, *args: object) -> None:
        for view in list(self.views):
            getattr(view, name)(*args)

    def on_message(self, text: str, error: bool) -> None:
        self._each("on_message", text, error)

    def on_pane_output(self, pane_id: str) -> None:
        self._each("on_pane_output", pane_id)

    def on_pane_exited(self, pane_id: str) -> None:
        self._each("on_pane_exited", pane_id)

    def on_alt_screen(self, pane_id: str, on: bool) -> None:
        self._each("on_alt_screen", pane_id, on)

    def on_clipboard(self, pane_id: str, selections: str, data: str) -> None:
        self._each("on_clipboard", pane_id, selections, data)

    def on_structure_changed(self, new_pane: Pane | None) -> None:
        self._each("on_structure_changed", new_pane)

    def on_takes_keys(self, pane_id: str, takes: bool) -> None:
        self._each("on_takes_keys", pane_id, takes)

    def on_focus_changed(self) -> None:
        self._each("on_focus_changed")

    def on_changed(self) -> None:
        self._each("on_changed")

    def on_ended(self) -> None:
        self._each("on_ended")

    def on_config_reloaded(self, warnings: list[str], by: str | None) -> None:
        self._each("on_config_reloaded", warnings, by)

    def looks_at(self, pane_id: str) -> bool:
        return any(view.looks_at(pane_id) for view in self.views)

    def shows(self, pane_id: str) -> bool:
        return any(view.shows(pane_id) for view in self.views)
