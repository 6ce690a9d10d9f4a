"""The built-in slash commands: one handler each, help from the docstring, completion from the table.

Handlers act on `ctx.session` (the headless session) and ask the attached client (`ctx`, a `Client`) for
what only a screen can do: a question on the prompt line, the picker, help, copy mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.commands.registry import CommandError, Registry, UsageError
from dsh.layout.geometry import is_direction

if TYPE_CHECKING:
    from dsh.layout.tree import Orientation
    from dsh.session.client import Client

DIRECTIONS = ("left", "right", "up", "down")
FOCUS_TARGETS = [*DIRECTIONS, "next", "prev", "last"]


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


def build_registry() -> Registry:
    registry = Registry()
    command = registry.command

    @command("help", usage="[keys|COMMAND]", args=_help_topics)
    def help_(ctx: Client, args: list[str]) -> None:
        """Show the keys and commands, or one command's help.

        `/help keys` lists the key bindings only, read from the keymap itself.
        """
        if len(args) > 1:
            raise UsageError("too many arguments")
        topic = args[0].lstrip("/") if args else None
        if topic and topic != "keys" and registry.get(topic) is None:
            raise CommandError(f"no command /{topic} — /help lists commands")
        ctx.show_help(topic)

    @command("quit", aliases=("exit",), usage="[-f]")
    def quit_(ctx: Client, args: list[str]) -> None:
        """End this session: save it, end its programs, leave dsh.

        `/resume` or `dsh --continue` brings the layout back later. When a pane runs something other
        than its idle shell (an agent, an editor, a build), dsh asks first; `-f` does not ask. To leave
        the programs running instead, detach (`/detach`, prefix d).
        """
        if args not in ([], ["-f"]):
            raise UsageError("the only option is -f")
        busy = [] if args else ctx.session.busy_panes()
        if not busy:
            ctx.session.quit()
            return
        names = ", ".join(f"{pane.id} {pane.header_name}" for pane in busy[:3]) + ("…" if len(busy) > 3 else "")
        ctx.confirm(
            f"still running: {names}. End them and quit? y quits, any other key stays",
            ctx.session.quit,
            declined="not quitting",
        )

    @command("detach")
    def detach(ctx: Client, args: list[str]) -> None:
        """Leave dsh; this session and its programs keep running.

        `dsh attach` (or `dsh --continue` here) comes back to it; `dsh sessions` lists it as detached.
        """
        if args:
            raise UsageError("/detach takes no arguments")
        ctx.detach()

    @command("new", usage="[-c DIR] [CMD ...]", args=["-c"])
    def new(ctx: Client, args: list[str]) -> None:
        """Open a new tab running CMD (default: your shell).

        It starts in the active pane's directory (where its shell is now), or in DIR with -c.
        """
        cwd, args = _directory_option(ctx, args)
        ctx.session.open_tab(args or None, cwd=cwd)

    @command("split", usage="[-h|-v] [-c DIR] [CMD ...]", args=["-h", "-v", "-c"])
    def split(ctx: Client, args: list[str]) -> None:
        """Split the pane: -h side by side, -v stacked.

        The new pane runs CMD, or your login shell, in the active pane's directory (or DIR with -c);
        -v is the default.
        """
        orientation: Orientation = "column"
        cwd: str | None = None
        while args and args[0].startswith("-") and len(args[0]) > 1:
            if args[0] in ("-h", "-v"):
                orientation = "row" if args[0] == "-h" else "column"
                args = args[1:]
            elif args[0] == "-c":
                cwd, args = _directory_option(ctx, args)
            else:
                raise UsageError(f"unknown option {args[0]}")
        ctx.session.split(orientation, args or None, cwd=cwd or ctx.session.follow_cwd())

    @command("close")
    def close(ctx: Client, args: list[str]) -> None:
        """Close the active pane; its program ends.

        Closing the last pane of a tab closes the tab; closing the last tab ends dsh (session saved).
        """
        if args:
            raise UsageError("/close takes no arguments")
        ctx.session.close_pane()

    @command("focus", usage="left|right|up|down|next|prev|last", args=FOCUS_TARGETS)
    def focus(ctx: Client, args: list[str]) -> None:
        """Move the focus to another pane.

        left/right/up/down pick the pane visually next to the active one's border; next/prev go in
        reading order; last goes back to the pane used before.
        """
        if len(args) != 1 or args[0] not in (*DIRECTIONS, "next", "prev", "last"):
            raise UsageError("say which way")
        ctx.session.focus(args[0])

    @command("zoom")
    def zoom(ctx: Client, args: list[str]) -> None:
        """Zoom the active pane to fill the tab, or unzoom."""
        ctx.session.zoom()

    @command("resize", usage="left|right|up|down [CELLS]", args=list(DIRECTIONS))
    def resize(ctx: Client, args: list[str]) -> None:
        """Move the active pane's border on that side.

        The border moves by CELLS columns or rows (default 5).
        """
        direction = args[0] if args else ""
        if not is_direction(direction) or len(args) > 2:
            raise UsageError("say which border")
        cells = 5
        if len(args) == 2:
            text = args[1]
            if not (text.isascii() and text.isdigit()) or int(text) < 1:
                raise UsageError(f"not a number of cells: {text}")
            cells = int(text)
        ctx.session.resize(direction, cells)

    @command("swap", usage="next|prev|left|right|up|down", args=["next", "prev", *DIRECTIONS])
    def swap(ctx: Client, args: list[str]) -> None:
        """Swap the active pane with its neighbour."""
        if len(args) != 1 or args[0] not in ("next", "prev", *DIRECTIONS):
            raise UsageError("say which neighbour")
        word = args[0]
        ctx.session.swap(word if is_direction(word) else "next" if word == "next" else "prev")

    @command("tab", usage="next|prev|select N|rename [NAME]", args=_tab_args)
    def tab(ctx: Client, args: list[str]) -> None:
        """Switch tabs, or rename the active one.

        `/tab select N` goes to tab N (numbered from 0, as the tab bar shows); `/tab rename` without a
        name asks for it on the prompt line.
        """
        if not args:
            raise UsageError("say what to do")
        verb, rest = args[0], args[1:]
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

    @command("name", usage="[TITLE]")
    def name(ctx: Client, args: list[str]) -> None:
        """Name the active pane (no title: its program names it).

        The header and the tab show the name; it beats any title the program sets, and is kept when
        the session is restored.
        """
        pane = ctx.session.active_pane
        if pane is None:
            raise CommandError("no pane to name")
        title = " ".join(args).strip()
        ctx.session.name_pane(pane, title or None)
        ctx.announce(f"pane {pane.id} named {title}" if title else f"pane {pane.id} unnamed")

    @command("sync", usage="on|off|toggle", args=["on", "off", "toggle"])
    def sync(ctx: Client, args: list[str]) -> None:
        """Type into every pane of this tab at once (tmux's sync).

        The tab bar marks a synchronized tab; lines from the prompt and keys typed in a pane alike go
        to each running pane of it.
        """
        tab = ctx.session.tabs.active_tab
        now = tab.id in ctx.session.synced_tabs
        if args == ["on"]:
            on = True
        elif args == ["off"]:
            on = False
        elif args in ([], ["toggle"]):
            on = not now
        else:
            raise UsageError("on, off or toggle")
        ctx.session.set_sync(on)
        ctx.announce("input goes to every pane of this tab" if on else "input goes to the active pane only")

    @command("reload")
    def reload(ctx: Client, args: list[str]) -> None:
        """Read the config again; keys and settings apply now.

        Every other live session of yours reads it too, and each of its clients is told, so that no two
        sessions run with different keys. Panes already running keep their scrollback size; new panes
        get the new one.
        """
        if args:
            raise UsageError("/reload takes no arguments")
        ctx.reload_config()

    @command("rename", usage="TITLE")
    def rename(ctx: Client, args: list[str]) -> None:
        """Set this session's title.

        /resume and `dsh sessions` show it; it is kept in the session log.
        """
        if not args:
            raise UsageError("give the new title")
        ctx.session.set_title(" ".join(args))
        ctx.announce(f"session renamed: {' '.join(args)}")

    @command("sessions")
    def sessions(ctx: Client, args: list[str]) -> None:
        """List sessions to resume one.

        This workspace's sessions first; Tab shows every workspace.
        """
        ctx.open_picker()

    @command("resume")
    def resume(ctx: Client, args: list[str]) -> None:
        """Pick a session and move there.

        Tab toggles between this workspace and all of them; Enter resumes the session in its workspace.
        """
        ctx.open_picker()

    @command("copy")
    def copy(ctx: Client, args: list[str]) -> None:
        """Scroll, search and copy the pane's history.

        Arrows, PgUp/PgDn, g/G move the line cursor; / searches, n/N repeat it; Space starts a
        selection; Enter or y copies it (also to your terminal's clipboard); q or Escape leaves.
        """
        ctx.enter_copy_mode()

    @command("paste")
    def paste(ctx: Client, args: list[str]) -> None:
        """Paste what copy mode copied into the active pane."""
        if args:
            raise UsageError("/paste takes no arguments")
        ctx.paste_clipboard()

    @command("start")
    def start(ctx: Client, args: list[str]) -> None:
        """Start a restored pane.

        Resumes its agent conversation, or starts a fresh shell in its saved directory.
        """
        pane = ctx.session.active_pane
        if pane is None or not pane.startable:
            raise CommandError("the active pane is not a restored pane")
        ctx.session.start_tombstone(pane)  # the keyboard follows what it runs (dsh.session.keyboard)

    @command("agent", usage="NAME [ARGS ...]", args=_agent_names)
    def agent(ctx: Client, args: list[str]) -> None:
        """Open a pane running an AI coding agent.

        NAME is claude, codex, opencode or cursor-agent; ARGS go to it.
        """
        from dsh.agents.registry import AGENT_NAMES

        if not args:
            raise UsageError("name the agent")
        if args[0] not in AGENT_NAMES:
            raise CommandError(f"unknown agent {args[0]} — one of {', '.join(AGENT_NAMES)}")
        ctx.session.split("row", args)

    @command("command-prompt")
    def command_prompt(ctx: Client, args: list[str]) -> None:
        """One command on the prompt line, as tmux's prefix :.

        The keyboard goes back where it was after it (the pane, with ui.keyboard = "pane").
        """
        ctx.ask(":", lambda line: ctx.run_command_line(line) if line.strip() else None)

    @command("prompt")
    def prompt(ctx: Client, args: list[str]) -> None:
        """Put the keyboard on the REPL prompt."""
        ctx.enter_prompt()

    @command("pane")
    def pane(ctx: Client, args: list[str]) -> None:
        """Put the keyboard inside the active pane.

        Every key then goes to its program, except the prefix key and the direct bindings.
        """
        ctx.enter_pane()

    from dsh.session import tab_commands

    tab_commands.register(registry)
    from dsh.session import switch_commands

    switch_commands.register(registry)
    from dsh.session import attention_commands

    attention_commands.register(registry)
    return registry


def _directory_option(ctx: Client, args: list[str]) -> tuple[str | None, list[str]]:
    """`-c DIR` at the front of `args` (relative to the active pane's directory, `~` expanded): the
    folder, checked, and the arguments left; else the active pane's own directory."""
    if not args or args[0] != "-c":
        return ctx.session.follow_cwd(), args
    if len(args) < 2:
        raise UsageError("-c needs a directory")
    import os

    folder = os.path.expanduser(args[1])
    if not os.path.isabs(folder):
        folder = os.path.join(ctx.session.follow_cwd(), folder)
    folder = os.path.normpath(folder)
    if not os.path.isdir(folder):
        raise CommandError(f"no such directory: {folder}")
    return folder, args[2:]


def _rename_tab(ctx: Client, name: str) -> None:
    if name.strip():
        ctx.session.rename_tab(name.strip())
    else:
        ctx.session.observer.on_changed()  # nothing renamed: the prompt line is drawn again
