"""`dsh`, `dsh attach`, `--resume`, `--continue`: what was asked, handed to the client; the host's entry points."""

from __future__ import annotations

import os
import sys

from dsh.client.intent import Action, Intent
from dsh.client.session_choice import ClientError
from dsh.text import sanitize

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    import argparse
    import socket
    from collections.abc import Mapping
    from pathlib import Path
    from typing import NoReturn

    from dsh.host.spec import HostSpec, ReadyPipe


def _fail(message: str, code: int = 1, more: tuple[str, ...] = ()) -> int:
    from dsh.cli.output import fail

    return fail(message, code, more)


def intent_from_args(args: argparse.Namespace) -> Intent:
    """What the parsed command line asks for (the client reads this, never `args`)."""
    from dsh.cli.options import option_flags

    options = option_flags(args)
    if getattr(args, "command", None) == "attach":
        mode = "takeover" if getattr(args, "detach_others", False) else "share"
        mode = "readonly" if getattr(args, "read_only", False) else mode
        return Intent(Action.ATTACH, args.id or None, options=options, attach_mode=mode)
    if args.resume:
        return Intent(Action.RESUME, args.resume, options=options)
    if getattr(args, "open_agent", None):
        return Intent(Action.OPEN_AGENT, agent=args.open_agent, options=options)
    if args.continue_:
        return Intent(Action.CONTINUE, options=options)
    return Intent(Action.START, open_picker=args.resume == "", options=options)


def run_app(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _fail("needs a terminal: stdin and stdout must be a TTY (try `dsh sessions` for a listing)", 2)
    refusal = nesting_refusal(os.environ, nested=bool(getattr(args, "nested", False)))
    if refusal:
        first, *more = refusal.splitlines()
        return _fail(first, 2, tuple(more))
    from dsh.client.session_flow import Entries, run_client
    from dsh.home import HomeError, check_home

    try:
        check_home()  # before any config is read: another user could have written it
        code, message = run_client(intent_from_args(args), Entries(_host_entry, _spawner_entry))
    except HomeError as exc:
        return _fail(str(exc), 2)
    except ClientError as exc:
        return _fail(str(exc), exc.code, exc.more)
    except Exception as exc:  # a bug must not leave a traceback on the user's screen; it goes to the log
        return _fail(f"internal error: {exc.__class__.__name__}: {exc} (details in {_log_crash()})")
    if message:
        from dsh.cli.output import say

        say(message)
    return code


def nesting_refusal(env: Mapping[str, str], *, nested: bool) -> str | None:
    """Why dsh will not start in this terminal: it is a pane of a dsh session (tmux refuses nesting
    unless asked, too). None when it may, or when `--nested` asks for it anyway."""

    outer = env.get("DSH_SESSION_ID")
    if nested or not outer or not env.get("DSH_PANE_ID"):
        return None
    return (
        f"this terminal is pane {sanitize(env['DSH_PANE_ID'], max_len=20)} of dsh session "
        f"{sanitize(outer, max_len=64)}: a dsh inside it would share its keys (the prefix, C-])\n"
        "dsh --nested starts one anyway; or detach (C-b d) and run dsh from the outer terminal"
    )


def _log_crash() -> str:
    """Append the current exception's traceback to $DSH_HOME/log/crash.log; return where it went."""
    import traceback

    from dsh.ownlog import log_crash

    return log_crash(traceback.format_exc())


def _host_entry(spec: HostSpec, ready: ReadyPipe) -> NoReturn:
    """What a started host runs (in the forked host process only: the client never imports the UI)."""
    import gc

    # Importing the view makes a few hundred thousand objects and hardly any garbage: collecting while
    # it runs was ~10% of its CPU time here. Afterwards they are frozen, as in a host forked from the
    # spawner, so that no later full collection walks them again.
    gc.disable()
    try:
        from dsh.ui.host_import import import_view

        import_view()
        from dsh.ui.remote import serve
    finally:
        gc.freeze()
        gc.enable()
    serve(spec, ready)


def _spawner_entry(listener: socket.socket, path: Path) -> NoReturn:
    """What a started spawner runs (in the forked spawner only): hosts as above, warmed up by the view."""
    from dsh.host.spawner import become_spawner

    become_spawner(listener, path, _host_entry, _warm_up)


def _warm_up() -> None:
    """Run by the spawner once it is a daemon (its starter is not kept waiting for the imports)."""
    from dsh.ui.host_import import complete, import_view

    import_view()
    complete()  # the spawner has the time: its hosts start with the package whole
    from dsh.ui.remote import warm_up

    warm_up()
