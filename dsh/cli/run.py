"""`dsh`, `dsh attach`, `--resume`, `--continue`: find or start the session's host, then be its client."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from dsh.text import sanitize

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

STDIN, STDOUT = 0, 1


class ClientError(Exception):
    """The client cannot go on; the message is for the user (exit status in `code`)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _fail(message: str, code: int = 1) -> int:
    from dsh.cli.output import fail

    return fail(message, code)


class Target:
    """A session to attach: a running one, one to restore (`session_id`), or a new one (no id)."""

    def __init__(
        self, session_id: str | None, cwd: str, *, open_picker: bool = False, first_argv: list[str] | None = None
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.open_picker = open_picker
        self.first_argv = first_argv


def run_app(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _fail("needs a terminal: stdin and stdout must be a TTY (try `dsh sessions` for a listing)", 2)
    from dsh.home import HomeError, check_home

    try:
        check_home()  # before any config is read: another user could have written it
        target = _choose_target(args)
        return _run_client(target, args)
    except HomeError as exc:
        return _fail(str(exc), 2)
    except ClientError as exc:
        return _fail(str(exc), exc.code)
    except Exception as exc:  # a bug must not leave a traceback on the user's screen; it goes to the log
        return _fail(f"internal error: {exc.__class__.__name__}: {exc} (details in {_log_crash()})")


def _log_crash() -> str:
    """Append the current exception's traceback to $DSH_HOME/log/crash.log; return where it went."""
    import traceback

    from dsh.ownlog import log_crash

    return log_crash(traceback.format_exc())


def _options(args: argparse.Namespace) -> list[str]:
    from dsh.cli.options import option_flags

    return option_flags(args)


def _launch_dir() -> str:
    try:
        return os.getcwd()
    except OSError as exc:
        raise ClientError(f"cannot tell the current directory ({exc.strerror}): cd somewhere first") from exc


def _choose_target(args: argparse.Namespace) -> Target:
    """Which session this run attaches: from `attach`, `--resume`, `--continue`, or a new one here."""
    here = _launch_dir()
    command = getattr(args, "command", None)
    if command == "attach":
        if args.id:
            return Target(_named_session(args, args.id, live=True), here)
        return Target(_newest_detached(args, here), here)
    if args.resume:
        return Target(_named_session(args, args.resume, live=False), here)
    if getattr(args, "open_agent", None):
        return _agent_target(args, here)
    if args.continue_:
        store = _store(args)
        try:
            newest = store.summaries(cwd=here)  # refreshes the index first
        finally:
            store.close()
        if not newest:
            raise ClientError(f"no session to continue in {here} (dsh sessions --all lists every workspace)")
        return Target(newest[0].id, here)
    return Target(None, here, open_picker=args.resume == "")


def _named_session(args: argparse.Namespace, word: str, *, live: bool) -> str:
    """The id of the session `word` names (an id, a unique start of one, a title: dsh.cli.naming);
    `live`: among the running ones first, as `dsh attach` means."""
    from dsh.cli import naming

    def stored() -> list:  # type: ignore[type-arg]
        store = _store(args)
        try:
            return naming.index_candidates(store)
        finally:
            store.close()

    def log_exists(session_id: str) -> bool:
        store = _store(args)
        try:
            return store.find_log(session_id, Path(_launch_dir())) is not None
        finally:
            store.close()

    try:
        if live:
            return naming.live_session(word, stored)
        return naming.any_session(word, stored, log_exists)
    except naming.NamingError as exc:
        raise ClientError(str(exc), exc.code) from exc


def _agent_target(args: argparse.Namespace, here: str) -> Target:
    """`--open-agent KIND:ID`: a new session in the conversation's directory, its first pane the agent's
    resume (planned as /resume plans it: dsh.resume.agent_open)."""
    from dsh.cli.sessions import refresh_agent_stores
    from dsh.resume.agent_open import plan_from_index
    from dsh.resume.preflight import PreflightError

    store = _store(args)
    try:
        refresh_agent_stores(store.config, store, here)
        plan = plan_from_index(store.index, args.open_agent, current_cwd=here)
    except (PreflightError, ValueError) as exc:
        raise ClientError(f"cannot open {args.open_agent}: {exc}") from exc
    finally:
        store.close()
    return Target(None, plan.cwd, first_argv=plan.argv)


def _store(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from dsh.config import load_config
    from dsh.store.store import Store

    return Store(load_config(_options(args)))


def _newest_detached(args: argparse.Namespace, here: str) -> str:
    """`dsh attach` with no id: the newest detached session of this workspace, or say what there is."""
    from dsh.client.live import running_hosts
    from dsh.store.workspace import same_workspace, workspace_label

    detached = [host for host in running_hosts() if not host.get("attached") and same_workspace(host["cwd"], here)]
    if detached:
        # The one left most recently, as tmux attaches the most recently used session.
        detached.sort(key=lambda host: host.get("detached_at") or 0, reverse=True)
        return str(detached[0]["session"])
    store = _store(args)
    try:
        rows = store.summaries(cwd=here)
    finally:
        store.close()
    where = sanitize(workspace_label(here))
    if not rows:
        raise ClientError(
            f"no detached session in {where}, and no session at all (dsh sessions --all lists every workspace)"
        )
    import io

    from dsh.cli.sessions import write_table

    table = io.StringIO()
    write_table(table, rows[:10], with_workspace=False)
    raise ClientError(
        f"no detached session in {where}; its sessions:\n{table.getvalue().rstrip()}\n"
        "dsh attach ID takes an attached one over; dsh --resume=ID restores a closed one"
    )


def _live_elsewhere(session_id: str, launch_dir: str) -> int | None:
    """The pid holding a session live without a host socket (a dsh from before hosts), if any."""
    from dsh.config import load_config
    from dsh.store.log import live_pid
    from dsh.store.store import Store

    store = Store(load_config())
    try:
        path = store.find_log(session_id, Path(launch_dir))
    finally:
        store.close()
    return live_pid(path) if path is not None else None


def _attach_or_start(target: Target, args: argparse.Namespace, *, rows: int, cols: int, from_cwd: str | None = None):  # type: ignore[no-untyped-def]
    """An Attachment to the target's host: the running one, or one started for it here and now."""
    from dsh.client.attach import AttachError, Attachment, connect
    from dsh.client.spawn import HostStartError, start_session_host
    from dsh.host.spec import HostSpec
    from dsh.rundir import RunDirError, socket_path

    intent = {"from_cwd": from_cwd} if from_cwd else {}
    session_id = target.session_id
    if session_id is not None and os.environ.get("DSH_SESSION_ID") == session_id:
        raise ClientError(
            f"this is a pane of session {session_id}: attaching it here would show it inside "
            "itself (detach with C-b d, then attach from the outer terminal)"
        )
    try:
        cwd = target.cwd
        announcements: list[str] = []
        if session_id is not None:
            sock = connect(socket_path(session_id))
            if sock is not None:
                return Attachment.open(sock, session_id, rows=rows, cols=cols, intent=intent)
            if getattr(args, "command", None) == "attach":
                raise ClientError(_not_running(session_id))
            pid = _live_elsewhere(session_id, target.cwd)
            if pid is not None:
                who = f" (pid {pid})" if pid > 0 else ""
                raise ClientError(f"session {session_id} is open in another dsh{who} that has no host to attach")
            # Not running: restore it in its recorded workspace, checked now as /resume checks it.
            cwd = _recorded_cwd(session_id, args)
            if not from_cwd:
                announcements.append(f"resumed session {session_id} in {cwd}")
        elif target.first_argv:
            from dsh.resume.agent_open import describe

            announcements.append(f"opened {describe(target.first_argv)} in {cwd}")
        spec = HostSpec(
            cwd=cwd,
            session_id=session_id,
            options=_options(args),
            rows=rows,
            cols=cols,
            open_picker=target.open_picker,
            announcements=announcements,
            launch_dir=_launch_dir_or_none(),
            first_argv=target.first_argv,
        )
        later: list[Callable[[], None]] = []
        started = start_session_host(spec, _host_entry, _spawner_entry, later)
        sock = connect(socket_path(started))
        if sock is None:
            raise ClientError(f"the host of session {started} started but is not listening (see $DSH_HOME/log/)")
        attachment = Attachment.open(sock, started, rows=rows, cols=cols, intent=intent)
        attachment.later.extend(later)
        return attachment
    except (AttachError, HostStartError, RunDirError) as exc:
        raise ClientError(str(exc)) from exc


def _host_entry(spec, ready):  # type: ignore[no-untyped-def]
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


def _spawner_entry(listener, path):  # type: ignore[no-untyped-def]
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


def _launch_dir_or_none() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


def _not_running(session_id: str) -> str:
    from dsh.config import load_config
    from dsh.store.store import Store

    store = Store(load_config())
    try:
        summary = store.get(session_id)
    finally:
        store.close()
    if summary is None:
        return f"no session {session_id} (dsh sessions --all lists every session)"
    if summary.live_pid is not None:
        return f"session {session_id} is open in a dsh without a host (pid {summary.live_pid})"
    return f"session {session_id} is not running ({summary.state}): dsh --resume={session_id} brings it back"


def _recorded_cwd(session_id: str, args: argparse.Namespace) -> str:
    """The workspace a session recorded, re-read now and checked enterable (the checks /resume makes)."""
    from dsh.resume.handoff import HandoffError, check_directory
    from dsh.resume.preflight import PreflightError, preflight
    from dsh.store.log import read_header

    store = _store(args)
    try:
        path = store.find_log(session_id, Path(_launch_dir()))
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


def _run_client(target: Target, args: argparse.Namespace) -> int:
    from dsh.client.attach import Pump
    from dsh.client.tty import RawTerminal, window_size

    rows, cols = window_size(STDOUT)
    attachment = _attach_or_start(target, args, rows=rows, cols=cols)

    def on_switch(
        session_id: str | None,
        cwd: str,
        from_cwd: str,  # type: ignore[no-untyped-def]
        first_argv: list[str] | None = None,
    ):
        try:
            # No id: a new session there whose first pane runs `first_argv` (an agent conversation).
            next_target = Target(session_id, cwd, first_argv=first_argv)
            rows, cols = window_size(STDOUT)
            return _attach_or_start(next_target, args, rows=rows, cols=cols, from_cwd=from_cwd or None)
        except ClientError as exc:
            return str(exc)

    terminal = RawTerminal(STDIN)
    with terminal, Pump(terminal) as pump:
        while True:
            outcome = pump.run(attachment, on_switch)
            if outcome.kind != "switch" or outcome.next is None:
                break
            attachment.close()
            attachment = outcome.next
            cwd = attachment.welcome.get("cwd")
            if isinstance(cwd, str):
                with contextlib.suppress(OSError):
                    os.chdir(cwd)  # the client follows its session, as one dsh process did
        attachment.close()
        if outcome.kind == "lost":
            pump.reset_screen()
    sys.stdout.flush()
    if outcome.kind == "lost":
        from dsh.rundir import host_log_path

        sid = attachment.session_id
        reason = outcome.message or f"the host of session {sid} ended unexpectedly (its log: {host_log_path(sid)})"
        return _fail(f"{reason}; dsh --resume={sid} restores the session from its snapshot")
    if outcome.message:
        from dsh.cli.output import say

        say(outcome.message)
    return outcome.code
