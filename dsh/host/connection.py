"""One attached client inside the host: frames in from its socket, a view of the session, frames out."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output.color_depth import ColorDepth
from prompt_toolkit.output.vt100 import Vt100_Output

from dsh import protocol
from dsh.ui.app import Announcement, DshApp, Switch, ViewOptions, ViewResult

if TYPE_CHECKING:
    from dsh.session.session import Session

logger = logging.getLogger(__name__)

READ_SIZE = 65536


def color_depth_for(env: dict[str, str]) -> ColorDepth:
    """The colour depth of a client's terminal, from the variables it brought (as prompt_toolkit would
    read them from its own environment): NO_COLOR, PROMPT_TOOLKIT_COLOR_DEPTH, COLORTERM, TERM."""
    if "NO_COLOR" in env:
        return ColorDepth.DEPTH_1_BIT
    forced = env.get("PROMPT_TOOLKIT_COLOR_DEPTH", "")
    if forced in ColorDepth.__members__:
        return ColorDepth[forced]
    if env.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return ColorDepth.DEPTH_24_BIT
    term = env.get("TERM", "")
    if term in ("dumb", "unknown") or term.startswith("dumb"):
        return ColorDepth.DEPTH_1_BIT
    if term == "linux":
        return ColorDepth.DEPTH_4_BIT
    return ColorDepth.DEPTH_8_BIT


class _FrameStdout:
    """What Vt100_Output writes to: each flush of a rendered frame becomes one OUTPUT frame."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._buffer: list[str] = []

    def write(self, data: str) -> int:
        self._buffer.append(data)
        return len(data)

    def flush(self) -> None:
        if not self._buffer:
            return
        data = "".join(self._buffer).encode("utf-8", "replace")
        self._buffer.clear()
        if not self._writer.is_closing():
            self._writer.write(protocol.frame(protocol.OUTPUT, data))

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("a client connection has no file descriptor")


class _PipeFeeder:
    """Key bytes into the view's pipe input without ever blocking the loop (a big paste fills a pipe)."""

    def __init__(self, pipe: PipeInput, loop: asyncio.AbstractEventLoop) -> None:
        self._fd: int = pipe.pipe.write_fd  # type: ignore[attr-defined]
        os.set_blocking(self._fd, False)
        self._loop = loop
        self._queue = bytearray()

    def send(self, data: bytes) -> None:
        if self._queue:
            self._queue += data
            return
        try:
            written = os.write(self._fd, data)
        except BlockingIOError:
            written = 0
        except OSError:
            return
        if written < len(data):
            self._queue += data[written:]
            self._loop.add_writer(self._fd, self._drain)

    def _drain(self) -> None:
        try:
            written = os.write(self._fd, self._queue)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._queue)
        del self._queue[:written]
        if not self._queue:
            self._loop.remove_writer(self._fd)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._loop.remove_writer(self._fd)


