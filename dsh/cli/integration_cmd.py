"""`dsh integration install|remove|status claude|codex`: dsh's hooks in the agent's own settings."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "integration",
        help="put dsh's hooks in an agent's own settings (for agents typed in a shell pane)",
        description="install: dsh's hooks in Claude Code's settings.json (or Codex's notify in its "
        "config.toml), so an agent typed in a dsh pane reports its state; they do nothing outside a dsh "
        "pane. Idempotent; remove takes out exactly dsh's entries; status says whether they are there.",
    )
    p.add_argument("action", choices=("install", "remove", "status"))
    p.add_argument("agent", choices=("claude", "codex"))
    p.set_defaults(handler=integration)


def integration(args: argparse.Namespace) -> int:
    from dsh.agents.integration import IntegrationError, install, remove, settings_path, status

    try:
        if args.action == "status":
            there = status(args.agent, os.environ)
            where = settings_path(args.agent, os.environ)
            sys.stdout.write(f"{args.agent}: {'installed' if there else 'not installed'} ({where})\n")
            return 0
        action = install if args.action == "install" else remove
        sys.stdout.write(action(args.agent, os.environ) + "\n")
        return 0
    except IntegrationError as exc:
        from dsh.cli.output import say

        say(f"dsh integration: {exc}")
        return 1
