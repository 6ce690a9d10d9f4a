"""Which session a client attaches, from what the user asked (an `Intent`): found, restored, or new."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

from dsh.client.intent import Action, Intent
from dsh.text import sanitize

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from dsh.store.store import Store
    from dsh.store.targets import Candidate


class ClientError(Exception):
    """The client cannot go on; the message is for the user (exit status in `code`)."""

    def __init__(self, message: str, code: int = 1, more: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.more = more  # lines said after the message, each on its own


class Target:
    """A session to attach: a running one or one to restore (`session_id`), or a new one (no id) in `cwd`.
    `restore` False (`dsh attach`) refuses a session whose host is not running instead of restoring it."""

    __slots__ = ("cwd", "first_argv", "open_picker", "restore", "session_id")

    def __init__(
        self,
        session_id: str | None,
        cwd: str,
        *,
        open_picker: bool = False,
        first_argv: list[str] | None = None,
        restore: bool = True,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.open_picker = open_picker
        self.first_argv = first_argv
        self.restore = restore


def choose_target(intent: Intent, here: str) -> Target:
    """The session `intent` names, as seen from the launch directory `here`."""
    action = intent.action
    if action is Action.ATTACH:
        if not intent.session_id:
            return Target(newest_detached(intent.options, here), here, restore=False)
        return Target(named_session(intent.session_id, intent.options, live=True), here, restore=False)
    if action is Action.RESUME:
        return Target(named_session(intent.session_id or "", intent.options, live=False), here)
    if action is Action.OPEN_AGENT:
        return _agent_target(intent.agent or "", intent.options, here)
    if action is Action.CONTINUE:
        store = open_store(intent.options)
        try:
            newest = store.summaries(cwd=here)  # refreshes the index first
        finally:
            store.close()

        from dsh.resume.continuing import choose, snapshot_mtime

        chosen = choose(newest, snapshot_mtime, time.time())
        if chosen is None:
            raise ClientError(f"no session to continue in {here} (dsh sessions --all lists every workspace)")
        print(f"dsh: {chosen.why}", file=sys.stderr)
        return Target(chosen.session_id, here)
    return Target(None, here, open_picker=intent.open_picker)


def named_session(word: str, options: list[str], *, live: bool) -> str:
    """The id of the session `word` names (an id, a unique start of one, a title: dsh.client.naming);
    `live`: among the running ones first, as `dsh attach` means."""
    from dsh.client import naming

    def stored() -> list[Candidate]:
        store = open_store(options)
        try:
            return naming.index_candidates(store)
        finally:
            store.close()

    def log_exists(session_id: str) -> bool:
        store = open_store(options)
        try:
            return store.find_log(session_id, Path(launch_dir())) is not None
        finally:
            store.close()

    try:
        if live:
            return naming.live_session(word, stored)
        return naming.any_session(word, stored, log_exists)
    except naming.NamingError as exc:
        raise ClientError(str(exc), exc.code) from exc


def launch_dir() -> str:
    try:
        return os.getcwd()
    except OSError as exc:
        raise ClientError(f"cannot tell the current directory ({exc.strerror}): cd somewhere first") from exc


def launch_dir_or_none() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


def open_store(options: list[str]) -> Store:
    """The session store, with the config as this run's `-o` flags change it."""
    from dsh.config import load_config
    from dsh.store.store import Store

    return Store(load_config(options))


