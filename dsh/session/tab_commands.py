"""The slash commands of tmux's window habits: /layout, /break, /join and /move, /kill-tab, /start-all."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dsh.commands.registry import CommandError, Commands, Given, Registry, Takes
from dsh.layout.errors import LayoutError
from dsh.layout.presets import LAYOUT_NAMES
from dsh.session import tab_moves

if TYPE_CHECKING:
    from dsh.layout.tree import Orientation
    from dsh.session.client import Client

LAYOUT_WORDS = [*LAYOUT_NAMES, "next", "prev", "spread"]


def _layout_args(ctx: Client, args: list[str]) -> list[str]:
    return LAYOUT_WORDS if not args else []


def _tab_targets(ctx: Client, args: list[str]) -> list[str | tuple[str, str]]:
    if args and args[-1] == "-t":
        return [(str(i), tab.title or "") for i, tab in enumerate(ctx.session.tabs.tabs)]
    return ["-t", "-h", "-v"] if not args else []


def _layout_error(action: Callable[[], Any]) -> Any:
    try:
        return action()
    except LayoutError as exc:
        raise CommandError(str(exc)) from None


# The commands of this module; register adds them.
COMMANDS = Commands()
_command = COMMANDS.command


@_command("layout", Takes(words="|".join(LAYOUT_WORDS), lower=1, upper=1, hint="name a layout"), args=_layout_args)
def layout(ctx: Client, given: Given) -> None:
    """Arrange this tab's panes as one of tmux's layouts.

    even-horizontal (side by side), even-vertical (stacked), main-horizontal (the first pane on top,
    `layout.main_pane_height` rows), main-vertical (on the left, `layout.main_pane_width` columns),
    tiled; a unique prefix will do. `next`/`prev` go through them in that order (prefix Space), and
    `spread` gives the active pane and its neighbours the same size (prefix E).
    """
    word = given.words[0].lower()
    session = ctx.session
    if word == "spread":
        if not tab_moves.spread_evenly(session):
            ctx.announce("the panes are even already")
        return
    if word in ("next", "prev"):
        word = session.tabs.next_layout_name(1 if word == "next" else -1)
    full = _layout_error(lambda: tab_moves.select_layout(session, word))
    ctx.announce(f"layout {full}")


@_command("break", Takes())
def break_(ctx: Client, given: Given) -> None:
    """Move the active pane to a new tab of its own.

    As tmux's break-pane. `/move -t N` (or `/join`) puts it back into tab N.
    """
    _layout_error(lambda: tab_moves.break_pane(ctx.session))


@_command(
    "join",
    Takes(flags=("-t TAB", "-h|-v"), needs={"-t": "a tab: its number, id or name"}),
    aliases=("move",),
    args=_tab_targets,
)
def join(ctx: Client, given: Given) -> None:
    """Move the active pane into another tab.

    As tmux's join-pane and move-pane: it splits that tab's active pane, -v stacked (the default),
    -h side by side. TAB is the tab's number as the tab bar shows it, its id or its name; without
    -t, the tab shown before this one. A pane alone in its tab takes the tab with it.
    """
    target = given.value("-t")
    orientation: Orientation = "row" if given.has("-h") else "column"
    tabs = ctx.session.tabs
    if target is None:
        index = tabs.previous_tab_index()
        if index is None:
            raise CommandError("no other tab to move the pane to: /join -t TAB")
    else:
        index = _layout_error(lambda: tabs.find_tab(target))
    _layout_error(lambda: tab_moves.move_pane(ctx.session, index, orientation))


@_command("kill-tab", Takes(flags=("-f",), words="[TAB]", upper=1), args=_tab_targets)
def kill_tab(ctx: Client, given: Given) -> None:
    """Close a whole tab (default: this one) and its programs.

    As tmux's kill-window. When one of its panes runs more than an idle shell, dsh asks once first; -f does not ask.
    Closing the last tab ends the session, as /close of the last pane does.
    """
    force = given.has("-f")
    session = ctx.session
    words = given.words
    index = _layout_error(lambda: session.tabs.find_tab(words[0])) if words else session.tabs.active_index
    panes = tab_moves.tab_panes(session, index)
    busy = [] if force else [p for p in session.busy_panes() if p in panes]
    tab = session.tabs.tabs[index]
    if not busy:
        tab_moves.kill_tab(session, index)
        return
    names = ", ".join(f"{p.id} {p.title}" for p in busy[:3]) + ("…" if len(busy) > 3 else "")

    def kill() -> None:
        if tab in session.tabs.tabs:  # still there when the answer comes
            tab_moves.kill_tab(session, session.tabs.tabs.index(tab))

    ctx.confirm(
        f"tab {index} still runs {names}. Close it? y closes, any other key keeps it",
        kill,
        declined="not closed",
    )


@_command("start-all", Takes())
def start_all(ctx: Client, given: Given) -> None:
    """Start every restored pane: fresh shells, agents resumed.

    A command a pane's shell was running is never run again by this: M-r on that pane does.
    """
    started = tab_moves.start_all(ctx.session)
    if not started:
        raise CommandError("no restored pane is waiting to start")
    ctx.announce(f"started {len(started)} pane{'s' if len(started) != 1 else ''}")


def register(registry: Registry) -> None:
    registry.add_declared(COMMANDS)
