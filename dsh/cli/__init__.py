"""The `dsh` command: parse the command line and hand off to the front end asked for."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dsh import __version__


def build_parser() -> argparse.ArgumentParser:
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
        "-o",
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a config value for this run (highest layer), e.g. -o ui.prefix=c-a",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from dsh.cli import attach_cmd, config_cmd, sessions

    sessions.add_parser(sub)
    attach_cmd.add_parsers(sub)
    config_cmd.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is not None:
        return int(handler(args) or 0)
    from dsh.cli.run import run_app

    return run_app(args)


if __name__ == "__main__":
    sys.exit(main())
