"""How the host starts one client's view: its first messages, the picker, the colours, its ways out to the client."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.output import ColorDepth

from dsh.session.view_records import Announcement, Switch
from dsh.values import Value


class ViewOptions(Value, fields=("announcements", "open_picker", "color_depth", "on_switch", "outward")):
    announcements: list[Announcement]
    open_picker: bool
    color_depth: ColorDepth | None
    # Ask the client to leave for another session; None where there is no client to ask (tests).
    on_switch: Callable[[Switch], None] | None
    # A desktop notification (title, body) to the client's own terminal; None: nowhere to send it.
    outward: Callable[[str, str], None] | None

    def __init__(
        self,
        announcements: list[Announcement] | None = None,
        open_picker: bool = False,
        color_depth: ColorDepth | None = None,
        on_switch: Callable[[Switch], None] | None = None,
        outward: Callable[[str, str], None] | None = None,
    ) -> None:
        self.announcements = [] if announcements is None else announcements
        self.open_picker = open_picker
        self.color_depth = color_depth
        self.on_switch = on_switch
        self.outward = outward
