"""`dsh sessions`: the headless session listing (this workspace by default, every workspace with --all)."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import TYPE_CHECKING

from dsh import __version__
from dsh.cli.json_rows import JsonRowsOut
from dsh.cli.options import add_option_flag, option_flags

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from dsh.cli.live_agents import LiveAgents
    from dsh.resume.candidates import Candidate
    from dsh.store.store import Store
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
    p.add_argument(
        "--agents",
        action="store_true",
        help="list agent conversations (Claude Code, Codex, opencode) instead, as /resume shows them",
    )
    from dsh.cli.machines_cmd import add_listing_flags

    add_listing_flags(p)
    add_option_flag(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.version_first:
        sys.stdout.write(f"dsh {__version__}\n")
    if args.machine or args.machines:
        from dsh.cli.machines_cmd import run_remote_sessions

        return run_remote_sessions(args)
    # Imported here: the parser is built on every dsh start, and this path must stay light.
    from dsh.cli.output import fail, say
    from dsh.config import load_config
    from dsh.home import HomeError, check_home
    from dsh.store.store import open_store
    from dsh.store.table import write_table

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
    notes: list[str] = []
    rows: list[Summary] = []
    json_out: JsonRowsOut | None = None
    agent_lines: dict[str, str] = {}
    store.index.map_reads()  # a listing reads every row, and ends: see map_reads
    # The live sessions' hosts are asked for their agents now, and answer while the index is read.
    live = None if args.agents else live_agents()
    try:
        store.refresh()
        # Agent conversations are read too: a session's title may be its agent's, and --agents lists them.
        # A session listing needs only its sessions' agents (stat 20,000 transcripts: a fifth of it).
        keys = None if args.agents else session_agent_keys(store)
        if keys is None or keys:  # no session has an agent: nothing to read, nor the agents' code to import
            from dsh.resume.picker_hooks import refresh_agent_stores

            notes = refresh_agent_stores(config, store, cwd or os.getcwd(), keys)
        if args.agents:
            agent_rows, holders = agent_listing(store, cwd)
        elif args.json:
            json_out = JsonRowsOut(sys.stdout)
            try:
                listing_json(store, cwd, include_archived=args.archived, live=live, sink=json_out.add)
            except BrokenPipeError:
                _reader_left()
                return 0
        else:
            rows = store.index.summaries(cwd=cwd, include_archived=args.archived)
            if live is not None:
                for row in rows:
                    line = live.line(row.id) if row.live_pid is not None else None
                    if line:
                        agent_lines[row.id] = line
    finally:
        store.close()
        if live is not None:
            live.close()
    if args.agents:
        for warning in [*config.warnings, *store.warnings, *notes]:
            say(f"dsh: warning: {warning}")
        return write_agents(agent_rows, json_out=args.json, with_directory=args.all, cwd=cwd, holders=holders)
    store.warnings.extend(notes)
    for warning in [*config.warnings, *store.warnings]:
        say(f"dsh: warning: {warning}")
    try:
        if json_out is not None:
            # One summary a line, ASCII with JSON escapes (C1 controls and the like never reach a terminal raw).
            json_out.close()
        elif rows:
            stopped = live.stopped() if live is not None else {}
            write_table(sys.stdout, rows, with_workspace=args.all, agents=agent_lines, stopped=stopped)
            if stopped:
                from dsh.hostquery import stopped_line

                for row in rows:
                    if row.id in stopped and row.live_pid is not None:
                        say(f"dsh: {stopped_line({'session': row.id, 'pid': stopped[row.id]})}")
        else:
            _say_empty(cwd)
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_left()
    return 0


def _reader_left() -> None:
    # `dsh sessions | head`: the reader left; that is not an error, and the exit's flush must not say so.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def live_agents() -> LiveAgents | None:
    """The hosts asked for their agents (None when no host listens: nothing to ask, nothing imported)."""
    from dsh.hostquery import listening_sockets

    paths = listening_sockets()
    if not paths:
        return None
    from dsh.cli.live_agents import LiveAgents

    return LiveAgents(paths)


def session_agent_keys(store: Store) -> set[str] | None:
    """`kind:id` of every agent any session recorded (None when the index cannot say)."""
    import sqlite3

    from dsh.store.lines_column import decode_lines

    def read(conn: sqlite3.Connection) -> set[str]:
        keys: set[str] = set()
        for (agents,) in conn.execute("SELECT agents FROM sessions WHERE agent_key > ''"):
            keys.update(decode_lines(agents))
        return keys

    try:
        return store.index.read(read)
    except sqlite3.Error:
        return None


def agent_listing(store: Store, cwd: str | None) -> tuple[list[Candidate], dict[str, str]]:
    """The conversations to list, those open in a dsh pane too, and which session holds each open one."""
    from dsh.resume.agent_rows import open_agent_sessions, read_agent_candidates
    from dsh.resume.loading import workspace_cwds

    cwds = workspace_cwds(cwd) if cwd else None
    rows, problems = read_agent_candidates(store.index, cwds=cwds, include_open=True)
    store.warnings.extend(problems)
    import sqlite3

    try:
        holders = store.index.read(open_agent_sessions)
    except sqlite3.Error:
        holders = {}
    return rows, holders


AGENT_JSON_KEYS = (
    "kind",
    "id",
    "cwd",
    "title",
    "first_prompt",
    "branch",
    "message_count",
    "created_at",
    "updated_at",
    "resume_argv",
    "open_in",
)


def write_agents(
    rows: list[Candidate],
    *,
    json_out: bool,
    with_directory: bool,
    cwd: str | None,
    holders: dict[str, str] | None = None,
) -> int:
    """`dsh sessions --agents`: a table (KIND, ID, AGE, MSGS, [DIRECTORY,] TITLE) or a JSON array. A
    conversation open in a dsh pane (`holders`: `kind:id` -> session id) says which session holds it."""
    holders = holders or {}
    from dsh.agents.registry import adapter_by_kind
    from dsh.text import sanitize

    try:
        if json_out:
            out = []
            for c in rows:
                adapter = adapter_by_kind(c.kind)
                out.append(
                    {
                        "kind": c.kind,
                        "id": c.id,
                        "cwd": c.cwd,
                        "title": c.title,
                        "first_prompt": c.first_input or None,
                        "branch": c.branch,
                        "message_count": c.input_count,
                        "created_at": c.created_at,
                        "updated_at": c.updated_at,
                        "resume_argv": adapter.resume_argv(c.id) if adapter else None,
                        "open_in": holders.get(c.key),
                    }
                )
            body = ",\n".join(json.dumps(row) for row in out)
            sys.stdout.write(f"[\n{body}\n]\n" if out else "[]\n")
        elif rows:
            import shutil

            from dsh.store.table import age

            width = shutil.get_terminal_size((100, 24)).columns
            header = ["KIND", "ID", "AGE", "MSGS"] + (["DIRECTORY"] if with_directory else []) + ["TITLE"]
            now = time.time()
            table = []
            for c in rows:
                cells = [c.kind, c.id, age(c.updated_at, now), str(c.input_count)]
                if with_directory:
                    label = sanitize(c.workspace_label)
                    cells.append(label if len(label) <= 32 else "…" + label[-31:])
                holder = holders.get(c.key)
                cells.append(c.title + (f" (open in dsh session {holder})" if holder else ""))
                table.append(cells)
            widths = [max(len(header[i]), *(len(r[i]) for r in table)) for i in range(len(header) - 1)]
            room = max(20, width - sum(w + 2 for w in widths))
            for cells in [header, *table]:
                fixed = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells[:-1]))
                sys.stdout.write(f"{fixed}  {sanitize(cells[-1], max_len=room)}\n")
        else:
            from dsh.cli.output import say

            where = "any directory" if cwd is None else cwd
            say(f"dsh: no agent conversations in {where} (dsh sessions --agents --all lists every one)")
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def listing_json(
    store: Store,
    cwd: str | None,
    *,
    include_archived: bool,
    live: LiveAgents | None = None,
    sink: Callable[[str], None] | None = None,
) -> list[str]:
    """The summaries as JSON objects (SQLite writes them; see dsh.store.json_listing), each with its panes'
    restore states (LIVE, RESTORED, RESUMABLE, EXITED) from its snapshot, and a live session's
    `agent_states` as its host answered (null when it did not in time). With `sink`, each object goes
    to it as it is made (newest first) and none is returned."""
    import sqlite3

    from dsh.persist.listing import CachedPaneStates, sessions_with_state
    from dsh.store.index import summary_at
    from dsh.store.json_listing import json_listing
    from dsh.store.workspace import workspace_partition

    index = store.index
    saved = sessions_with_state(index)
    where, params = index.scope_where(workspace_partition(cwd) if cwd else None, [cwd] if cwd else ())

    states = CachedPaneStates(index, saved)

    def panes(session_id: str, live: bool) -> list[dict[str, object]] | None:
        return states.states(session_id, live=live) if session_id in saved else None

    def raw_row(path: str) -> dict[str, object] | None:
        found = index.read(lambda conn: summary_at(conn, path))
        return found.to_json() if found is not None else None

    written = 0

    def listed(conn: sqlite3.Connection) -> list[str]:
        nonlocal written
        made = json_listing(
            conn,
            where,
            params,
            include_archived=include_archived,
            panes=panes,
            raw_row=raw_row,
            saved=saved,
            kept=states,
            live=None if live is None else live.add_states,
        )
        if sink is None:
            return list(made)
        # Read again after a damaged index was rebuilt, the listing starts from the top: the rows already
        # sent are not sent twice.
        for n, text in enumerate(made):
            if n >= written:
                sink(text)
                written += 1
        return []

    try:
        rows = index.read(listed)
    except sqlite3.Error as exc:
        store.warnings.append(f"session index cannot be read: {exc}")
        return []
    states.save()  # after the read: the rows and records made this time are kept for the next listing
    return rows


def _say_empty(cwd: str | None) -> None:
    from dsh.cli.output import say
    from dsh.store.workspace import workspace_label

    if cwd is None:
        say("dsh: no sessions yet")
    else:
        say(f"dsh: no sessions in {workspace_label(cwd)} (dsh sessions --all lists every workspace)")
