"""The attention commands: /agents (and `next`, C-b g) and /notifications; the list is the view's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dsh.commands.registry import CommandError, Commands, Given, Registry, Takes

if TYPE_CHECKING:
    from dsh.session.client import Client


def _screen(ctx: Client, name: str) -> Callable[[], object]:
    """The client's method `name`, which only a client with a screen has."""
    action: object = getattr(ctx, name, None)
    if not callable(action):
        raise CommandError("this needs a screen: `dsh agents` lists them from a shell")
    return action


# The commands of this module; register adds them.
COMMANDS = Commands()
_command = COMMANDS.command


@_command(
    "agents",
    Takes(words="[next]", choices=("next",), upper=1, hint="the only argument is next"),
    args=lambda ctx, args: ["next"] if not args else [],
)
def agents(ctx: Client, given: Given) -> None:
    """Every agent on this machine, those that need you first.

    Each line: its state (needs you, done, working, idle) and for how long, its project and
    session, its pane, and its one-line ask or answer. Enter goes there: a pane here is focused; a
    pane of another session attaches that session with the pane focused, this one running on.
    Claude Code sessions running outside dsh are listed too, marked so. `/agents next` (prefix g)
    goes straight to the next pane that needs you.
    """
    if given.words:
        _screen(ctx, "agents_next")()
    else:
        _screen(ctx, "open_agents")()


@_command("notifications", Takes())
def notifications(ctx: Client, given: Given) -> None:
    """This session's last 200 notifications, unread first.

    A notification is read once its pane is visited; unread ones stay unread across a restart.
    """
    _screen(ctx, "open_notifications")()


def register(registry: Registry) -> None:
    registry.add_declared(COMMANDS)