def _agent_target(agent: str, options: list[str], here: str) -> Target:
    """`--open-agent KIND:ID`: a new session in the conversation's directory, its first pane the agent's
    resume (planned as /resume plans it: dsh.resume.agent_open)."""
    from dsh.resume.agent_open import held_elsewhere, plan_from_index
    from dsh.resume.picker_hooks import refresh_agent_stores
    from dsh.resume.preflight import PreflightError

    store = open_store(options)
    try:
        refresh_agent_stores(store.config, store, here)
        plan = plan_from_index(store.index, agent, current_cwd=here)
        # Open anywhere already: go there, never a second agent writing the same transcript.
        holder = held_elsewhere(store.index, plan.kind, plan.session_id)
    except (PreflightError, ValueError) as exc:
        raise ClientError(f"cannot open {agent}: {exc}") from exc
    finally:
        store.close()
    if holder is not None:
        from dsh.resume.agent_open import go_to_holder

        what = f"{plan.kind} conversation {plan.session_id}"
        pane = go_to_holder(holder, plan.kind, plan.session_id)  # its host shows that pane when attached
        where = f"dsh session {holder}" + (f", pane {pane}" if pane else "")
        print(f"dsh: {what} is open in {where}: going there", file=sys.stderr)
        return Target(holder, here)
    return Target(None, plan.cwd, first_argv=plan.argv)


def newest_detached(options: list[str], here: str) -> str:
    """`dsh attach` with no id: the newest detached session of this workspace, or say what there is."""
    from dsh.client.live import running_hosts
    from dsh.store.workspace import same_workspace, workspace_label

    stopped: list[dict[str, object]] = []  # hosts stopped (SIGSTOP): not waited for, said below
    hosts = running_hosts(stopped)
    detached = [host for host in hosts if not host.get("attached") and same_workspace(host["cwd"], here)]
    if detached:
        # The one left most recently, as tmux attaches the most recently used session.
        detached.sort(key=lambda host: host.get("detached_at") or 0, reverse=True)
        return str(detached[0]["session"])
    from dsh.hostquery import stopped_line

    said = "".join(
        f"\n{sanitize(stopped_line(row))}" for row in stopped if same_workspace(str(row["cwd"] or "/"), here)
    )
    store = open_store(options)
    try:
        rows = store.summaries(cwd=here)
    finally:
        store.close()
    where = sanitize(workspace_label(here))
    if not rows:
        raise ClientError(
            f"no detached session in {where}, and no session at all (dsh sessions --all lists every workspace)" + said
        )

    from dsh.store.table import write_table

    table = io.StringIO()
    write_table(table, rows[:10], with_workspace=False, stopped={str(row["session"]) for row in stopped})
    raise ClientError(
        f"no detached session in {where}; its sessions:\n{table.getvalue().rstrip()}{said}\n"
        "dsh attach ID takes an attached one over; dsh --resume=ID restores a closed one"
    )


def live_elsewhere(session_id: str, options: list[str], here: str) -> int | None:
    """The pid holding a session live without a host socket (a dsh from before hosts), if any."""
    from dsh.store.log import live_pid

    store = open_store(options)
    try:
        path = store.find_log(session_id, Path(here))
    finally:
        store.close()
    return live_pid(path) if path is not None else None


def not_running(session_id: str, options: list[str]) -> str:
    """Why a session with no listening host cannot be attached, and what brings it back."""
    store = open_store(options)
    try:
        summary = store.get(session_id)
    finally:
        store.close()
    if summary is None:
        return f"no session {session_id} (dsh sessions --all lists every session)"
    if summary.live_pid is not None:
        return f"session {session_id} is open in a dsh without a host (pid {summary.live_pid})"
    return f"session {session_id} is not running ({summary.state}): dsh --resume={session_id} brings it back"


def recorded_cwd(session_id: str, options: list[str]) -> str:
    """The workspace a session recorded, re-read now and checked enterable (the checks /resume makes)."""
    from dsh.resume.handoff import HandoffError, check_directory
    from dsh.resume.preflight import PreflightError, preflight
    from dsh.store.log import read_header

    store = open_store(options)
    try:
        path = store.find_log(session_id, Path(launch_dir()))
        if path is None:
            raise ClientError(f"no session {session_id} (dsh sessions --all lists every session)")
        resolved = preflight(session_id, find_log=lambda _: path, read_header=read_header)
    except PreflightError as exc:
        raise ClientError(f"cannot resume {session_id}: {exc}") from exc
    finally:
        store.close()
    try:
        check_directory(resolved.cwd)
    except HandoffError as exc:
        raise ClientError(f"cannot resume {session_id}: {exc}") from exc
    return resolved.cwd
