"""`dsh agents [--all] [--json]`: every agent of the live sessions (this workspace's, or every one),
each host asked as `dsh attach` asks them; with --all, Claude Code sessions outside dsh too."""

from __future__ import annotations

import json
import os
import sys
import time

from dsh import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from dsh.attention.rows import AgentRow


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agents",
        help="the agents of the live sessions and what they are doing, those that need you first",
        description="Every agent pane of the live sessions of this workspace (--all: of every workspace, "
        "and Claude Code sessions running outside dsh), blocked first, then done, working, idle: its "
        "state and for how long, its session and pane, its one-line ask or answer.",
    )
    p.add_argument("--all", action="store_true", help="every workspace, and agents outside dsh")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    from dsh.cli.machines_cmd import add_listing_flags

    # --machine NAME / --machines: the agents of those machines' live sessions, asked over ssh.
    add_listing_flags(p, what="agents")
    p.set_defaults(handler=agents)


def agents(args: argparse.Namespace) -> int:
    import asyncio

    from dsh.attention.outside import session_records
    from dsh.attention.rows import sort_rows
    from dsh.session.machine_agents import ask_hosts

    if args.version_first:
        sys.stdout.write(f"dsh {__version__}\n")
    if args.machine or args.machines:
        from dsh.cli.machines_cmd import run_remote_agents

        return run_remote_agents(args)
    rows = asyncio.run(ask_hosts())
    if args.all:
        rows += session_records(os.environ)
    else:
        here = os.path.realpath(os.getcwd())
        rows = [r for r in rows if here == r.cwd or here.startswith(r.cwd.rstrip("/") + "/")]
    rows = sort_rows(rows)
    if args.json:
        if args.version_first:
            # For another machine's dsh, which reads it a row a line as it arrives.
            body = ",\n".join(json.dumps(row.to_dict(), ensure_ascii=True) for row in rows)
            sys.stdout.write(f"[\n{body}\n]\n" if rows else "[]\n")
        else:
            sys.stdout.write(json.dumps([row.to_dict() for row in rows], indent=2) + "\n")
        return 0
    print_rows(rows)
    if not rows:
        sys.stdout.write(
            "no agent in a live session" + ("" if args.all else " of this workspace (--all: every one)") + "\n"
        )
    return 0


def print_rows(rows: list[AgentRow]) -> None:
    """The rows as `dsh agents` prints them: a line each, with where Enter in /agents would go."""
    from dsh.attention.agents_list import agents_model

    model = agents_model(rows, here="", now=time.time())
    for line in model.lines:
        target = line.target
        where = f"{target.session}:{target.pane}" if target and target.session else "outside"
        if target is not None and target.machine:
            where = f"{target.machine} {where}"
        sys.stdout.write(f"{line.glyph} {line.text}  [{where}]\n")
