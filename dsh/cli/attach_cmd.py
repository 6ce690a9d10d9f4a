"""`dsh attach [ID]` and `dsh stop ID`: come back to a running session, or end one."""

from __future__ import annotations

import os
import signal
import sys
import time

TYPE_CHECKING = False  # `dsh attach` is a client start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    import argparse

    from dsh.store.targets import Candidate


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from dsh.cli.options import add_option_flag

    p = sub.add_parser(
        "attach",
        help="attach a running session (default: the newest detached one here)",
        description="Attach a running session: ID, or the newest detached session of this workspace. "
        "A session attached in another terminal is shared with it (each terminal its own size, mode "
        "and picker; the panes take the smallest size); -d takes it over instead, -r watches it.",
    )
    p.add_argument(
        "id", nargs="?", metavar="ID", help="the session to attach: its id, a unique start of it, or its title"
    )
    p.add_argument("--nested", action="store_true", help="attach even inside a dsh pane (it shares the prefix key)")
    p.add_argument(
        "-d", dest="detach_others", action="store_true", help="detach the other terminals (tmux's attach -d)"
    )
    p.add_argument(
        "-r", dest="read_only", action="store_true", help="read-only: keys are ignored but the prefix and d (detach)"
    )
    add_option_flag(p)
    p.set_defaults(handler=attach)
    s = sub.add_parser(
        "stop",
        help="end a running session (snapshot saved, its programs end)",
        description="End a running session as /quit would: save its snapshot, hang up its programs, "
        "close its log. An attached dsh leaves with a line saying so.",
    )
    s.add_argument("id", metavar="ID", help="the session to stop: its id, a unique start of it, or its title")
    add_option_flag(s)
    s.set_defaults(handler=_stop)


def attach(args: argparse.Namespace) -> int:
    from dsh.cli.run import run_app

    return run_app(args)


def _stop(args: argparse.Namespace) -> int:
    from dsh.cli.options import option_flags
    from dsh.cli.output import fail, say
    from dsh.client.attach import AttachError, connect, stop_host
    from dsh.client.naming import NamingError, index_candidates, live_session
    from dsh.client.session_choice import not_running, open_store
    from dsh.home import HomeError, check_home
    from dsh.rundir import RunDirError, socket_path

    options = option_flags(args)

    def stored() -> list[Candidate]:
        store = open_store(options)
        try:
            return index_candidates(store)
        finally:
            store.close()

    try:
        check_home()
        session_id = live_session(args.id, stored)  # an id, a unique start of one, a title
        path = socket_path(session_id)
        sock = connect(path)
    except (HomeError, RunDirError, AttachError) as exc:
        return fail(str(exc), 2)
    except NamingError as exc:
        return fail(str(exc), exc.code)
    if sock is None:
        return fail(not_running(session_id, options))
    from dsh.client.attach import HostStopped, VersionMismatch
    from dsh.peer import peer_pid

    listener = peer_pid(sock)  # the host itself (its uid was checked on connecting)
    how = ""
    try:
        welcome = stop_host(sock, session_id)
    except HostStopped as exc:
        # A stopped host reads nothing; SIGTERM waits for it to go on, so continue it right after:
        # it then ends its session as on /quit.
        try:
            os.kill(exc.pid, signal.SIGTERM)
            os.kill(exc.pid, signal.SIGCONT)
        except OSError as err:
            return fail(f"{exc} (and SIGTERM to its pid {exc.pid} failed: {err.strerror or err})")
        welcome = {"pid": exc.pid}
        how = " (its host was stopped: continued and ended with SIGTERM)"
    except VersionMismatch as exc:
        # A host of another dsh version cannot be asked in words; every host ends its session on
        # SIGTERM as on /quit (snapshot saved, programs hung up), so that is how it is stopped.
        if listener is None:
            return fail(str(exc))
        try:
            os.kill(listener, signal.SIGTERM)
        except OSError as err:
            return fail(f"{exc} (and SIGTERM to its pid {listener} failed: {err.strerror or err})")
        welcome = {"pid": listener}
        how = f" (its host spoke protocol {exc.theirs!s:.20}: ended with SIGTERM)"
    except AttachError as exc:
        return fail(str(exc))
    # Stopped means the host is gone, and with it every program of the session (those that ignore
    # SIGHUP are killed after a grace period).
    pid = welcome.get("pid")
    deadline = time.monotonic() + 15.0
    while isinstance(pid, int) and _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if isinstance(pid, int) and _alive(pid):
        return fail(f"session {session_id} closed, but its host (pid {pid}) is still running")
    say(f"stopped session {session_id}{how}", to=sys.stdout)
    return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True
