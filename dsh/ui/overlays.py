"""The overlays over one view's panes: the help page, and /agents, /notifications or /tree in its place."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dsh.session.client_state import Mode
from dsh.ui import agents_view
from dsh.ui.keyhelp import key_help_lines

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples

    from dsh.ui.app import DshApp


class Overlays:
    """The help page's lines and scroll, and the list shown in its place (DshApp forwards to these)."""

    def __init__(self, app: DshApp) -> None:
        self.app = app
        self.help_lines: list[str] = []
        self.list_overlay: Any = None  # /agents or /notifications, shown in help's place (ui/agents_view.py)
        self.help_scroll = 0

    def help_fragments(self) -> StyleAndTextTuples:
        if self.list_overlay is not None:
            return agents_view.fragments(self.app, self.list_overlay)
        return [("", "\n".join(self.help_lines[self.help_scroll :]))]

    def scroll_help(self, delta: int) -> None:
        """Scroll the help page; the last page is as far as it goes (as in less), never a few lines."""
        info = self.app.help_window.render_info
        height = info.window_height if info is not None else 20
        self.help_scroll = max(0, min(self.help_scroll + delta, max(0, len(self.help_lines) - height)))
        self.app.invalidate()

    def show_help(self, topic: str | None = None) -> None:
        app = self.app
        lines: list[str] = []
        if topic in (None, "keys"):
            lines += key_help_lines(app.keymap, app.registry, app.escape_key, app.copy_keys)
            lines.append("")
        if topic != "keys":
            lines.append(app.registry.help_text(topic) if topic else app.registry.help_text())
        self.help_lines = "\n".join(lines).splitlines()
        self.help_scroll = 0
        app.mode = Mode.HELP
        app.layout.focus(app.help_window)
        app.invalidate()

    # /agents, /notifications (dsh.ui.agents_view), /tree (dsh.ui.tree_view)
    def open_tree(self) -> None:
        from dsh.ui import tree_view

        tree_view.open_tree(self.app)

    def open_agents(self) -> None:
        agents_view.open_agents(self.app)

    def agents_next(self) -> None:
        agents_view.go_next(self.app)

    def open_notifications(self) -> None:
        agents_view.open_notifications(self.app)

    def close_overlay(self) -> None:
        self.app.picker_view = None
        self.list_overlay = None
        self.app.return_keyboard()
