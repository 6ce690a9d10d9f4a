"""/session last|prev|next: tmux's switch-client -l/-p/-n over the sessions whose hosts run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.commands.registry import CommandError, Commands, Given, Registry, Takes

if TYPE_CHECKING:
    from dsh.session.client import Client


# The commands of this module; register adds them.
COMMANDS = Commands()
_command = COMMANDS.command


@_command("tree", Takes())
def tree(ctx: Client, given: Given) -> None:
    """Pick a tab or pane from a tree, with a live thumbnail.

    As tmux's choose-tree (prefix w): Up/Down move, Enter goes there, Esc closes.
    """
    ctx.open_tree()


@_command("session", Takes(choices=("last", "prev", "next"), lower=1, upper=1, hint="last, prev or next"))
async def session_(ctx: Client, given: Given) -> None:
    """Go to the last, previous or next running session.

    last is the session this client came from (prefix L); prev and next go through the running
    sessions in the order they began, wrapping around (prefix ( and )).
    """
    session = ctx.session
    current = session.log.id
    if given.words == ["last"]:
        target = getattr(ctx, "previous_session", None)
        if not target:
            raise CommandError("no last session: this client has been in no other")
    else:
        from dsh.hostquery import running_hosts
        from dsh.resume.ring import step_session

        hosts = await session.loop.run_in_executor(session.worker, running_hosts)
        ids = [str(h["session"]) for h in hosts if isinstance(h.get("session"), str)]
        target = step_session(ids, current, 1 if given.words == ["next"] else -1)
        if target is None:
            raise CommandError("no other session is running")
    ctx.switch_session(target)


def register(registry: Registry) -> None:
    registry.add_declared(COMMANDS)
