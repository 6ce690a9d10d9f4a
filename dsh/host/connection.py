"""One attached client inside the host: frames in from its socket, a view of the session, frames out."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from dsh import protocol
from dsh.session.view_records import EndReason

if TYPE_CHECKING:
    from dsh.session.session import Session

logger = logging.getLogger(__name__)

READ_SIZE = 65536


class ViewHandle(Protocol):
    """What a connection needs of the view running for it (dsh.ui.remote provides one)."""

    @property
    def reason(self) -> EndReason:
        """Why the view ended or is ending (RUNNING while it runs)."""

    def feed(self, data: bytes) -> None:
        """Key bytes from the client."""

    def resized(self) -> None:
        """The client's window changed size (read it from the connection)."""

    def redraw(self) -> None:
        """The client's terminal was reset: draw everything again."""

    def end(self, reason: EndReason) -> None:
        """End the view now, for `reason` (taken, gone, switch, detached)."""

    def switch_failed(self, error: str) -> None:
        """The client could not move to the session asked for."""


# Runs one view of the session for a connection until it ends; returns why it ended.
RunView = Callable[["Session", "Connection"], Awaitable[EndReason]]


class Connection:
    """A client attached to the host: frames in and out, one view of the session, and a goodbye."""

    def __init__(
        self,
        session: Session,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        hello: dict[str, Any],
        *,
        announcements: list[str],
        open_picker: bool = False,
    ) -> None:
        self.session = session
        self.reader = reader
        self.writer = writer
        self.hello = hello
        self.rows, self.cols = protocol.window_size(hello.get("rows", 24), hello.get("cols", 80))
        env = hello.get("env")
        self.env: dict[str, str] = {k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {}
        self.client_pid = hello.get("pid") if isinstance(hello.get("pid"), int) else None
        self.announcements = announcements
        self.open_picker = open_picker
        self.read_only = False  # `dsh attach -r`: its keys are ignored but the prefix and detach
        self.view: ViewHandle | None = None
        self._early_input = bytearray()  # keys typed before the view was up: typed ahead, not lost
        self.reason = EndReason.GONE
        self._switch: tuple[str, str] | None = None
        self._remote = False
        self._exit_message: str | None = None
        self.done = asyncio.Event()

    # -- what the server asks of it ---------------------------------------------------------------
    def end(self, message: str | None) -> None:
        """End this client (another terminal took the session over, or the session ended): say why, go."""
        if message is not None:
            self._exit_message = message
        view = self.view
        if view is not None and view.reason not in (EndReason.ENDED, EndReason.SWITCH, EndReason.DETACHED):
            view.end(EndReason.TAKEN)

    def say_on_exit(self, message: str) -> None:
        """The line the client prints when this attachment ends (e.g. `dsh stop` ended the session)."""
        self._exit_message = message

    # -- what the view asks of it -----------------------------------------------------------------
    def attach_view(self, view: ViewHandle) -> None:
        """The view is up: from now on keys go to it (those typed ahead first)."""
        self.view = view
        if self._early_input:
            early, self._early_input = bytes(self._early_input), bytearray()
            view.feed(early)

    def write_output(self, data: bytes) -> None:
        """A rendered frame for the client's terminal."""
        if not self.writer.is_closing():
            self.writer.write(protocol.frame(protocol.OUTPUT, data))

    def request_switch(self, session_id: str | None, cwd: str, first_argv: list[str] | None = None) -> None:
        """/resume chose another session: the client starts or finds its host, then says `leave`. With no
        id, a new session in `cwd` whose first pane runs `first_argv` (an agent conversation from /resume)."""
        self._switch = (session_id or "", cwd)
        if first_argv:
            self._send(protocol.control(protocol.ToClient.SWITCH, session=session_id, cwd=cwd, argv=list(first_argv)))
        else:
            self._send(protocol.control(protocol.ToClient.SWITCH, session=session_id, cwd=cwd))

    def send_detach_keys(self, keys: str) -> None:
        """The keys that detach changed (a /reload): the client reads these itself when the host is stuck."""
        self._send(protocol.control(protocol.ToClient.DETACH_KEYS, keys=keys))

    def request_remote(self, argv: list[str]) -> None:
        """Enter on another machine's row: the client says `leave`, runs `argv` (ssh there) with the
        terminal, and attaches this session again when it ends; the session is kept, detached."""
        self._switch = ("", "")
        self._remote = True
        self._send(protocol.control(protocol.ToClient.REMOTE, argv=list(argv)))

    # -- running -----------------------------------------------------------------------------------
    async def run(self, run_view: RunView) -> EndReason:
        self.session.update_environment(self.env)
        reading = asyncio.ensure_future(self._read())
        try:
            self.reason = await run_view(self.session, self)
        except Exception as exc:
            # A bug in the view ends this client, not the session: its programs run on, detached.
            logger.exception("client view failed")
            from dsh.rundir import host_log_path

            sid = self.session.log.id
            self.reason = EndReason.FAILED
            self._exit_message = (
                f"dsh: internal error: {exc.__class__.__name__}: {exc} (details in {host_log_path(sid)}); "
                f"the session runs on: dsh attach {sid}"
            )
        finally:
            reading.cancel()
            self.view = None
        self._say_goodbye()
        self.done.set()
        return self.reason

    def _say_goodbye(self) -> None:
        reason = self.reason
        if reason is EndReason.DETACHED:
            sid = self.session.log.id
            message = f"detached from {self.session.display_title} ({sid}) — dsh attach {sid}"
            self._send(protocol.control(protocol.ToClient.EXIT, code=0, message=message))
        elif reason is EndReason.ENDED or reason is EndReason.TAKEN:
            self._send(protocol.control(protocol.ToClient.EXIT, code=0, message=self._exit_message or ""))
        elif reason is EndReason.FAILED:
            self._send(protocol.control(protocol.ToClient.EXIT, code=1, message=self._exit_message or ""))
        with contextlib.suppress(Exception):
            self.writer.close()

    def _send(self, data: bytes) -> None:
        if not self.writer.is_closing():
            with contextlib.suppress(Exception):
                self.writer.write(data)

    async def _read(self) -> None:
        frames = protocol.FrameReader(protocol.CLIENT_FRAME_MAX)
        try:
            while True:
                data = await self.reader.read(READ_SIZE)
                if not data:
                    break
                for kind, payload in frames.feed(data):
                    try:
                        self._handle(kind, payload)
                    except protocol.ProtocolError as exc:
                        # A bad size or control message in a well-framed stream: passed over, the
                        # client still served (a stream that lost its framing ends below).
                        logger.warning("client sent a bad %r frame: %s", kind, exc)
                    except Exception:
                        # One frame the view could not take (a bug, odd input) is dropped; the socket
                        # is still read, or keys would wedge and the client's EOF go unnoticed.
                        logger.exception("client frame %r dropped", kind)
        except protocol.ProtocolError as exc:
            logger.warning("client sent a bad frame: %s", exc)
        except (ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            return
        # The client is gone (closed its terminal, was killed): the session runs on, detached.
        view = self.view
        if view is not None and view.reason in (EndReason.RUNNING, EndReason.GONE):
            view.end(EndReason.GONE)

    def _handle(self, kind: bytes, payload: bytes) -> None:
        view = self.view
        if kind == protocol.INPUT:
            if view is not None:
                view.feed(payload)
            elif len(self._early_input) < protocol.FRAME_MAX:
                self._early_input += payload
        elif kind == protocol.SIZE:
            self.rows, self.cols = protocol.parse_size(payload)
            if view is not None:
                view.resized()
        elif kind == protocol.CONTROL:
            kind_, message = protocol.parse_control(payload, protocol.ToHost.ALL)  # another type: refused
            if kind_ == protocol.ToHost.LEAVE and view is not None and self._switch is not None:
                # A hop to another machine comes back here: the session stays, as on a detach.
                view.end(EndReason.DETACHED if self._remote else EndReason.SWITCH)
            elif kind_ == protocol.ToHost.SWITCH_FAILED and view is not None:
                self._switch = None
                error = message.get("error")
                view.switch_failed(str(error) if error else "could not move to that session")
            elif kind_ == protocol.ToHost.REDRAW and view is not None:
                view.redraw()
            elif kind_ == protocol.ToHost.PING:
                self._send(protocol.control(protocol.ToClient.PONG))  # the client's keys went unanswered: still here
