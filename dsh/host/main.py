"""A session's host process: open or create the session, listen on its socket, live until it ends."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import os
import signal
import traceback
from typing import TYPE_CHECKING, NoReturn

from dsh.host.connection import RunView
from dsh.host.spec import HostSpec, ReadyPipe
from dsh.values import Value

if TYPE_CHECKING:
    from dsh.config import Config
    from dsh.persist.snapshot import LoadedSnapshot
    from dsh.store.log import SessionLog
    from dsh.store.store import Store


class HostStartError(Exception):
    """The host cannot serve this session; the message is for the user."""


class Opened(Value, fields=("log", "loaded", "title", "announcements")):
    """A session ready to serve: its log held live, its snapshot (if any), what to say on first attach."""

    log: SessionLog
    loaded: LoadedSnapshot | None
    title: str | None
    announcements: list[str]

    def __init__(
        self,
        log: SessionLog,
        loaded: LoadedSnapshot | None,
        title: str | None,
        announcements: list[str] | None = None,
    ) -> None:
        self.log = log
        self.loaded = loaded
        self.title = title
        self.announcements = [] if announcements is None else announcements


def run_host(spec: HostSpec, ready: ReadyPipe, run_view: RunView) -> NoReturn:
    """The body of the daemon (already detached from the terminal by the spawner). Never returns.

    `run_view` draws the session for each attached client (the host itself knows no screen).
    """
    code = 1
    try:
        code = _serve(spec, ready, run_view)
    except HostStartError as exc:
        ready.fail(str(exc))
    except BaseException as exc:  # the client must hear why, and the log must keep the details
        traceback.print_exc()
        ready.fail(f"internal error: {exc.__class__.__name__}: {exc}")
    finally:
        try:
            logging.shutdown()
        finally:
            os._exit(code)


def _serve(spec: HostSpec, ready: ReadyPipe, run_view: RunView) -> int:
    from dsh.config import load_config
    from dsh.home import HomeError
    from dsh.store.store import Store

    try:
        os.chdir(spec.cwd)
    except OSError as exc:
        raise HostStartError(f"cannot enter {spec.cwd}: {exc.strerror or exc}") from exc
    os.environ["PWD"] = spec.cwd
    os.environ.pop("DSH_HANDOFF_FROM", None)
    try:
        config = load_config(spec.options)
    except HomeError as exc:
        raise HostStartError(str(exc)) from exc
    store = Store(config)
    opened = _open_session(spec, store)
    try:
        opened.announcements[:0] = list(config.warnings)
        from dsh.rundir import runtime_dir_problem

        problem = runtime_dir_problem()
        if problem is not None:
            opened.announcements.insert(0, problem)  # another user's XDG_RUNTIME_DIR: said, not used
        _log_to_file(opened.log.id)
        # A pane's history is a great many long-lived small objects; the default thresholds make the
        # collector walk them all every few thousand allocations, which shows as stalls under a flood.
        gc.freeze()
        gc.set_threshold(50_000, 50, 100)
        return asyncio.run(_main(spec, ready, run_view, config, store, opened))
    except BaseException as exc:
        if ready.answered:
            raise  # it served: what ended it is the log's to keep
        error = _start_error(exc)
        _give_up(opened, fresh=spec.session_id is None, why=str(error))
        raise error from exc


def _start_error(exc: BaseException) -> HostStartError:
    """The one line a client shows for what stopped its host before it served."""
    from dsh.rundir import RunDirError

    if isinstance(exc, HostStartError):
        return exc
    if isinstance(exc, RunDirError):
        return HostStartError(str(exc))
    if isinstance(exc, OSError):
        return HostStartError(f"the session could not start: {_os_error_text(exc)}")
    traceback.print_exc()  # into the host's log: the details of what nobody expected
    return HostStartError(f"internal error: {exc.__class__.__name__}: {exc}")


def _os_error_text(exc: OSError) -> str:
    if exc.errno == errno.EMFILE:  # the limit came from the terminal that started the session
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        return f"{exc.strerror} (ulimit -n is {soft} in the terminal that started it)"
    return str(exc.strerror or exc)


def _give_up(opened: Opened, *, fresh: bool, why: str) -> None:
    """A host that fails before it serves closes the session it opened, so that nothing is listed
    crashed for it: a new session archived (nothing was done in it), a resumed one closed as it was,
    its snapshot untouched, to be resumed again once what failed is put right."""
    log = opened.log
    if fresh:
        with contextlib.suppress(Exception):
            log.append("archive", archived=True, reason=f"could not start: {why}"[:300])
    with contextlib.suppress(Exception):
        log.close()


def _open_session(spec: HostSpec, store: Store) -> Opened:
    from dsh.store.log import LogError, SessionBusy, SessionLog, read_header, read_log

    if spec.session_id is None:
        try:
            log = store.create_session(spec.cwd)
        except (LogError, OSError) as exc:
            raise HostStartError(f"cannot create a session under {store.root}: {exc}") from exc
        return Opened(log, None, None, list(spec.announcements))
    # A resumed session's only: a new one's host has no use for the preflight's modules before its frame.
    from dsh.persist.snapshot import SnapshotVersionError, load_snapshot
    from dsh.resume.preflight import PreflightError, preflight

    sid = spec.session_id
    path = store.find_log(sid, spec.launch_dir)
    if path is None:
        raise HostStartError(f"no session {sid} (dsh sessions --all lists every session)")
    try:
        preflight(sid, find_log=lambda _: path, read_header=read_header)
        contents = read_log(path)
    except (PreflightError, LogError) as exc:
        raise HostStartError(f"cannot resume {sid}: {exc}") from exc
    try:
        loaded = load_snapshot(sid)
    except SnapshotVersionError as exc:
        raise HostStartError(str(exc)) from exc
    try:
        log = SessionLog.open_existing(path)
    except SessionBusy as exc:
        who = f" (pid {exc.pid})" if exc.pid and exc.pid > 0 else ""
        raise HostStartError(f"session {sid} is open in another dsh{who}") from exc
    except (LogError, OSError) as exc:
        raise HostStartError(f"cannot resume {sid}: {exc}") from exc
    title = None
    for event in contents.events:
        if event.get("type") == "title" and isinstance(event.get("title"), str):
            title = event["title"]
    announcements = list(spec.announcements)
    if loaded is not None and loaded.error:
        announcements.append(loaded.error)
    return Opened(log, loaded, title, announcements)


def _log_to_file(session_id: str) -> None:
    """stderr and the logging module go to `$DSH_HOME/log/host-<id>.log` from here on."""
    from dsh.ownlog import stderr_to
    from dsh.rundir import host_log_path

    if stderr_to(host_log_path(session_id).name):
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s host %(process)d %(name)s: %(message)s")


async def _main(
    spec: HostSpec, ready: ReadyPipe, run_view: RunView, config: Config, store: Store, opened: Opened
) -> int:
    from dsh.host.server import HostServer
    from dsh.rundir import socket_path
    from dsh.session.session import Session

    loop = asyncio.get_running_loop()
    loop.set_exception_handler(_log_loop_exception)
    path = socket_path(opened.log.id)
    session = Session(
        config=config,
        store=store,
        log=opened.log,
        cwd=spec.cwd,
        loaded=opened.loaded,
        title=opened.title,
        size=(spec.rows, spec.cols),
        env=dict(os.environ),
        first_argv=spec.first_argv,
        options=spec.options,
        socket=str(path),
    )
    server = HostServer(session, path, run_view, announcements=opened.announcements, open_picker=spec.open_picker)
    try:
        await server.start()
    except OSError as exc:
        session.flush_and_close(save=False)  # the snapshot on disk is the session's until one serves it
        raise HostStartError(f"cannot listen for clients: {_os_error_text(exc)}") from exc
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, session.quit)
    loop.add_signal_handler(signal.SIGHUP, session.scheduler.structural_change)
    session.start()
    if spec.detached and not server.clients:
        session.log_event("detach", reason="started detached")  # else the listings say attached
    ready.succeed(session.log.id)
    assert session.ended is not None
    await session.ended
    await server.close()
    await session.reap_panes()
    return 0


def _log_loop_exception(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
    """A failing callback is logged with its traceback; the host and its panes carry on."""
    exception = context.get("exception")
    logging.getLogger("dsh.host").error(
        "unhandled: %s",
        context.get("message"),
        exc_info=exception if isinstance(exception, BaseException) else None,
    )
