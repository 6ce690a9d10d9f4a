"""The built-in slash commands: one handler each, help from the docstring, completion from the table.

Handlers act on `ctx.session` (the headless session) and ask the attached client (`ctx`, a `Client`) for
what only a screen can do: a question on the prompt line, the picker, help, copy mode.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from dsh.commands.registry import CommandError, Commands, Given, Registry, Takes, UsageError
from dsh.layout.geometry import is_direction

if TYPE_CHECKING:
    from dsh.layout.tree import Orientation
    from dsh.session.client import Client

DIRECTIONS = ("left", "right", "up", "down")
FOCUS_TARGETS = [*DIRECTIONS, "next", "prev", "last"]
SWAP_TARGETS = ["next", "prev", *DIRECTIONS]


def _agent_names(ctx: object, args: list[str]) -> list[str]:
    from dsh.agents.registry import AGENT_NAMES

    return list(AGENT_NAMES) if not args else []


def _help_topics(ctx: Client, args: list[str]) -> list[str]:
    return ["keys", *ctx.registry.names()] if not args else []


def _tab_args(ctx: Client, args: list[str]) -> list[str | tuple[str, str]]:
    if not args:
        return ["next", "prev", "select", "rename"]
    if args == ["select"]:
        return [(str(i), tab.title or "") for i, tab in enumerate(ctx.session.tabs.tabs)]
    return []


# The commands of this module, in the order of their definitions; build_registry adds them.
COMMANDS = Commands()
_command = COMMANDS.command
_DIR = {"-c": "a directory"}


@_command("help", Takes(words="[keys|COMMAND]", upper=1), args=_help_topics)
def help_(ctx: Client, given: Given) -> None:
    """Show the keys and commands, or one command's help.

    `/help keys` lists the key bindings only, read from the keymap itself.
    """
    topic = given.words[0].lstrip("/") if given.words else None
    if topic and topic != "keys" and ctx.registry.get(topic) is None:
        raise CommandError(f"no command /{topic} — /help lists commands")
    ctx.show_help(topic)


@_command("quit", Takes(flags=("-f",)), aliases=("exit",))
def quit_(ctx: Client, given: Given) -> None:
    """End this session: save it, end its programs, leave dsh.

    `/resume` or `dsh --continue` brings the layout back later. When a pane runs something other
    than its idle shell (an agent, an editor, a build), dsh asks first; `-f` does not ask. To leave
    the programs running instead, detach (`/detach`, prefix d).
    """
    busy = [] if given.has("-f") else ctx.session.busy_panes()
    if not busy:
        ctx.session.quit()
        return
    names = ", ".join(f"{pane.id} {pane.header_name}" for pane in busy[:3]) + ("…" if len(busy) > 3 else "")
    ctx.confirm(
        f"still running: {names}. End them and quit? y quits, any other key stays",
        ctx.session.quit,
        declined="not quitting",
    )


@_command("detach", Takes())
def detach(ctx: Client, given: Given) -> None:
    """Leave dsh; this session and its programs keep running.

    `dsh attach` (or `dsh --continue` here) comes back to it; `dsh sessions` lists it as detached.
    """
    ctx.detach()


@_command("new", Takes(flags=("-c DIR",), words="[CMD ...]", upper=None, command=True, needs=_DIR), args=["-c"])
def new(ctx: Client, given: Given) -> None:
    """Open a new tab running CMD (default: your shell).

    It starts in the active pane's directory (where its shell is now), or in DIR with -c.
    """
    ctx.session.open_tab(given.words or None, cwd=_directory(ctx, given.value("-c")))


@_command(
    "split",
    Takes(flags=("-h|-v", "-c DIR"), words="[CMD ...]", upper=None, command=True, needs=_DIR),
    args=["-h", "-v", "-c"],
)
def split(ctx: Client, given: Given) -> None:
    """Split the pane: -h side by side, -v stacked.

    The new pane runs CMD, or your login shell, in the active pane's directory (or DIR with -c);
    -v is the default.
    """
    orientation: Orientation = "row" if given.has("-h") else "column"
    ctx.session.split(orientation, given.words or None, cwd=_directory(ctx, given.value("-c")))


@_command("close", Takes())
def close(ctx: Client, given: Given) -> None:
    """Close the active pane; its program ends.

    Closing the last pane of a tab closes the tab; closing the last tab ends dsh (session saved).
    """
    ctx.session.close_pane()


@_command("focus", Takes(choices=FOCUS_TARGETS, lower=1, upper=1, hint="say which way"))
def focus(ctx: Client, given: Given) -> None:
    """Move the focus to another pane.

    left/right/up/down pick the pane visually next to the active one's border; next/prev go in
    reading order; last goes back to the pane used before.
    """
    ctx.session.focus(given.words[0])


@_command("zoom", Takes())
def zoom(ctx: Client, given: Given) -> None:
    """Zoom the active pane to fill the tab, or unzoom."""
    ctx.session.zoom()


@_command(
    "resize", Takes(choices=DIRECTIONS, words="left|right|up|down [CELLS]", lower=1, upper=2, hint="say which border")
)
def resize(ctx: Client, given: Given) -> None:
    """Move the active pane's border on that side.

    The border moves by CELLS columns or rows (default 5).
    """
    direction, *count = given.words
    assert is_direction(direction)  # one of the declared choices
    cells = 5
    if count:
        text = count[0]
        if not (text.isascii() and text.isdigit()) or int(text) < 1:
            raise UsageError(f"not a number of cells: {text}")
        cells = int(text)
    ctx.session.resize(direction, cells)


@_command("swap", Takes(choices=SWAP_TARGETS, lower=1, upper=1, hint="say which neighbour"))
def swap(ctx: Client, given: Given) -> None:
    """Swap the active pane with its neighbour."""
    word = given.words[0]
    ctx.session.swap(word if is_direction(word) else "next" if word == "next" else "prev")


@_command(
    "tab", Takes(words="next|prev|select N|rename [NAME]", lower=1, upper=None, hint="say what to do"), args=_tab_args
)
def tab(ctx: Client, given: Given) -> None:
    """Switch tabs, or rename the active one.

    `/tab select N` goes to tab N (numbered from 0, as the tab bar shows); `/tab rename` without a
    name asks for it on the prompt line.
    """
    verb, *rest = given.words
    if verb in ("next", "prev") and rest:
        raise UsageError(f"/tab {verb} takes no arguments")
    if verb == "next":
        ctx.session.step_tab(1)
    elif verb == "prev":
        ctx.session.step_tab(-1)
    elif verb == "select":
        if len(rest) != 1 or not rest[0].isdigit():
            raise UsageError("/tab select takes a tab number")
        index = int(rest[0])
        if index >= len(ctx.session.tabs.tabs):
            raise CommandError(f"no tab {index} (there are {len(ctx.session.tabs.tabs)})")
        ctx.session.select_tab(index)
    elif verb == "rename":
        if rest:
            ctx.session.rename_tab(" ".join(rest))
        else:
            # Filled in with the name shown now, as tmux's C-b , does.
            tab = ctx.session.tabs.active_tab
            active = ctx.session.panes.get(tab.active_pane)
            current = tab.title or (active.name or active.program if active else "")
            ctx.ask("tab name: ", lambda name: _rename_tab(ctx, name), default=current)
    else:
        raise UsageError(f"unknown tab action {verb}")


@_command("name", Takes(words="[TITLE]", upper=None))
def name(ctx: Client, given: Given) -> None:
    """Name the active pane (no title: its program names it).

    The header and the tab show the name; it beats any title the program sets, and is kept when
    the session is restored.
    """
    pane = ctx.session.active_pane
    if pane is None:
        raise CommandError("no pane to name")
    title = " ".join(given.words).strip()
    ctx.session.name_pane(pane, title or None)
    ctx.announce(f"pane {pane.id} named {title}" if title else f"pane {pane.id} unnamed")


@_command("sync", Takes(choices=("on", "off", "toggle"), words="on|off|toggle", upper=1, hint="on, off or toggle"))
def sync(ctx: Client, given: Given) -> None:
    """Type into every pane of this tab at once (tmux's sync).

    The tab bar marks a synchronized tab; lines from the prompt and keys typed in a pane alike go
    to each running pane of it.
    """
    tab = ctx.session.tabs.active_tab
    now = tab.id in ctx.session.synced_tabs
    word = given.words[0] if given.words else "toggle"
    on = not now if word == "toggle" else word == "on"
    ctx.session.set_sync(on)
    ctx.announce("input goes to every pane of this tab" if on else "input goes to the active pane only")


@_command("reload", Takes())
def reload(ctx: Client, given: Given) -> None:
    """Read the config again; keys and settings apply now.

    Every other live session of yours reads it too, and each of its clients is told, so that no two
    sessions run with different keys. Panes already running keep their scrollback size; new panes
    get the new one.
    """
    ctx.reload_config()


@_command("rename", Takes(words="TITLE", lower=1, upper=None, hint="give the new title"))
def rename(ctx: Client, given: Given) -> None:
    """Set this session's title.

    /resume and `dsh sessions` show it; it is kept in the session log.
    """
    title = " ".join(given.words)
    ctx.session.set_title(title)
    ctx.announce(f"session renamed: {title}")


@_command("sessions", Takes())
def sessions(ctx: Client, given: Given) -> None:
    """List sessions to resume one.

    This workspace's sessions first; Tab shows every workspace.
    """
    ctx.open_picker()


@_command("resume", Takes())
def resume(ctx: Client, given: Given) -> None:
    """Pick a session and move there.

    Tab toggles between this workspace and all of them; Enter resumes the session in its workspace.
    """
    ctx.open_picker()


@_command("copy", Takes())
def copy(ctx: Client, given: Given) -> None:
    """Scroll, search and copy the pane's history.

    Arrows, PgUp/PgDn, g/G move the line cursor; / searches, n/N repeat it; Space starts a
    selection; Enter or y copies it (also to your terminal's clipboard); q or Escape leaves.
    """
    ctx.enter_copy_mode()


@_command("paste", Takes())
def paste(ctx: Client, given: Given) -> None:
    """Paste what copy mode copied into the active pane."""
    ctx.paste_clipboard()


@_command("start", Takes())
def start(ctx: Client, given: Given) -> None:
    """Start a restored pane.

    Resumes its agent conversation, or starts a fresh shell in its saved directory.
    """
    pane = ctx.session.active_pane
    if pane is None or not pane.startable:
        raise CommandError("the active pane is not a restored pane")
    ctx.session.start_tombstone(pane)  # the keyboard follows what it runs (dsh.session.keyboard)


@_command("agent", Takes(words="NAME [ARGS ...]", lower=1, upper=None, hint="name the agent"), args=_agent_names)
def agent(ctx: Client, given: Given) -> None:
    """Open a pane running an AI coding agent.

    NAME is claude, codex, opencode or cursor-agent; ARGS go to it.
    """
    from dsh.agents.registry import AGENT_NAMES

    if given.words[0] not in AGENT_NAMES:
        raise CommandError(f"unknown agent {given.words[0]} — one of {', '.join(AGENT_NAMES)}")
    ctx.session.split("row", given.words)


@_command("command-prompt", Takes())
def command_prompt(ctx: Client, given: Given) -> None:
    """One command on the prompt line, as tmux's prefix :.

    The keyboard goes back where it was after it (the pane, with ui.keyboard = "pane").
    """
    ctx.ask(":", lambda line: ctx.run_command_line(line) if line.strip() else None)


@_command("prompt", Takes())
def prompt(ctx: Client, given: Given) -> None:
    """Put the keyboard on the REPL prompt."""
    ctx.enter_prompt()


@_command("pane", Takes())
def pane(ctx: Client, given: Given) -> None:
    """Put the keyboard inside the active pane.

    Every key then goes to its program, except the prefix key and the direct bindings.
    """
    ctx.enter_pane()


def build_registry() -> Registry:
    registry = Registry()
    registry.add_declared(COMMANDS)
    from dsh.session import tab_commands

    tab_commands.register(registry)
    from dsh.session import switch_commands

    switch_commands.register(registry)
    from dsh.session import attention_commands

    attention_commands.register(registry)
    return registry


def _directory(ctx: Client, given: str | None) -> str:
    """The folder `-c DIR` names (relative to the active pane's directory, `~` expanded), checked; without
    -c, the active pane's own directory."""
    if given is None:
        return ctx.session.follow_cwd()
    folder = os.path.expanduser(given)
    if not os.path.isabs(folder):
        folder = os.path.join(ctx.session.follow_cwd(), folder)
    folder = os.path.normpath(folder)
    if not os.path.isdir(folder):
        raise CommandError(f"no such directory: {folder}")
    return folder


def _rename_tab(ctx: Client, name: str) -> None:
    if name.strip():
        ctx.session.rename_tab(name.strip())
    else:
        ctx.session.observer.on_changed()  # nothing renamed: the prompt line is drawn again
