"""A client's life: attach the target's host (or start one for it), pump, follow each /resume switch."""

from __future__ import annotations

import contextlib
import os
import sys

from dsh.client.intent import Intent
from dsh.client.session_choice import (
    ClientError,
    Target,
    choose_target,
    launch_dir,
    launch_dir_or_none,
    live_elsewhere,
    not_running,
    recorded_cwd,
)
from dsh.text import sanitize

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from collections.abc import Callable

    from dsh.client.attach import Attachment
    from dsh.client.spawn import SpawnerEntry
    from dsh.client.tty import RawTerminal
    from dsh.host.spec import HostEntry

STDIN, STDOUT = 0, 1


class Entries:
    """The host's and the spawner's entry points, for a client that has to start either (given by cli/:
    they load the view, which the client never imports)."""

    __slots__ = ("host", "spawner")

    def __init__(self, host: HostEntry, spawner: SpawnerEntry) -> None:
        self.host = host
        self.spawner = spawner


def run_client(intent: Intent, entries: Entries) -> tuple[int, str]:
    """Be the client of the session `intent` names until it ends: (exit status, line for the user).
    A host lost on the way is a ClientError naming its log and the command that restores it."""
    from dsh.client.attach import OutcomeKind, Pump
    from dsh.client.tty import RawTerminal, SavedTitle, window_size

    target = choose_target(intent, launch_dir())
    rows, cols = window_size(STDOUT)
    attachment = attach_or_start(target, intent.options, entries, rows=rows, cols=cols, mode=intent.attach_mode)

    def on_switch(
        session_id: str | None, cwd: str, from_cwd: str, first_argv: list[str] | None = None
    ) -> Attachment | str:
        # A switch is a /resume: the session it names is restored when its host is not running,
        # however this client was started (`dsh attach` only refuses for the session it named).
        # No id: a new session there whose first pane runs `first_argv` (an agent conversation).
        try:
            next_target = Target(session_id, cwd, first_argv=first_argv)
            rows, cols = window_size(STDOUT)
            return attach_or_start(
                next_target,
                intent.options,
                entries,
                rows=rows,
                cols=cols,
                from_cwd=from_cwd,
                from_session=left[0],
                say=pump.say,  # the view has the terminal: a slow host is said over its screen
            )
        except ClientError as exc:
            return str(exc)

    terminal = RawTerminal(STDIN)
    left = [attachment.session_id]  # the session a switch leaves (the next host's `/session last`)
    with terminal, SavedTitle(STDOUT), Pump(terminal) as pump:  # (the view sets the focused pane's title)
        while True:
            outcome = pump.run(attachment, on_switch)
            if outcome.kind == OutcomeKind.REMOTE and outcome.argv:
                # Another machine: its ssh gets the terminal; when it ends (detached there, or the
                # connection dropped) this client attaches the session it left, kept running.
                attachment.close()
                pump.reset_screen()
                back = attachment.session_id
                line = hop(terminal, outcome.argv)
                rows, cols = window_size(STDOUT)
                attachment = attach_or_start(
                    Target(back, launch_dir()), intent.options, entries, rows=rows, cols=cols, note=line
                )
                continue
            if outcome.kind != OutcomeKind.SWITCH or outcome.next is None:
                break
            attachment.close()
            attachment = outcome.next
            left[0] = attachment.session_id
            cwd = attachment.welcome.get("cwd")
            if isinstance(cwd, str):
                with contextlib.suppress(OSError):
                    os.chdir(cwd)  # the client follows its session, as one dsh process did
        attachment.close()
        if outcome.kind != OutcomeKind.EXIT:
            # The view did not end its frame (the host died, the stream broke, this client was told to
            # go by a signal): its modes are still on in the terminal (autowrap off, mouse, the
            # alternate screen...). A view that ended put them back itself.
            pump.reset_screen()
    sys.stdout.flush()
    if outcome.kind == OutcomeKind.LOST:
        from dsh.rundir import host_log_path

        sid = attachment.session_id
        # Lines short enough to read whole, the command that restores on a line of its own.
        reason = outcome.message or f"the session's host ended unexpectedly (its log: {host_log_path(sid)})"
        raise ClientError(reason, more=("to restore the session from its snapshot:", f"  dsh --resume={sid}"))
    return outcome.code, outcome.message


