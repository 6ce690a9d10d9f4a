"""The `dsh` command: parse the command line and hand off to the front end asked for."""

from __future__ import annotations

import sys

from dsh import __version__

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import SimpleNamespace
    from typing import Any


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser; with `only` (a subcommand), with that subcommand alone: `dsh
    sessions` is scripted, and building every subcommand's parser was a tenth of a listing."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="dsh",
        description="A full-screen terminal workspace shell.",
    )
    parser.add_argument("--version", action="version", version=f"dsh {__version__}")
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="resume session ID (with no ID: open the session picker)",
    )
    parser.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="resume the newest session of the current workspace",
    )
    parser.add_argument(
        "--open-agent",
        dest="open_agent",
        default=None,
        metavar="KIND:ID",
        help="open an agent conversation (as /resume lists it) in a new session in its directory",
    )
    parser.add_argument(
        "--nested",
        action="store_true",
        help="start (or attach) even inside a dsh pane, whose prefix key the inner dsh then shares",
    )
    parser.add_argument(
        "-o",
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a config value for this run (highest layer), e.g. -o ui.prefix=c-a",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from dsh.cli import sessions

    sessions.add_parser(sub)
    if only == "sessions":
        return parser
    from dsh.cli import agents_cmd, attach_cmd, completion, config_cmd, integration_cmd, machines_cmd

    agents_cmd.add_parser(sub)
    integration_cmd.add_parser(sub)
    attach_cmd.add_parsers(sub)
    config_cmd.add_parser(sub)
    machines_cmd.add_parser(sub)
    completion.add_parser(sub)
    from dsh.cli.control_cmd import add_parsers

    add_parsers(sub)  # for --help and completion: `main` runs these verbs before this parser is built
    return parser


def quick_args(words: Sequence[str]) -> SimpleNamespace | None:
    """What the parser would make of the two command lines typed most, `dsh` and `dsh attach [ID]`, and
    of the listing another machine's picker asks (`dsh sessions --all --json --version-first`), without
    building it: importing argparse and building every subcommand's parser (its help
    formatter even asks the terminal's size) took 38 ms of a start here, part of it modules the client
    imports anyway. None for anything else, which the parser handles; a test holds them to the
    parser's answer."""
    from types import SimpleNamespace  # here: `dsh report` and `dsh send` need none of it

    base: dict[str, Any] = {
        "resume": None,
        "continue_": False,
        "open_agent": None,
        "nested": False,
        "options": [],
        "command": None,
    }
    if not words:
        return SimpleNamespace(**base)
    if words[0] == "attach" and len(words) <= 2 and not any(word.startswith("-") for word in words[1:]):
        from dsh.cli.attach_cmd import attach

        session_id = words[1] if len(words) == 2 else None
        attach_args: dict[str, Any] = {"command": "attach", "id": session_id, "sub_options": [], "handler": attach}
        return SimpleNamespace(**{**base, **attach_args, "detach_others": False, "read_only": False})
    if words[0] == "sessions" and sorted(words[1:]) in _LISTING_WORDS:
        # What another machine's dsh asks this one (dsh.machines.listing): the picker there waits on it.
        from dsh.cli.sessions import run as sessions_run

        listing = {"all": True, "json": True, "version_first": True, "agents": "--agents" in words, "archived": False}
        remote = {"machine": [], "machines": False, "sub_options": [], "handler": sessions_run}
        return SimpleNamespace(**{**base, "command": "sessions", **listing, **remote})
    return None


_LISTING_WORDS = (
    sorted(["--all", "--json", "--version-first"]),
    sorted(["--all", "--json", "--version-first", "--agents"]),
)


# The scripting verbs (dsh.cli.control_cmd), run before anything else is imported or built: `dsh report`
# runs in every agent turn and `dsh send` in loops, and a parser of every subcommand is most of their time.
CONTROL_VERBS = frozenset(
    {"list", "send", "capture", "split", "new-tab", "close", "focus", "rename", "do", "wait", "report", "notify", "new"}
)


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words and words[0] in CONTROL_VERBS:
        from dsh.cli.control_cmd import main as control_main

        return control_main(words)
    try:
        args: Any = quick_args(words)
        if args is None:
            args = build_parser(only="sessions" if words[:1] == ["sessions"] else None).parse_args(words)
        handler = getattr(args, "handler", None)
        if handler is not None:
            return int(handler(args) or 0)
        from dsh.cli.run import run_app

        return run_app(args)
    except KeyboardInterrupt:
        # C-c before the terminal is raw (a host that does not answer its handshake, a long listing):
        # one line, as a shell's own commands end, never a traceback.
        from dsh.cli.output import say

        say("dsh: interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
