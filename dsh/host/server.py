"""The host's socket: accept clients of this user only, check the handshake, attach one client at a time."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dsh import protocol
from dsh.home import home_location
from dsh.host.connection import Connection, RunView
from dsh.ownlog import LOG_FOLDER, stderr_to
from dsh.peer import peer_allowed, peer_uid
from dsh.session.attention import agent_rows
from dsh.session.view_records import EndReason

if TYPE_CHECKING:
    from dsh.commands.registry import Registry
    from dsh.session.file_watch import FileCheck
    from dsh.session.session import Session

logger = logging.getLogger(__name__)

HELLO_TIMEOUT = 5.0
# How often the host looks whether its socket is still there.
SOCKET_CHECK = 2.0


def remove_stale_socket(path: Path) -> None:
    """Remove a socket file nobody listens on; anything that is not a socket is left alone (and said)."""
    from dsh.rundir import RunDirError, connect_private

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise OSError(f"{path} exists and is not a socket")
    try:
        probe = connect_private(path, 1.0)  # a stale one is removed by it
    except RunDirError as exc:
        raise OSError(str(exc)) from exc
    except OSError:
        return
    if probe is not None:
        probe.close()
        raise OSError(f"another host already listens on {path}")


def _folder_key(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _socket_inode(path: Path) -> int | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_ino if stat.S_ISSOCK(info.st_mode) else None


class HostServer:
    """Listens on the session's socket; a new client takes the session over from the attached one."""

    def __init__(
        self,
        session: Session,
        path: Path,
        run_view: RunView,
        *,
        announcements: list[str] | None = None,
        open_picker: bool = False,
    ) -> None:
        self.session = session
        self.path = path
        self._run_view = run_view
        self.clients: list[Connection] = []  # attached now, in the order they came
        self._server: asyncio.AbstractServer | None = None
        # Said to the first client only: what the start of this host did (restored, moved …).
        self._first_announcements = list(announcements or [])
        self._first_open_picker = open_picker
        self._attach_lock = asyncio.Lock()
        self.attaches = 0
        self._detached: float | None = None  # when the last client left, by the monotonic clock
        # dsh.host.control's, made by its first request: the verbs' slots and the slash commands it runs.
        self.control_slots: asyncio.Semaphore | None = None
        self.control_registry: Registry | None = None
        session.after_reload.append(self._reloaded)

    def _reloaded(self) -> None:
        """A /reload may have changed the prefix: each client learns the keys that now detach."""
        keys = _detach_keys(self.session.config).decode("latin-1")
        for client in self.clients:
            client.send_detach_keys(keys)

    @property
    def detached_at(self) -> float | None:
        """When the last client left (for `dsh attach`'s choice of the newest detached session), in
        today's wall-clock time: worked out from how long ago it was, so that hosts asked together
        order their sessions right even after the clock was set back or forward between detaches."""
        if self._detached is None:
            return None
        return time.time() - (time.monotonic() - self._detached)

    @property
    def current(self) -> Connection | None:
        """The client attached last (None: none is)."""
        return self.clients[-1] if self.clients else None

    async def start(self) -> None:
        from dsh.rundir import RunDirError, bind_private

        remove_stale_socket(self.path)
        try:
            listener = bind_private(self.path)
        except RunDirError as exc:
            raise OSError(str(exc)) from exc
        try:
            # A backlog for bursts of scripting calls (dsh send in loops, 200 at once: tests/e2e/test_control.py).
            self._server = await asyncio.start_unix_server(
                self._accept, sock=listener, limit=protocol.HELLO_MAX + 1, backlog=512
            )
        except BaseException:
            listener.close()
            raise
        self._inode = _socket_inode(self.path)
        self._home = _folder_key(home_location())
        self._watch = asyncio.ensure_future(self._watch_socket())

    async def _watch_socket(self) -> None:
        """Notice the socket removed or replaced under the running host (a cleaner of /tmp or of the run
        dir, a user's rm), and the session's other files with it (a removed DSH_HOME): listen on a new
        socket, write the log and the snapshot again, and say so in one line."""
        failed = ""
        while not self.session.closing:
            await asyncio.sleep(SOCKET_CHECK)
            if self.session.closing:
                continue
            from dsh.session.file_watch import check_session_files  # a while after the first frame

            found = check_session_files(self.session)
            # Gone, or made again already (by a write of the log or the snapshot since the last look).
            home = _folder_key(home_location())
            home_gone, self._home = home != self._home, home
            if _socket_inode(self.path) != self._inode:
                try:
                    await self._listen_again()
                except Exception as exc:
                    found.errors.append(
                        f"this session's socket {self.path} is gone and cannot be made again ({exc}): "
                        "dsh attach will not find this session until it can"
                    )
                else:
                    found.made.append("socket")
            if _own_log_gone():
                found.made.append("host log")
            errors = "; ".join(found.errors)
            if errors and errors != failed:  # said once; tried again at every check
                self.session.announce(errors, error=True)
            failed = errors
            if found.made:
                self.session.announce(_made_again(found, home_gone, self.path))

    async def _listen_again(self) -> None:
        from dsh.rundir import RunDirError, bind_private, run_dir

        try:
            run_dir()  # made again (0700) if it was removed too
            remove_stale_socket(self.path)
            listener = bind_private(self.path)
        except RunDirError as exc:
            raise OSError(str(exc)) from exc
        try:
            server = await asyncio.start_unix_server(
                self._accept, sock=listener, limit=protocol.HELLO_MAX + 1, backlog=512
            )
        except BaseException:
            listener.close()
            raise
        old, self._server = self._server, server
        self._inode = _socket_inode(self.path)
        if old is not None:
            old.close()  # its clients stay connected; it accepts no more

    async def close(self) -> None:
        """Stop listening, end the attached client (the session has ended), remove the socket."""
        watch = getattr(self, "_watch", None)
        if watch is not None:
            watch.cancel()
        if self._server is not None:
            self._server.close()
        for client in list(self.clients):
            client.end(None)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(client.done.wait(), 2.0)
        with contextlib.suppress(OSError):
            if self._server is not None:
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve(reader, writer)
        except Exception:
            logger.exception("a client connection failed")
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        uid = peer_uid(sock) if sock is not None else None
        # Read the hello before answering even a refusal, so the peer's own write never meets a
        # closed socket and it gets to read why.
        try:
            line = await asyncio.wait_for(reader.readline(), HELLO_TIMEOUT)
        except (TimeoutError, ValueError, ConnectionError) as exc:
            line, error = b"", f"bad handshake: {exc or 'no answer'}"
        else:
            error = ""
        if not peer_allowed(uid):
            logger.warning("refused a client of uid %s", uid)
            writer.write(protocol.refusal("this session belongs to another user"))
            await _drain(writer)
            return
        try:
            if error:
                raise protocol.ProtocolError(error)
            hello = protocol.decode_line(line.rstrip(b"\n"))
        except protocol.ProtocolError as exc:
            writer.write(protocol.refusal(str(exc)))
            await _drain(writer)
            return
        if hello.get("protocol") != protocol.PROTOCOL_VERSION:
            writer.write(
                protocol.refusal(
                    protocol.version_mismatch(protocol.PROTOCOL_VERSION, hello.get("protocol"), we_are="host")
                )
            )
            await _drain(writer)
            return
        try:
            hello = protocol.check_hello(hello)
        except protocol.ProtocolError as exc:
            writer.write(protocol.refusal(str(exc)))
            await _drain(writer)
            return
        intent = hello["intent"]
        kind = protocol.intent_kind(intent)
        if kind == protocol.IntentKind.QUERY:
            # `dsh attach` with no id asks every host what it holds; no view is made for that.
            writer.write(
                protocol.welcome(
                    session=self.session.log.id,
                    pid=os.getpid(),
                    cwd=self.session.cwd,
                    attached=self.current is not None,
                    detached_at=self.detached_at,
                    title=(self.session.title or "")[: protocol.TEXT_MAX] or None,
                    agents=agent_rows(self.session),
                )
            )
            await _drain(writer)
            return
        if kind == protocol.IntentKind.CONTROL:
            # `dsh send`, `dsh list` …: one request, one reply, no view (dsh.host.control).
            from dsh.host.control import serve_control

            await serve_control(self, reader, writer)
            return
        if kind == protocol.IntentKind.STOP:
            await self._stop(writer)
            return
        if self.session.closing:
            writer.write(protocol.refusal("this session is ending"))
            await _drain(writer)
            return
        mode = protocol.attach_mode(intent)
        async with self._attach_lock:
            if mode == protocol.AttachMode.TAKEOVER:  # dsh attach -d: the others leave, told why
                others = list(self.clients)
                for previous in others:
                    previous.end(f"session {self.session.log.id} was attached from another terminal")
                for previous in others:
                    await previous.done.wait()
            connection = Connection(
                self.session,
                reader,
                writer,
                hello,
                announcements=self._announcements_for(intent),
                open_picker=self._first_open_picker and self.attaches == 0,
            )
            connection.read_only = mode == protocol.AttachMode.READONLY
            first = not self.clients
            self.clients.append(connection)
            self.attaches += 1
        writer.write(
            protocol.welcome(
                session=self.session.log.id,
                pid=os.getpid(),
                cwd=self.session.cwd,
                ping=True,
                detach=_detach_keys(self.session.config).decode("latin-1"),
            )
        )
        if first:  # the log says attached / detached for the session, not for each of its clients
            self.session.log_event("attach", client_pid=connection.client_pid)
        try:
            reason = await connection.run(self._run_view)
        finally:
            if connection in self.clients:
                self.clients.remove(connection)
        if not self.clients:
            self._detached = time.monotonic()
            if not self.session.closing:
                self.session.log_event("detach", reason=reason)
        if reason is EndReason.SWITCH and not (self.clients or self.session.closing or self.session.busy_panes()):
            # Left for another session with nothing running here and nobody else looking: close it, as
            # /quit would (another client still here keeps it, idle or not).
            self.session.quit()

    def _announcements_for(self, intent: dict[str, Any]) -> list[str]:
        out, self._first_announcements = self._first_announcements, []
        moved_from = intent.get("from_cwd")
        if isinstance(moved_from, str) and moved_from:
            # A /resume from another session: say where this one is, and whether that was a move.
            cwd, sid = self.session.cwd, self.session.log.id
            if os.path.realpath(moved_from) != os.path.realpath(cwd):
                out.append(f"moved to {cwd} (from {moved_from}) — resumed {sid}")
            else:
                out.append(f"resumed session {sid} in {cwd}")
        return out

    async def _stop(self, writer: asyncio.StreamWriter) -> None:
        """`dsh stop`: end the session as /quit would, telling an attached client why."""
        writer.write(protocol.welcome(session=self.session.log.id, pid=os.getpid()))
        for client in self.clients:
            client.say_on_exit(f"session {self.session.log.id} was stopped (dsh stop)")
        self.session.quit()
        await _drain(writer)