def attach_or_start(
    target: Target,
    options: list[str],
    entries: Entries,
    *,
    rows: int,
    cols: int,
    from_cwd: str = "",
    from_session: str = "",
    mode: str = "share",
    note: str = "",
    say: Callable[[str], None] | None = None,
) -> Attachment:
    """An Attachment to the target's host: the running one, or one started for it here and now.
    `from_cwd` is the client's directory when a /resume switched it here (the host says it moved),
    `from_session` the session it left (for that host's `/session last`; an older host ignores it).
    `say` gets a line while a host that runs keeps the user waiting (stderr when not given)."""
    from dsh.client.attach import AttachError, Attachment, connect
    from dsh.client.spawn import HostStartError, start_session_host
    from dsh.host.spec import HostSpec
    from dsh.rundir import RunDirError, socket_path

    intent = {"from_cwd": from_cwd} if from_cwd else {}
    if from_session:
        intent["from_session"] = from_session
    if note:
        intent["note"] = note  # a line for the host to show (an older host ignores it)
    if mode != "share":
        intent["attach"] = mode
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
                # Before the terminal is raw, a slow host is said on stderr, where C-c gives up; in a
                # /resume's switch, over the view's screen, and the client goes back after the wait.
                if say is not None:
                    return Attachment.open(
                        sock, session_id, rows=rows, cols=cols, intent=intent, say=say, way_out="then back here"
                    )
                return Attachment.open(sock, session_id, rows=rows, cols=cols, intent=intent, say=_say_waiting)
            if not target.restore:
                raise ClientError(not_running(session_id, options))
            pid = live_elsewhere(session_id, options, target.cwd)
            if pid is not None:
                who = f" (pid {pid})" if pid > 0 else ""
                raise ClientError(f"session {session_id} is open in another dsh{who} that has no host to attach")
            # Not running: restore it in its recorded workspace, checked now as /resume checks it.
            cwd = recorded_cwd(session_id, options)
            if not from_cwd:
                announcements.append(f"resumed session {session_id} in {cwd}")
        elif target.first_argv:
            from dsh.resume.agent_open import describe

            announcements.append(f"opened {describe(target.first_argv)} in {cwd}")
        spec = HostSpec(
            cwd=cwd,
            session_id=session_id,
            options=options,
            rows=rows,
            cols=cols,
            open_picker=target.open_picker,
            announcements=announcements,
            launch_dir=launch_dir_or_none(),
            first_argv=target.first_argv,
        )
        later: list[Callable[[], None]] = []
        # A spawner bypassed is said: on stderr before the terminal is raw, over the view's screen in a switch.
        started = start_session_host(spec, entries.host, entries.spawner, later, say=say or _say_waiting)
        sock = connect(socket_path(started))
        if sock is None:
            raise ClientError(f"the host of session {started} started but is not listening (see $DSH_HOME/log/)")
        attachment = Attachment.open(sock, started, rows=rows, cols=cols, intent=intent)
        attachment.later.extend(later)
        return attachment
    except (AttachError, HostStartError, RunDirError) as exc:
        raise ClientError(str(exc)) from exc


def _say_waiting(line: str) -> None:
    sys.stderr.write(sanitize(line) + "\n")  # a session id from the command line: shown escaped
    sys.stderr.flush()


def hop(terminal: RawTerminal, argv: list[str]) -> str:
    """Run `argv` (ssh to another machine's dsh) with the terminal as it was before dsh took it; a line
    to show when it did not end well (a dropped connection: ssh's status 255)."""
    import subprocess

    terminal.restore()
    why = ""
    try:
        status = subprocess.call(argv)
    except OSError as exc:
        status, why = -1, f"cannot run {argv[0]}: {exc.strerror or exc}"
    finally:
        terminal.enter()
    if why:
        return why
    if status == 255:
        return "the connection to the other machine dropped (ssh ended with 255); back here"
    if status != 0:
        return f"the other machine's dsh ended with status {status}; back here"
    return ""
