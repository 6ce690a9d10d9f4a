"""The containers of one client's view: tab bar, panes and overlays, the bottom lines floating over them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import (
    CompletionsMenu,
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    Layout,
    VSplit,
)
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import (
    AppendAutoSuggestion,
    BeforeInput,
    ConditionalProcessor,
    PasswordProcessor,
)

from dsh.layout.geometry import Layout as PaneLayout
from dsh.layout.geometry import Rect
from dsh.session.client_state import Mode
from dsh.ui import chrome
from dsh.ui.pane_window import LineWindow
from dsh.ui.panes_view import PanesContainer, PaneSlot
from dsh.ui.prompt_control import PromptControl
from dsh.ui.split import ViewHSplit
from dsh.ui.window import ViewWindow

if TYPE_CHECKING:
    from prompt_toolkit.layout import Container

    from dsh.ui.app import DshApp

PROMPT_MAX_ROWS = 6
# The status line and the prompt line: the rows under the panes that chrome owns.
CHROME_BOTTOM_ROWS = 2


def build_layout(app: DshApp) -> None:
    """Make the view's windows and its Layout, set on `app` (tabbar, panes_view, help_window, status,
    message_window, prompt_window, layout)."""
    session = app.session

    def pane_layout(area: Rect) -> PaneLayout:
        tabs = session.tabs
        if not tabs.tabs:
            app.too_small = False
            return PaneLayout()
        layout = tabs.rects(session.view_area(area))
        app.too_small = layout.too_small
        return layout

    def visible_slots() -> list[PaneSlot]:
        tabs = session.tabs
        if not tabs.tabs:
            return []
        return [app.slots[pid] for pid in tabs.active_tab.pane_ids() if pid in app.slots]

    def set_area(area: Rect) -> None:
        session.set_client_area(app.state, area)

    def body() -> Container:
        if app.mode == Mode.PICKER and app.picker_view is not None:
            return app.picker_view.container
        if app.mode == Mode.HELP:
            return app.help_window
        return app.panes_view

    app.tabbar = LineWindow(FormattedTextControl(lambda: chrome.tabbar_fragments(app)), height=1, style="class:tabbar")
    app.panes_view = PanesContainer(
        pane_layout,
        visible_slots,
        on_area=set_area,
        on_border_drag=app.session.drag_border,
        on_border_drop=app.session.border_dropped,
    )
    app.help_window = ViewWindow(
        FormattedTextControl(app.overlays.help_fragments, focusable=True, show_cursor=False),
        style="class:help",
    )
    app.status = LineWindow(
        FormattedTextControl(lambda: chrome.status_fragments(app)), height=1, style="class:status", char=" "
    )
    app.message_window = ConditionalContainer(
        ViewWindow(
            FormattedTextControl(lambda: chrome.message_fragments(app)),
            height=Dimension(min=1, max=3),
            wrap_lines=True,
            dont_extend_height=True,
            char=" ",  # opaque over the pane it floats on
        ),
        filter=Condition(lambda: app.message is not None),
    )
    app.prompt_window = ViewWindow(
        PromptControl(
            app.enter_prompt,
            app.prompt_buffer,
            input_processors=[
                ConditionalProcessor(PasswordProcessor(), Condition(app.pane_wants_secret)),
                BeforeInput(app._label, style="class:prompt"),
                AppendAutoSuggestion(style="class:suggestion"),
            ],
        ),
        # A long line or a pasted block wraps and grows the prompt (up to a few rows), so the label
        # and everything that Enter will send stay in view.
        height=Dimension(min=1, max=PROMPT_MAX_ROWS),
        wrap_lines=True,
        dont_extend_height=True,
        char=" ",
    )

    # Chrome never changes a pane's size: the panes get every row but the tab bar, the status line
    # and one prompt line, always. What grows (a message, a wrapped prompt, history search, the
    # completion menu) floats up over the bottom of the panes from the status line.
    root = ViewHSplit([app.tabbar, DynamicContainer(body), ViewWindow(height=CHROME_BOTTOM_ROWS)])
    # Laid out only while there is a menu: a VSplit divides its width a cell at a time, per frame.
    menu = ConditionalContainer(
        VSplit([CompletionsMenu(max_height=8, scroll_offset=1), ViewWindow()]),
        filter=Condition(lambda: app.prompt_buffer.complete_state is not None),
    )
    bottom = ViewHSplit([menu, app.message_window, app.status, app.prompt_window])
    app.layout = Layout(
        FloatContainer(root, floats=[Float(bottom, left=0, right=0, bottom=0, transparent=True)]),
        focused_element=app.prompt_window,
    )
