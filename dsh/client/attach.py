"""Attached to a host: the handshake, then keys and window sizes out, the screen in, until it says go."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

from dsh import protocol
from dsh.client.tty import RESET_MODES, RawTerminal, window_size, write_all

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import Any, Final, Literal, TypeAlias

    OutcomeKindType: TypeAlias = Literal["exit", "lost", "signal", "switch", "remote"]

HANDSHAKE_TIMEOUT = 10.0
# A host that has not answered its hello this long is looked at: a stopped one (SIGSTOP) is said at
# once, with the ways out, instead of waiting out HANDSHAKE_TIMEOUT for an answer that cannot come.
STOPPED_CHECK = 0.5
STOPPED_FOR = 1.0
# A host that runs but has not answered this long is said to be slow, once, where a line can be said.
SLOW_AFTER = 2.0
# What a client's panes should see of its terminal and login (tmux's update-environment).
FORWARDED_ENV = (
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "PROMPT_TOOLKIT_COLOR_DEPTH",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "SSH_AUTH_SOCK",
    "SSH_CONNECTION",
    # Which terminal it is, for desktop notifications (dsh.attention.outward); never given to panes.
    "TERM_PROGRAM",
    "VTE_VERSION",
    "KITTY_WINDOW_ID",
    "TMUX",
)
_READ = 262144
# An attachment's `later` work waits for the first frame, then for the host to pause this long (or for
# _LATER_AT_MOST after the first frame, for a session that never pauses).
_LATER_PAUSE = 0.05
_LATER_AT_MOST = 1.0
# Keys unanswered this long: ask the host whether it is there (a pane that echoes nothing is not a
# wedged host); no answer at all for WEDGED_AFTER: say so, and which key detaches here, without it.
PING_AFTER = 1.0
WEDGED_AFTER = 4.0
DEFAULT_DETACH = b"\x02d"  # C-b d


def detach_keys_of(text: object) -> bytes:
    """The detach keys a host names (its welcome's `detach`, a `detach_keys` message); b"" for none."""
    return text.encode("latin-1", "replace") if isinstance(text, str) and 0 < len(text) <= 8 else b""


class AttachError(Exception):
    """Attaching failed before the session was shown; the message is for the user."""


class VersionMismatch(AttachError):
    """The host speaks another protocol version (`theirs`): the message says the way forward."""

    def __init__(self, message: str, theirs: object) -> None:
        super().__init__(message)
        self.theirs = theirs


class OutcomeKind:
    """How an attachment ended (Outcome.kind): constants typed by OutcomeKindType (as protocol.ToClient)."""

    EXIT: Final = "exit"  # the host said so, with its code and line
    LOST: Final = "lost"  # the host vanished, or sent what this client cannot read
    SIGNAL: Final = "signal"  # the client was told to go
    SWITCH: Final = "switch"  # to Outcome.next: a /resume elsewhere
    REMOTE: Final = "remote"  # hand the terminal to Outcome.argv (ssh to another machine), then come back


class Outcome:
    """How an attachment ended: `exit` (with the host's code and line), `lost` (the host vanished),
    `signal` (the client was told to go), `switch` to `next` (a /resume elsewhere), or `remote`."""

    def __init__(
        self,
        kind: OutcomeKindType,
        code: int = 0,
        message: str = "",
        next: Attachment | None = None,
        argv: list[str] | None = None,
    ) -> None:
        self.kind = kind
        self.code = code
        self.message = message
        self.next = next
        self.argv = argv  # `remote`: the command to hand the terminal to (ssh to another machine)


# Called when the host asks to move to another session: an attachment to it, or why not.
# (session id or None for a new session, cwd, the client's cwd, the new session's first argv or None)
SwitchHandler = Callable[[str | None, str, str, list[str] | None], "Attachment | str"]


def connect(path: Path) -> socket.socket | None:
    """A connection to the host listening on `path`, checked to be this user's own (dsh.rundir); None when
    none listens (a stale socket is removed). RunDirError when the folder or the listener is not ours."""
    from dsh.rundir import connect_private

    try:
        return connect_private(path, HANDSHAKE_TIMEOUT)
    except OSError as exc:
        raise AttachError(f"cannot reach the session host at {path}: {exc.strerror or exc}") from exc


class HostStopped(AttachError):
    """The host is stopped (SIGSTOP): it cannot answer until continued; `pid` is its process."""

    def __init__(self, session_id: str, pid: int) -> None:
        from dsh.hostquery import stopped_line  # as a listing says it

        super().__init__(stopped_line({"session": session_id, "pid": pid}))
        self.pid = pid


def _read_answer(
    sock: socket.socket, session_id: str, say: Callable[[str], None] | None = None, way_out: str = "C-c gives up"
) -> bytes:
    """The host's answer line (and what came with it), read within HANDSHAKE_TIMEOUT; HostStopped as
    soon as the host has been seen stopped for STOPPED_FOR. `say` gets one line if a running host has
    not answered after SLOW_AFTER, naming `way_out` (what else the user can do meanwhile)."""
    from dsh.peer import peer_pid, process_stopped

    pid = peer_pid(sock)
    start = time.monotonic()
    deadline = start + HANDSHAKE_TIMEOUT
    stopped_since: float | None = None
    data = b""
    while b"\n" not in data:
        now = time.monotonic()
        if now >= deadline:
            raise TimeoutError
        sock.settimeout(min(STOPPED_CHECK, deadline - now))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            if pid is None or not process_stopped(pid):
                stopped_since = None
                if say is not None and time.monotonic() - start >= SLOW_AFTER:
                    who = f" (pid {pid})" if pid is not None else ""
                    say(
                        f"dsh: the host of session {session_id}{who} has not answered for {SLOW_AFTER:.0f} s; "
                        f"waiting up to {HANDSHAKE_TIMEOUT:.0f} s ({way_out}, dsh stop {session_id} ends it)"
                    )
                    say = None
                continue
            now = time.monotonic()
            stopped_since = now if stopped_since is None else stopped_since
            if now - stopped_since >= STOPPED_FOR:
                raise HostStopped(session_id, pid) from None
            continue
        if not chunk:
            raise AttachError(f"the host of session {session_id} closed the connection")
        data += chunk
        if len(data) > protocol.HELLO_MAX:
            raise AttachError(f"the host of session {session_id} did not answer like a dsh host")
    return data


def client_env() -> dict[str, str]:
    return {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}


class Attachment:
    """A handshaken connection to one session's host."""

    def __init__(self, sock: socket.socket, session_id: str, welcome: dict[str, Any], rest: bytes) -> None:
        self.sock = sock
        self.session_id = session_id
        self.welcome = welcome
        self.frames = protocol.FrameReader()
        self._early = rest  # bytes that came with the welcome line: the first frames
        # Work the client owes but the user need not wait for (starting the spawner): run by the pump
        # once the session is on screen.
        self.later: list[Callable[[], None]] = []
        # A host that answers pings (older ones do not: their silence is never taken for a wedge), and
        # the keys that detach from it, which the client then reads itself.
        self.pings = welcome.get("ping") is True
        self.detach_keys = detach_keys_of(welcome.get("detach")) or DEFAULT_DETACH

    @classmethod
    def open(
        cls,
        sock: socket.socket,
        session_id: str,
        *,
        rows: int,
        cols: int,
        intent: dict[str, Any] | None = None,
        say: Callable[[str], None] | None = None,
        way_out: str = "C-c gives up",
    ) -> Attachment:
        """Send the hello and read the host's answer; AttachError with the host's words if it refuses.
        `say` gets a line while a slow host keeps the user waiting (see _read_answer)."""
        try:
            sock.settimeout(HANDSHAKE_TIMEOUT)
            sock.sendall(protocol.hello(rows=rows, cols=cols, env=client_env(), pid=os.getpid(), intent=intent))
            data = _read_answer(sock, session_id, say, way_out)
        except TimeoutError as exc:
            sock.close()
            raise AttachError(f"the host of session {session_id} did not answer in {HANDSHAKE_TIMEOUT:.0f} s") from exc
        except OSError as exc:
            sock.close()
            raise AttachError(f"cannot talk to the host of session {session_id}: {exc.strerror or exc}") from exc
        except AttachError:
            sock.close()
            raise
        line, _, rest = data.partition(b"\n")
        try:
            answer = protocol.decode_line(line)
        except protocol.ProtocolError as exc:
            sock.close()
            raise AttachError(f"the host of session {session_id} did not answer like a dsh host ({exc})") from exc
        if answer.get("protocol") != protocol.PROTOCOL_VERSION and not answer.get("ok"):
            sock.close()
            raise VersionMismatch(
                protocol.version_mismatch(protocol.PROTOCOL_VERSION, answer.get("protocol"), we_are="client"),
                answer.get("protocol"),
            )
        if not answer.get("ok"):
            sock.close()
            raise AttachError(str(answer.get("error") or "the host refused"))
        sock.settimeout(None)
        return cls(sock, session_id, answer, rest)

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()

    def leave(self, timeout: float = 2.0) -> None:
        """Close after a last message, letting the host read it: closing a Unix socket with the host's
        output still unread would reset the connection, and the host would lose what we said."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)
            self.sock.settimeout(timeout)
            while self.sock.recv(_READ):
                pass  # the screen of the session being left: not shown
        self.close()


class Pump:
    """The attached loop: stdin → host, host → stdout, SIGWINCH → size, SIGTSTP → suspend."""

    def __init__(self, terminal: RawTerminal, *, stdin: int = 0, stdout: int = 1) -> None:
        self.terminal = terminal
        self.stdin = stdin
        self.stdout = stdout
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._old_handlers: dict[int, Any] = {}
        self.drawn = False  # whether the host has drawn anything (so the terminal needs a reset)
        self._shown_at: float | None = None  # when the current attachment's first output came
        self._unanswered: float | None = None  # when keys went out with nothing heard since
        self._pinged = False
        self._wedged = False
        self._typed = b""  # the last keys typed while the host is wedged (a detach split over reads)
        self._written_over = False  # a line of the client's own is on the host's screen (say)

    def __enter__(self) -> Pump:
        # warn_on_full_buffer=False: a storm of SIGWINCH must not print over the screen.
        self._old_wakeup = signal.set_wakeup_fd(self._wake_w, warn_on_full_buffer=False)
        for signum in (
            signal.SIGWINCH,
            signal.SIGTERM,
            signal.SIGHUP,
            signal.SIGINT,
            signal.SIGTSTP,
            signal.SIGCONT,
            signal.SIGQUIT,
        ):
            self._old_handlers[signum] = signal.signal(signum, _noop)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.set_wakeup_fd(self._old_wakeup)
        for signum, handler in self._old_handlers.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(signum, handler)
        os.close(self._wake_r)
        os.close(self._wake_w)

    def run(self, attachment: Attachment, on_switch: SwitchHandler) -> Outcome:
        """Pump until the host ends this attachment; a switch hands back the next attachment."""
        sel = selectors.DefaultSelector()
        sel.register(self.stdin, selectors.EVENT_READ, "stdin")
        sel.register(attachment.sock, selectors.EVENT_READ, "host")
        sel.register(self._wake_r, selectors.EVENT_READ, "signal")
        self._shown_at = None
        self._unanswered, self._pinged, self._wedged = None, False, False
        try:
            if attachment._early:
                early, attachment._early = attachment._early, b""
                outcome = self._from_host(attachment, early, on_switch)
                if outcome is not None:
                    return outcome
            while True:
                events = sel.select(self._timeout(attachment))
                if self._later_due(attachment, paused=not events):
                    self._run_later(attachment)
                outcome = self._watch(attachment)
                if outcome is not None:
                    return outcome
                for key, _ in events:
                    outcome = self._ready(key.data, attachment, on_switch)
                    if outcome is not None:
                        return outcome
        finally:
            sel.close()

    def _later_timeout(self, attachment: Attachment) -> float | None:
        return _LATER_PAUSE if attachment.later and self._shown_at is not None else None

    def _timeout(self, attachment: Attachment) -> float | None:
        later = self._later_timeout(attachment)
        if self._unanswered is None or self._wedged or not attachment.pings:
            return later
        due = self._unanswered + (WEDGED_AFTER if self._pinged else PING_AFTER) - time.monotonic()
        return max(0.01, due) if later is None else max(0.01, min(later, due))

    def _watch(self, attachment: Attachment) -> Outcome | None:
        """Keys unanswered: ping the host, and when it stays silent, say so and how to leave."""
        if self._unanswered is None or self._wedged or not attachment.pings:
            return None
        silent = time.monotonic() - self._unanswered
        if not self._pinged and silent >= PING_AFTER:
            self._pinged = True
            return self._to_host(attachment, protocol.control(protocol.ToHost.PING))
        if self._pinged and silent >= WEDGED_AFTER:
            self._wedged = True
            pid = attachment.welcome.get("pid")
            who = f" (pid {pid})" if isinstance(pid, int) else ""
            keys = _key_names(attachment.detach_keys)
            self.say(f"dsh: the session host{who} is not answering; {keys} detaches (the session stays)")
        return None

    def say(self, line: str) -> None:
        """A line of the client's own over the host's screen (the host is not answering): on the bottom
        line, in reverse video, the cursor put back; the host is asked to draw it all again after."""
        from dsh.text import sanitize

        self._written_over = True
        with contextlib.suppress(OSError):
            write_all(self.stdout, f"\x1b7\x1b[999;1H\x1b[2K\x1b[7m {sanitize(line)} \x1b[m\x1b8".encode())

    def _heard(self, attachment: Attachment) -> Outcome | None:
        """Something came from the host: it is there. Once it was taken for wedged, it draws it all."""
        self._unanswered, self._pinged = None, False
        if self._wedged:
            self._wedged = False
            return self._to_host(attachment, protocol.control(protocol.ToHost.REDRAW))
        return None

    def _wedged_keys(self, attachment: Attachment, data: bytes) -> Outcome | None:
        """Keys typed while the host is silent: its detach keys are read here, as the host would."""
        self._typed = (self._typed + data)[-16:]
        if attachment.detach_keys not in self._typed:
            return None
        sid = attachment.session_id
        pid = attachment.welcome.get("pid")
        host = f"its host (pid {pid})" if isinstance(pid, int) else "its host"
        message = (
            f"detached from session {sid}: {host} was not answering. dsh attach {sid} when it is back "
            f"(kill -CONT {pid} if it was stopped; kill {pid} ends it, its snapshot kept)"
            if isinstance(pid, int)
            else f"detached from session {sid}: {host} was not answering. dsh attach {sid} when it is back"
        )
        self.reset_screen()  # the host cannot put the terminal back: its modes are undone here
        return Outcome(OutcomeKind.EXIT, 0, message)

    def _later_due(self, attachment: Attachment, *, paused: bool) -> bool:
        if not attachment.later or self._shown_at is None:
            return False
        return paused or time.monotonic() > self._shown_at + _LATER_AT_MOST

    def _run_later(self, attachment: Attachment) -> None:
        work, attachment.later = attachment.later, []
        for job in work:
            job()

    def _ready(self, what: str, attachment: Attachment, on_switch: SwitchHandler) -> Outcome | None:
        if what == "stdin":
            try:
                data = os.read(self.stdin, 65536)
            except (BlockingIOError, InterruptedError):
                return None
            except OSError:
                data = b""
            if not data:  # the terminal is gone: leave the session running
                return Outcome(OutcomeKind.SIGNAL, 0)
            if self._wedged:
                outcome = self._wedged_keys(attachment, data)
                if outcome is not None:
                    return outcome
            elif self._unanswered is None:
                self._unanswered = time.monotonic()
            return self._to_host(attachment, protocol.frame(protocol.INPUT, data))
        if what == "host":
            try:
                data = attachment.sock.recv(_READ)
            except (BlockingIOError, InterruptedError):
                return None
            except OSError:
                data = b""
            if not data:
                return Outcome(OutcomeKind.LOST, 1)
            outcome = self._heard(attachment)
            if outcome is not None:
                return outcome
            return self._from_host(attachment, data, on_switch)
        return self._signals(attachment)

    def _to_host(self, attachment: Attachment, data: bytes) -> Outcome | None:
        try:
            attachment.send(data)
        except OSError:
            return Outcome(OutcomeKind.LOST, 1)
        return None

    def _from_host(self, attachment: Attachment, data: bytes, on_switch: SwitchHandler) -> Outcome | None:
        try:
            frames = list(attachment.frames.feed(data))
        except protocol.ProtocolError:
            return Outcome(OutcomeKind.LOST, 1, "the session host sent something this dsh cannot read")
        for kind, payload in frames:
            if kind == protocol.OUTPUT:
                self.drawn = True
                if self._shown_at is None:
                    self._shown_at = time.monotonic()
                try:
                    write_all(self.stdout, payload)
                except OSError:
                    return Outcome(OutcomeKind.SIGNAL, 0)
            elif kind == protocol.CONTROL:
                outcome = self._control(attachment, payload, on_switch)
                if outcome is not None:
                    return outcome
        return None

    def _control(self, attachment: Attachment, payload: bytes, on_switch: SwitchHandler) -> Outcome | None:
        try:
            kind, message = protocol.parse_control(payload, protocol.ToClient.ALL)
        except protocol.ProtocolError:
            return None  # not a message of this protocol's: passed over
        if kind == protocol.ToClient.EXIT:
            code, text = message.get("code"), message.get("message")
            code, text = (code if isinstance(code, int) else 0), (text if isinstance(text, str) else "")
            return Outcome(OutcomeKind.EXIT, code, text)
        if kind == protocol.ToClient.SWITCH:
            session_id, cwd, argv = message.get("session"), message.get("cwd"), message.get("argv")
            if argv is not None and not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
                return None
            if not isinstance(cwd, str) or not (isinstance(session_id, str) or (session_id is None and argv)):
                return None
            try:
                from_cwd = os.getcwd()
            except OSError:
                from_cwd = ""
            result = on_switch(session_id, cwd, from_cwd, argv)
            if isinstance(result, str):
                outcome = self._to_host(attachment, protocol.control(protocol.ToHost.SWITCH_FAILED, error=result))
                if outcome is None and self._written_over:  # the waiting line said over its screen
                    self._written_over = False
                    outcome = self._to_host(attachment, protocol.control(protocol.ToHost.REDRAW))
                return outcome
            self._written_over = False
            self._to_host(attachment, protocol.control(protocol.ToHost.LEAVE))
            attachment.leave()
            return Outcome(OutcomeKind.SWITCH, next=result)
        if kind == protocol.ToClient.DETACH_KEYS:  # a /reload changed them
            attachment.detach_keys = detach_keys_of(message.get("keys")) or attachment.detach_keys
            return None
        if kind == protocol.ToClient.REMOTE:
            argv = message.get("argv")
            if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
                return None
            self._to_host(attachment, protocol.control(protocol.ToHost.LEAVE))
            attachment.leave()
            return Outcome(OutcomeKind.REMOTE, argv=argv)
        return None

    def _signals(self, attachment: Attachment) -> Outcome | None:
        try:
            raised = os.read(self._wake_r, 512)
        except (BlockingIOError, InterruptedError):
            return None
        resize = False
        for signum in raised:
            if signum == signal.SIGWINCH:
                resize = True
            elif signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):
                return Outcome(OutcomeKind.SIGNAL, 128 + signum)
            elif signum == signal.SIGTSTP:
                self._suspend()
                resize = True
                outcome = self._to_host(attachment, protocol.control(protocol.ToHost.REDRAW))
                if outcome is not None:
                    return outcome
        if resize:
            rows, cols = window_size(self.stdout)
            return self._to_host(attachment, protocol.size(rows, cols))
        return None

    def _suspend(self) -> None:
        """Stop as a job should: the terminal put back first, raw mode again when continued."""
        self.reset_screen()
        self.terminal.restore()
        previous = signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        try:
            os.kill(os.getpid(), signal.SIGTSTP)  # stops here until SIGCONT
        finally:
            signal.signal(signal.SIGTSTP, previous)
        self.terminal.enter()

    def reset_screen(self) -> None:
        """Put the terminal's modes back (the host may have died mid-frame, or we are stopping)."""
        if self.drawn:
            with contextlib.suppress(OSError):
                write_all(self.stdout, RESET_MODES.encode())


def _key_names(keys: bytes) -> str:
    """`C-b d` for b"\\x02d": the keys as a user presses them."""
    names = [f"C-{chr(byte + 96)}" if 0 < byte < 27 else chr(byte) for byte in keys]
    return " ".join(names)


def _noop(signum: int, frame: object) -> None:
    """The wake-up fd carries the signal to the loop; nothing to do in the handler itself."""


def stop_host(sock: socket.socket, session_id: str) -> dict[str, Any]:
    """Ask a host to end its session (`dsh stop`); its welcome, or AttachError."""
    attachment = Attachment.open(sock, session_id, rows=24, cols=80, intent={"kind": protocol.IntentKind.STOP})
    try:
        attachment.sock.settimeout(5.0)
        with contextlib.suppress(OSError):
            while attachment.sock.recv(65536):
                pass
    finally:
        attachment.close()
    return attachment.welcome


__all__ = ["AttachError", "Attachment", "HostStopped", "Outcome", "Pump", "connect", "stop_host"]
