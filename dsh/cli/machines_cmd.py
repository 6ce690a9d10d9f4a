"""`dsh machines` (each configured machine: does it answer, which dsh it runs) and the remote half of
`dsh sessions --machine NAME | --machines`."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from dsh import __version__
from dsh.cli.options import add_option_flag, option_flags

if TYPE_CHECKING:
    import argparse

    from dsh.machines.config import Machine, MachineConfig


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "machines",
        help="list the machines in config: does each answer over ssh, which dsh it runs",
        description="List the [machines.NAME] of config, asking each over ssh for its dsh version.",
    )
    p.add_argument("--json", action="store_true", help="print a JSON array (name, ssh, answers, version, error)")
    add_option_flag(p)
    p.set_defaults(handler=run_machines)


def add_listing_flags(p: argparse.ArgumentParser, *, what: str = "sessions") -> None:
    """`dsh sessions`' (and `dsh agents`') flags for other machines."""
    import argparse

    p.add_argument("--machine", action="append", default=[], metavar="NAME", help=f"list machine NAME's {what}")
    p.add_argument("--machines", action="store_true", help=f"list every configured machine's {what}")
    # What another machine's dsh is asked by this one: its version on the first line, then the
    # listing, in one process (a second interpreter start for --version cost a listing 40-60 ms).
    p.add_argument("--version-first", action="store_true", help=argparse.SUPPRESS)


def _config(args: argparse.Namespace) -> tuple[MachineConfig | None, int]:
    from dsh.cli.output import fail, say
    from dsh.config import load_config
    from dsh.home import HomeError, check_home
    from dsh.machines.config import read_machines

    try:
        check_home()
        config = load_config(option_flags(args))
    except HomeError as exc:
        return None, fail(str(exc), 2)
    machines = read_machines(config)
    for warning in [*config.warnings, *machines.warnings]:
        say(f"dsh: warning: {warning}")
    return machines, 0


def run_machines(args: argparse.Namespace) -> int:
    from dsh.cli.output import say
    from dsh.machines.listing import run_versions
    from dsh.text import sanitize

    config, status = _config(args)
    if config is None:
        return status
    if not config.machines:
        if args.json:
            sys.stdout.write("[]\n")
        else:
            say('dsh: no machines in config; add [machines.NAME] ssh = "user@host" to ~/.config/dsh/config.toml')
        return 0
    answers = run_versions(config, config.machines)
    if args.json:
        out = [
            {
                "name": a.machine.name,
                "ssh": a.machine.ssh,
                "answers": a.error is None,
                "version": a.version,
                "error": a.error,
            }
            for a in answers
        ]
        sys.stdout.write(json.dumps(out, indent=1, ensure_ascii=True) + "\n")
        return 0
    width = max(4, *(len(a.machine.name) for a in answers))
    sys.stdout.write(f"{'NAME'.ljust(width)}  {'VERSION'.ljust(10)}  SSH\n")
    for a in answers:
        version = a.version or "-"
        skew = "" if a.version in (None, __version__) else f"  (this is {__version__})"
        name = sanitize(a.machine.name).ljust(width)
        sys.stdout.write(f"{name}  {sanitize(version).ljust(10)}  {sanitize(a.machine.ssh)}{skew}\n")
        if a.error:
            say(f"dsh: {a.error}")
    sys.stdout.flush()
    return 0


def chosen(config: MachineConfig, args: argparse.Namespace) -> tuple[list[Machine], list[str]]:
    """The machines `--machine`/`--machines` name, and a line for each name that is not configured."""
    if args.machines:
        return list(config.machines), []
    picked: list[Machine] = []
    unknown: list[str] = []
    for name in args.machine:
        machine = config.find(name)
        if machine is None:
            known = ", ".join(m.name for m in config.machines) or "none configured"
            unknown.append(f"no machine {name!r} in config (known: {known})")
        elif machine not in picked:
            picked.append(machine)
    return picked, unknown


def _asked(args: argparse.Namespace) -> tuple[MachineConfig | None, list[Machine], int]:
    """The config and the machines `--machine`/`--machines` name; (None, [], status) when there are
    none to ask, each name that is not configured said."""
    from dsh.cli.output import say

    config, status = _config(args)
    if config is None:
        return None, [], status
    machines, unknown = chosen(config, args)
    for line in unknown:
        say(f"dsh: {line}")
    if not machines:
        if not unknown:
            say('dsh: no machines in config; add [machines.NAME] ssh = "user@host" to ~/.config/dsh/config.toml')
        return None, [], 2
    return config, machines, 0


def run_remote_sessions(args: argparse.Namespace) -> int:
    """`dsh sessions --machine NAME | --machines [--agents] [--json]`: the rows each machine sends,
    with its name; a machine that fails is a line on stderr, and the status is 1 if every one failed."""
    from dsh.cli.output import say
    from dsh.machines.listing import run_listings

    config, machines, status = _asked(args)
    if config is None:
        return status
    listings = run_listings(config, machines, agents=args.agents)
    rows: list[dict[str, Any]] = []
    for listing in listings:
        if listing.error:
            say(f"dsh: {listing.error}")
        if listing.bad:
            say(f"dsh: warning: {listing.machine.name} sent {listing.bad} rows that are not sessions; left out")
        rows.extend(listing.rows)
    rows.sort(key=lambda row: row.get("updated_at") or "", reverse=True)
    try:
        if args.json:
            body = ",\n".join(json.dumps(row, ensure_ascii=True) for row in rows)
            sys.stdout.write(f"[\n{body}\n]\n" if rows else "[]\n")
        elif rows:
            _table(rows, agents=args.agents)
        elif all(listing.error is None for listing in listings):
            say("dsh: no sessions there" if not args.agents else "dsh: no agent conversations there")
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 1 if all(listing.error for listing in listings) else 0


def run_remote_agents(args: argparse.Namespace) -> int:
    """`dsh agents --machine NAME | --machines [--json]`: the agent panes of the live sessions there,
    with their states; a machine that fails is a line on stderr, the status 1 if every one failed."""
    from dsh.attention.rows import AgentRow, sort_rows
    from dsh.cli.agents_cmd import print_rows
    from dsh.cli.output import say
    from dsh.machines.listing import run_attention

    config, machines, status = _asked(args)
    if config is None:
        return status
    listings = run_attention(config, machines)
    rows = []
    for listing in listings:
        if listing.error:
            say(f"dsh: {listing.error}")
        if listing.bad:
            say(f"dsh: warning: {listing.machine.name} sent {listing.bad} rows that are not agents; left out")
        rows += [row for item in listing.rows if (row := AgentRow.from_dict(item)) is not None]
    rows = sort_rows(rows)
    if args.json:
        sys.stdout.write(json.dumps([row.to_dict() for row in rows], indent=2, ensure_ascii=True) + "\n")
    elif rows:
        print_rows(rows)
    elif all(listing.error is None for listing in listings):
        say("dsh: no agent in a live session there")
    sys.stdout.flush()
    return 1 if all(listing.error for listing in listings) else 0


def _table(rows: list[dict[str, Any]], *, agents: bool) -> None:
    import shutil

    from dsh.store.table import age
    from dsh.text import sanitize

    width = shutil.get_terminal_size((100, 24)).columns
    if agents:
        header = ["MACHINE", "KIND", "ID", "AGE", "DIRECTORY", "TITLE"]
        table = [
            [r["machine"], r["kind"], r["id"], age(r.get("updated_at") or ""), _cut(r.get("cwd") or ""), r["title"]]
            for r in rows
        ]
    else:
        header = ["MACHINE", "ID", "AGE", "STATE", "WORKSPACE", "TITLE"]
        table = [
            [
                r["machine"],
                r["id"],
                age(r.get("updated_at") or ""),
                r["state"] + (",archived" if r.get("archived") else ""),
                _cut(r.get("workspace_label") or r.get("cwd") or ""),
                r["title"],
            ]
            for r in rows
        ]
    widths = [max(len(header[i]), *(len(cells[i]) for cells in table)) for i in range(len(header) - 1)]
    room = max(20, width - sum(w + 2 for w in widths))
    for cells in [header, *table]:
        fixed = "  ".join(sanitize(cell).ljust(widths[i]) for i, cell in enumerate(cells[:-1]))
        sys.stdout.write(f"{fixed}  {sanitize(cells[-1], max_len=room)}\n")


def _cut(label: str) -> str:
    return label if len(label) <= 32 else "…" + label[-31:]
