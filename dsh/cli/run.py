"""`dsh` with no subcommand: check the terminal, open or resume a session, run the app, then hand off."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _fail(message: str, code: int = 1) -> int:
    print(f"dsh: {message}", file=sys.stderr)
    return code


def _log_crash() -> str:
    """Append the current exception's traceback to $DSH_HOME/log/crash.log; return where it went."""
    import traceback

    from dsh.home import dsh_home_path

    try:
        path = dsh_home_path("log", "crash.log")
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(traceback.format_exc() + "\n")
        return str(path)
    except Exception:
        return "nowhere: the log could not be written"


def run_app(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _fail("needs a terminal: stdin and stdout must be a TTY (try `dsh sessions` for a listing)", 2)

    from dsh.config import load_config
    from dsh.home import HomeError, dsh_home

    try:
        dsh_home()
        config = load_config(args.options)
    except HomeError as exc:
        return _fail(str(exc), 2)

    from dsh.persist.snapshot import SnapshotVersionError, load_snapshot
    from dsh.resume.preflight import PreflightError, preflight
    from dsh.store.ids import InvalidSessionId, validate_session_id
    from dsh.store.log import LogError, SessionBusy, SessionLog, read_header, read_log
    from dsh.store.store import Store
    from dsh.ui.app import Announcement, AppResult, DshApp, DshOptions

    store = Store(config)
    launch_dir = Path.cwd()
    announcements = [Announcement(w, error=True) for w in config.warnings]
    handoff_from = os.environ.pop("DSH_HANDOFF_FROM", None)

    target_id: str | None = None
    first_argv: list[str] | None = None
    if args.resume:
        try:
            target_id = validate_session_id(args.resume)
        except InvalidSessionId as exc:
            return _fail(str(exc), 2)
    elif args.continue_:
        newest = store.summaries(cwd=str(launch_dir))  # refreshes the index first
        if not newest:
            return _fail(f"no session to continue in {launch_dir} (dsh sessions --all lists every workspace)")
        target_id = newest[0].id

    loaded = None
    title: str | None = None
    if target_id is not None:
        path = store.find_log(target_id, launch_dir)
        if path is None:
            return _fail(f"no session {target_id} (dsh sessions --all lists every session)")
        try:
            # The same checks /resume makes: a header that names this id and an absolute workspace.
            cwd = preflight(target_id, find_log=lambda _: path, read_header=read_header).cwd
            contents = read_log(path)
        except (PreflightError, LogError) as exc:
            return _fail(f"cannot resume {target_id}: {exc}")
        try:
            os.chdir(cwd)
        except OSError as exc:
            return _fail(f"cannot resume {target_id}: cannot enter {cwd}: {exc.strerror or exc}")
        try:
            loaded = load_snapshot(target_id)
        except SnapshotVersionError as exc:
            return _fail(str(exc))
        try:
            log = SessionLog.open_existing(path)
        except SessionBusy as exc:
            who = f" (pid {exc.pid})" if exc.pid and exc.pid > 0 else ""
            return _fail(f"session {target_id} is open in another dsh{who}")
        except (LogError, OSError) as exc:
            return _fail(f"cannot resume {target_id}: {exc}")
        for event in contents.events:
            if event.get("type") == "title" and isinstance(event.get("title"), str):
                title = event["title"]
        if loaded is not None and loaded.error:
            announcements.append(Announcement(loaded.error, error=True))
        if handoff_from and os.path.realpath(handoff_from) != os.path.realpath(cwd):
            announcements.append(Announcement(f"moved to {cwd} (from {handoff_from}) — resumed {target_id}"))
        else:
            announcements.append(Announcement(f"resumed session {target_id} in {cwd}"))
        session_cwd = cwd
    else:
        session_cwd = str(launch_dir)
        if args.open_agent:
            # An agent conversation from /resume: a new session in its directory, its first pane the resume.
            from dsh.resume.agent_open import plan_from_index

            try:
                plan = plan_from_index(store.index, args.open_agent, current_cwd=session_cwd)
                os.chdir(plan.cwd)
            except (PreflightError, ValueError, OSError) as exc:
                return _fail(f"cannot open {args.open_agent}: {exc}")
            session_cwd, first_argv = plan.cwd, plan.argv
            announcements.append(Announcement(f"opened {plan.kind} conversation {plan.session_id} in {plan.cwd}"))
        try:
            log = store.create_session(session_cwd)
        except (LogError, OSError) as exc:
            return _fail(f"cannot create a session under {store.root}: {exc}")

    options = DshOptions(
        config=config,
        store=store,
        log=log,
        cwd=session_cwd,
        loaded=loaded,
        announcements=announcements,
        open_picker=args.resume == "",
        first_argv=first_argv,
    )
    import asyncio
    import gc

    # A pane's history is a great many long-lived small objects; the default thresholds make the
    # collector walk them all every few thousand allocations, which shows as stalls under a flood.
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)

    async def main() -> AppResult:
        # Panes start in the constructor; their readers must join the loop that runs the app.
        app = DshApp(options)
        app.session_title = title
        return await app.run_async()

    try:
        result = asyncio.run(main())
    except Exception as exc:  # a bug must not leave a traceback on the user's screen; it goes to the log
        return _fail(f"internal error: {exc.__class__.__name__}: {exc} (details in {_log_crash()})")
    if result.exec_argv:
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            os.execve(result.exec_argv[0], result.exec_argv, result.exec_env or dict(os.environ))
        except OSError as exc:
            return _fail(f"cannot start the resumed session ({' '.join(result.exec_argv)}): {exc}")
    return result.exit_code