class Connection:
    """A client attached to the host: runs one view of the session until it detaches, leaves or is gone."""

    def __init__(
        self,
        session: Session,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        hello: dict[str, Any],
        *,
        announcements: list[Announcement],
        open_picker: bool = False,
    ) -> None:
        self.session = session
        self.reader = reader
        self.writer = writer
        self.hello = hello
        self.rows = int(hello.get("rows") or 24)
        self.cols = int(hello.get("cols") or 80)
        env = hello.get("env")
        self.env: dict[str, str] = {k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {}
        self.client_pid = hello.get("pid") if isinstance(hello.get("pid"), int) else None
        self.view: DshApp | None = None
        self.result = ViewResult("gone")
        self._announcements = announcements
        self._open_picker = open_picker
        self._switch: Switch | None = None
        self._exit_message: str | None = None
        self.done = asyncio.Event()

    # -- what the server asks of it ---------------------------------------------------------------
    def end(self, message: str | None) -> None:
        """End this client (another terminal took the session over, or the session ended): say why, go."""
        if message is not None:
            self._exit_message = message
        view = self.view
        if view is not None and view.result.reason not in ("ended", "switch", "detached"):
            view.result = ViewResult("taken")
            view.exit()

    def say_on_exit(self, message: str) -> None:
        """The line the client prints when this attachment ends (e.g. `dsh stop` ended the session)."""
        self._exit_message = message

    # -- running -----------------------------------------------------------------------------------
    async def run(self) -> ViewResult:
        session = self.session
        session.update_environment(self.env)
        try:
            with create_pipe_input() as pipe:
                feeder = _PipeFeeder(pipe, asyncio.get_running_loop())
                output = Vt100_Output(
                    _FrameStdout(self.writer),  # type: ignore[arg-type]
                    lambda: Size(rows=self.rows, columns=self.cols),
                    term=self.env.get("TERM") or "xterm-256color",
                    enable_cpr=False,
                )
                with create_app_session(input=pipe, output=output):
                    view = self.view = DshApp(session, ViewOptions(
                        announcements=self._announcements,
                        open_picker=self._open_picker,
                        color_depth=color_depth_for(self.env),
                        on_switch=self._ask_switch,
                    ))
                    reading = asyncio.ensure_future(self._read(feeder))
                    try:
                        self.result = await view.run_async()
                    finally:
                        reading.cancel()
                        feeder.close()
        except Exception as exc:
            # A bug in the view ends this client, not the session: its programs run on, detached.
            logger.exception("client view failed")
            from dsh.rundir import host_log_path

            sid = self.session.log.id
            self.result = ViewResult("failed")
            self._exit_message = (
                f"dsh: internal error: {exc.__class__.__name__}: {exc} (details in {host_log_path(sid)}); "
                f"the session runs on: dsh attach {sid}"
            )
        self._say_goodbye()
        self.done.set()
        return self.result

    def _say_goodbye(self) -> None:
        writer = self.writer
        result = self.result
        if result.reason == "detached":
            sid = self.session.log.id
            message = f"detached from {self.session.display_title} ({sid}) — dsh attach {sid}"
            self._send(protocol.control("exit", code=0, message=message))
        elif result.reason == "ended":
            self._send(protocol.control("exit", code=0, message=self._exit_message or ""))
        elif result.reason == "taken":
            self._send(protocol.control("exit", code=0, message=self._exit_message or ""))
        elif result.reason == "failed":
            self._send(protocol.control("exit", code=1, message=self._exit_message or ""))
        with contextlib.suppress(Exception):
            writer.close()

    def _send(self, data: bytes) -> None:
        if not self.writer.is_closing():
            with contextlib.suppress(Exception):
                self.writer.write(data)

    def _ask_switch(self, switch: Switch) -> None:
        """/resume chose another session: the client starts or finds its host, then says `leave`."""
        self._switch = switch
        self._send(protocol.control("switch", session=switch.session_id, cwd=switch.cwd))

    async def _read(self, feeder: _PipeFeeder) -> None:
        frames = protocol.FrameReader()
        try:
            while True:
                data = await self.reader.read(READ_SIZE)
                if not data:
                    break
                for kind, payload in frames.feed(data):
                    self._handle(kind, payload, feeder)
        except protocol.ProtocolError as exc:
            logger.warning("client sent a bad frame: %s", exc)
        except (ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            return
        # The client is gone (closed its terminal, was killed): the session runs on, detached.
        view = self.view
        if view is not None and view.result.reason not in ("switch", "taken"):
            view.result = ViewResult("gone")
            view.exit()

    def _handle(self, kind: bytes, payload: bytes, feeder: _PipeFeeder) -> None:
        view = self.view
        if kind == protocol.INPUT:
            feeder.send(payload)
        elif kind == protocol.SIZE:
            self.rows, self.cols = protocol.parse_size(payload)
            if view is not None and view.application.is_running:
                view.application._on_resize()
        elif kind == protocol.CONTROL:
            message = protocol.parse_json(payload)
            kind_ = message.get("type")
            if kind_ == "leave" and view is not None and self._switch is not None:
                view.result = ViewResult("switch", self._switch)
                view.exit()
            elif kind_ == "switch_failed" and view is not None:
                self._switch = None
                error = message.get("error")
                view.switch_failed(str(error) if error else "could not move to that session")
            elif kind_ == "redraw" and view is not None and view.application.is_running:
                view.application.renderer.reset(leave_alternate_screen=True)
                view.application.invalidate()
