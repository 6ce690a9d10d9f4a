"""`dsh sessions`: the headless session listing (this workspace by default, every workspace with --all)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from dsh.store.summary import Summary


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sessions",
        help="list sessions (this workspace; --all for every workspace)",
        description="List the sessions of the current workspace, newest first.",
    )
    p.add_argument("--all", action="store_true", help="list every workspace (adds a WORKSPACE column)")
    p.add_argument("--json", action="store_true", help="print a JSON array of summaries (keys: see dsh(1))")
    p.add_argument("--archived", action="store_true", help="include archived sessions")
    add_option_flag(p)
    p.set_defaults(handler=run)


def add_option_flag(p: argparse.ArgumentParser) -> None:
    """`-o KEY=VALUE` after the subcommand too; kept apart so the top-level ones are not replaced."""
    p.add_argument(
        "-o",
        "--option",
        dest="sub_options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a config value for this run (highest layer)",
    )


def option_flags(args: argparse.Namespace) -> list[str]:
    return [*(getattr(args, "options", None) or ()), *(getattr(args, "sub_options", None) or ())]


def run(args: argparse.Namespace) -> int:
    # Imported here: the parser is built on every dsh start, and this path must stay light.
    from dsh.cli.output import fail, say
    from dsh.config import load_config
    from dsh.home import HomeError, check_home
    from dsh.store.store import open_store

    try:
        check_home()  # before the config is read: another user could have written it
        config = load_config(option_flags(args))
        store = open_store(config)
    except HomeError as exc:
        return fail(str(exc), 2)
    cwd: str | None = None
    if not args.all:
        try:
            cwd = os.getcwd()
        except OSError as exc:
            return fail(f"cannot tell the current directory ({exc.strerror}); try --all")
    try:
        rows = store.summaries(cwd=cwd, include_archived=args.archived)
    finally:
        store.close()
    for warning in [*config.warnings, *store.warnings]:
        say(f"dsh: warning: {warning}")
    try:
        if args.json:
            # One summary a line (json's C encoder; indent= would use the slow Python one).
            # ASCII escapes keep C1 controls and the like from reaching a terminal raw.
            from dsh.persist.listing import sessions_with_state

            saved = sessions_with_state()
            body = ",\n".join(json.dumps(_with_panes(row, saved)) for row in rows)
            sys.stdout.write(f"[\n{body}\n]\n" if rows else "[]\n")
        elif rows:
            write_table(sys.stdout, rows, with_workspace=args.all)
        else:
            _say_empty(cwd)
        sys.stdout.flush()
    except BrokenPipeError:
        # `dsh sessions | head`: the reader left; that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def _with_panes(row: Summary, saved: set[str]) -> dict[str, object]:
    """The summary plus its panes' restore states (LIVE, RESTORED, RESUMABLE, EXITED) from the snapshot."""
    from dsh.persist.listing import pane_states

    data = row.to_json()
    data["panes"] = pane_states(row.id, live=row.live_pid is not None, known=saved)
    return data


def _say_empty(cwd: str | None) -> None:
    from dsh.cli.output import say
    from dsh.store.workspace import workspace_label

    if cwd is None:
        say("dsh: no sessions yet")
    else:
        say(f"dsh: no sessions in {workspace_label(cwd)} (dsh sessions --all lists every workspace)")


def age(iso: str, now: float | None = None) -> str:
    from dsh.store.timefmt import epoch_from_iso

    then = epoch_from_iso(iso)
    if then is None:
        return "?"
    seconds = max(0, int((time.time() if now is None else now) - then))
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            count = seconds // size
            if unit == "w" and count > 8:
                return time.strftime("%Y-%m-%d", time.gmtime(then))
            return f"{count}{unit}"
    return f"{seconds}s"


def state(row: Summary) -> str:
    """attached, detached, closed or crashed (see Summary.state), and whether it is archived."""
    return row.state + (",archived" if row.archived else "")


def write_table(out: TextIO, rows: list[Summary], *, with_workspace: bool, width: int | None = None) -> None:
    """An aligned table; every text field from disk is sanitized and cut to fit the terminal."""
    from dsh.text import sanitize

    width = width or shutil.get_terminal_size((100, 24)).columns
    header = ["ID", "AGE", "STATE", "PANES"] + (["WORKSPACE"] if with_workspace else []) + ["TITLE"]
    now = time.time()
    table: list[list[str]] = []
    for row in rows:
        cells = [row.id, age(row.updated_at, now), state(row), str(row.pane_count)]
        if with_workspace:
            label = sanitize(row.workspace_label)
            cells.append(label if len(label) <= 32 else "…" + label[-31:])
        title = row.title
        if row.unresumable_reason:
            title += f" (cannot resume: {row.unresumable_reason})"
        cells.append(title)
        table.append(cells)
    widths = [max(len(header[i]), *(len(cells[i]) for cells in table)) for i in range(len(header) - 1)]
    room = max(20, width - sum(w + 2 for w in widths))
    for cells in [header, *table]:
        fixed = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells[:-1]))
        out.write(f"{fixed}  {sanitize(cells[-1], max_len=room)}\n")