def _made_again(found: FileCheck, home_gone: bool, socket: Path) -> str:
    """One line for what a look found gone and made again."""
    if home_gone:
        return f"DSH_HOME {home_location()} was removed under this session: made again ({', '.join(found.made)})"
    if found.made == ["socket"]:
        return f"this session's socket {socket} was removed: listening on a new one"
    if found.made == ["log"] and len(found.lines) == 1:
        return found.lines[0]
    if found.made == ["snapshot"]:
        return "; ".join(found.lines) if found.lines else "this session's snapshot was removed: written again"
    return f"this session's files were removed: made again ({', '.join(found.made)})"


def _own_log_gone() -> bool:
    """A host's stderr (its log file) removed under it is opened again, at its path: True when so."""

    try:
        info = os.fstat(2)
        name = os.readlink("/proc/self/fd/2")
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 0 or f"/{LOG_FOLDER}/host-" not in name:
        return False
    base = os.path.basename(name.removesuffix(" (deleted)"))
    return stderr_to(base)


async def _drain(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer.drain(), 2.0)


def _detach_keys(config: Any) -> bytes:
    """The bytes of the keys that detach, for a client to read itself when this host stops answering:
    the prefix (a control letter) and the key bound to `detach` after it; C-b d when not that simple."""
    from dsh.commands.keymap import Keymap

    keymap, _ = Keymap.from_settings(config, known_commands={"detach"}, source="config.toml")
    name = keymap.prefix.lower()
    after = [key for key, line in keymap.prefix_bindings.items() if line.strip().lstrip("/") == "detach"]
    if len(name) == 3 and name.startswith("c-") and name[2].isalpha() and after and len(after[0]) == 1:
        return bytes([ord(name[2]) & 0x1F]) + after[0].encode("latin-1", "replace")
    return b"\x02d"
