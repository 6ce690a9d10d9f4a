"""The host's socket side in one process: a real session and view served to a raw protocol client."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest
from prompt_toolkit.output.color_depth import ColorDepth

from dsh import protocol
from dsh.config import load_config
from dsh.host.server import HostServer, remove_stale_socket
from dsh.peer import peer_allowed, peer_uid
from dsh.session.session import Session
from dsh.store.store import Store
from dsh.ui.remote import color_depth_for, run_remote_view


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("ENV", "")


class RawClient:
    """The client side of the protocol, by hand."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.frames = protocol.FrameReader()
        self.output = bytearray()
        self.controls: list[dict] = []

    @classmethod
    async def connect(cls, path: Path, **hello: object) -> tuple[RawClient, dict]:
        reader, writer = await asyncio.open_unix_connection(str(path))
        writer.write(protocol.hello(rows=24, cols=80, env={"TERM": "xterm-256color"}, pid=os.getpid(), **hello))  # type: ignore[arg-type]
        welcome = protocol.decode_line((await reader.readline()).rstrip(b"\n"))
        return cls(reader, writer), welcome

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    async def until(self, condition, what: str) -> None:  # type: ignore[no-untyped-def]
        async def pump() -> None:
            while not condition():
                data = await self.reader.read(65536)
                if not data:
                    raise AssertionError(f"connection closed waiting for {what}")
                for kind, payload in self.frames.feed(data):
                    if kind == protocol.OUTPUT:
                        self.output += payload
                    else:
                        self.controls.append(protocol.parse_json(payload))

        await asyncio.wait_for(pump(), 10)


async def serving(tmp_path: Path) -> tuple[Session, HostServer]:
    config = load_config()
    store = Store(config)
    session = Session(config=config, store=store, log=store.create_session(str(tmp_path)), cwd=str(tmp_path))
    server = HostServer(session, tmp_path / "s.sock", run_remote_view)
    await server.start()
    session.start()
    return session, server


def test_detach_over_the_socket_ends_the_view_not_the_session(tmp_path: Path) -> None:
    async def body() -> None:
        session, server = await serving(tmp_path)
        try:
            assert (tmp_path / "s.sock").stat().st_mode & 0o777 == 0o600
            client, welcome = await RawClient.connect(tmp_path / "s.sock")
            assert welcome["ok"] and welcome["session"] == session.log.id and welcome["cwd"] == str(tmp_path)
            # Typed before the first frame: kept, not lost.
            client.send(protocol.frame(protocol.INPUT, b"echo typed-ahead\r"))
            await client.until(lambda: b"PROMPT" in client.output, "the first frame")
            await client.until(lambda: b"typed-ahead" in client.output.replace(b"\x1b[", b""), "the echo")
            client.send(protocol.frame(protocol.INPUT, b"/detach\r"))
            await client.until(lambda: client.controls, "the exit message")
            (bye,) = client.controls
            assert bye["type"] == "exit" and bye["code"] == 0
            # Titled by the first line typed (the same rule dsh sessions uses).
            assert bye["message"] == f"detached from echo typed-ahead ({session.log.id}) — dsh attach {session.log.id}"
            assert not session.closing and session.active_pane is not None and session.active_pane.running
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_a_client_of_another_version_is_refused_and_the_session_unharmed(tmp_path: Path) -> None:
    async def body() -> None:
        session, server = await serving(tmp_path)
        try:
            reader, writer = await asyncio.open_unix_connection(str(tmp_path / "s.sock"))
            writer.write(b'{"dsh": "dsh", "protocol": 0}\n')
            answer = protocol.decode_line((await reader.readline()).rstrip(b"\n"))
            assert answer["ok"] is False and f"speaks dsh protocol {protocol.PROTOCOL_VERSION}" in answer["error"]
            assert await reader.read() == b""
            writer.close()
            client, welcome = await RawClient.connect(tmp_path / "s.sock")
            assert welcome["ok"]
            await client.until(lambda: b"PROMPT" in client.output, "the first frame")
            client.writer.close()
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_a_control_message_of_an_unknown_type_is_refused_and_the_client_still_served(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def body() -> None:
        session, server = await serving(tmp_path)
        try:
            client, _ = await RawClient.connect(tmp_path / "s.sock")
            await client.until(lambda: b"PROMPT" in client.output, "the first frame")
            client.send(protocol.frame(protocol.CONTROL, b'{"type": "bogus"}'))
            client.send(protocol.frame(protocol.CONTROL, b'{"type": "exit", "code": 0}'))  # the host's own
            client.send(protocol.control(protocol.ToHost.PING))
            await client.until(lambda: client.controls, "the pong")
            assert client.controls == [{"type": "pong"}]
            assert len(server.clients) == 1 and not session.closing
            refused = [r.getMessage() for r in caplog.records if "unknown control message type" in r.getMessage()]
            assert len(refused) == 2 and "'bogus'" in refused[0] and "'exit'" in refused[1], refused
            client.writer.close()
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_a_hello_whose_intent_is_not_a_string_is_refused_in_words(tmp_path: Path) -> None:
    async def body() -> None:
        session, server = await serving(tmp_path)
        try:
            for intent in ({"kind": ["attach"]}, {"attach": ["takeover"]}):
                reader, writer = await asyncio.open_unix_connection(str(tmp_path / "s.sock"))
                writer.write(protocol.hello(rows=24, cols=80, env={}, pid=os.getpid(), intent=intent))
                line = await asyncio.wait_for(reader.readline(), 5)
                answer = protocol.decode_line(line.rstrip(b"\n"))
                assert answer["ok"] is False and "unknown" in answer["error"], answer
                writer.close()
            assert not server.clients and not session.closing
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_a_client_attaching_with_takeover_ends_the_first_which_is_told(tmp_path: Path) -> None:
    async def body() -> None:
        session, server = await serving(tmp_path)
        try:
            first, _ = await RawClient.connect(tmp_path / "s.sock")
            await first.until(lambda: b"PROMPT" in first.output, "the first client's frame")
            second, _ = await RawClient.connect(tmp_path / "s.sock", intent={"attach": "takeover"})
            await first.until(lambda: first.controls, "the first client's exit")
            assert first.controls[0]["message"] == f"session {session.log.id} was attached from another terminal"
            await second.until(lambda: b"PROMPT" in second.output, "the second client's frame")
            assert server.attaches == 2
            second.writer.close()
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_only_the_same_uid_may_connect() -> None:
    assert peer_allowed(1000, own_uid=1000)
    assert not peer_allowed(1001, own_uid=1000)
    assert not peer_allowed(0, own_uid=1000)  # not even root: its panes would not be its own
    assert not peer_allowed(None, own_uid=1000)
    left, right = socket.socketpair(socket.AF_UNIX)
    try:
        assert peer_uid(left) == os.getuid()
    finally:
        left.close()
        right.close()


def _hello_as(uid: int, path: Path) -> str:
    """Connect to `path` from a child process running as `uid`, send a hello; the answer line."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        answer = b""
        try:
            os.close(read_fd)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            client = socket.socket(socket.AF_UNIX)
            client.settimeout(5)
            client.connect(str(path))
            client.sendall(protocol.hello(rows=24, cols=80, env={}, pid=os.getpid()))
            while not answer.endswith(b"\n"):
                chunk = client.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except BaseException as exc:
            answer = f"child failed: {exc!r}".encode()
        os.write(write_fd, answer or b"closed without an answer")
        os._exit(0)
    os.close(write_fd)
    try:
        os.waitpid(pid, 0)
        return os.read(read_fd, 65536).decode("utf-8", "replace")
    finally:
        os.close(read_fd)


def test_a_client_running_as_another_user_is_refused(tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("running a client as another user needs root here; the uid check is tested above")
    import tempfile

    # A folder the other user can reach (sessions' own run folder is 0700, which would stop it first):
    # here only the host's check of the peer's uid stands in the way.
    public = Path(tempfile.mkdtemp(prefix="dsh-peer-"))

    async def body() -> None:
        config = load_config()
        store = Store(config)
        session = Session(config=config, store=store, log=store.create_session(str(tmp_path)), cwd=str(tmp_path))
        server = HostServer(session, public / "s.sock", run_remote_view)
        await server.start()  # in a private folder (a host binds in no other)
        session.start()
        try:
            public.chmod(0o755)
            (public / "s.sock").chmod(0o777)
            answer = await asyncio.get_running_loop().run_in_executor(None, _hello_as, 65534, public / "s.sock")
            reply = protocol.decode_line(answer.strip().encode())
            assert reply.get("ok") is False and "another user" in str(reply.get("error")), answer
            assert server.attaches == 0
            mine, welcome = await RawClient.connect(public / "s.sock")  # its own user still gets in
            assert welcome["ok"]
            mine.writer.close()
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    try:
        asyncio.run(body())
    finally:
        import shutil

        shutil.rmtree(public, ignore_errors=True)


def test_a_stale_socket_is_removed_and_a_live_or_foreign_file_is_not(tmp_path: Path) -> None:
    stale = tmp_path / "stale.sock"
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(stale))
    dead.close()  # bound, never listening: nobody answers
    remove_stale_socket(stale)
    assert not stale.exists()
    live_path = tmp_path / "live.sock"
    live = socket.socket(socket.AF_UNIX)
    live.bind(str(live_path))
    live.listen()
    try:
        with pytest.raises(OSError, match="another host already listens"):
            remove_stale_socket(live_path)
    finally:
        live.close()
    regular = tmp_path / "file.sock"
    regular.write_text("not mine to remove")
    with pytest.raises(OSError, match="not a socket"):
        remove_stale_socket(regular)
    assert regular.read_text() == "not mine to remove"


@pytest.mark.parametrize(
    ("env", "depth"),
    [
        ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, ColorDepth.DEPTH_24_BIT),
        ({"TERM": "xterm-256color", "COLORTERM": "24bit"}, ColorDepth.DEPTH_24_BIT),
        ({"TERM": "xterm-256color"}, ColorDepth.DEPTH_8_BIT),
        ({"TERM": "linux"}, ColorDepth.DEPTH_4_BIT),
        ({"TERM": "dumb"}, ColorDepth.DEPTH_1_BIT),
        ({"TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "1"}, ColorDepth.DEPTH_1_BIT),
        ({"COLORTERM": "truecolor", "PROMPT_TOOLKIT_COLOR_DEPTH": "DEPTH_8_BIT"}, ColorDepth.DEPTH_8_BIT),
    ],
)
def test_each_client_gets_the_colour_depth_of_its_own_terminal(env: dict[str, str], depth: ColorDepth) -> None:
    assert color_depth_for(env) is depth


def test_a_malformed_mouse_report_neither_wedges_the_keys_nor_hides_the_clients_end(tmp_path: Path) -> None:
    async def body() -> None:
        session, server = await serving(tmp_path)
        try:
            client, _welcome = await RawClient.connect(tmp_path / "s.sock")
            await client.until(lambda: b"PROMPT" in client.output, "the first frame")
            # An SGR mouse report missing its row: prompt_toolkit's mouse binding raised on it, the
            # exception left the socket's reader, and every later key (and the client's end) was lost.
            client.send(protocol.frame(protocol.INPUT, b"\x1b[<0;12;M"))
            client.send(protocol.frame(protocol.INPUT, b"echo still-typing\r"))
            await client.until(lambda: b"still-typing" in client.output.replace(b"\x1b[", b""), "the echo")
            client.writer.close()  # the client is killed: its socket ends
            loop = asyncio.get_running_loop()
            end = loop.time() + 10
            while server.current is not None and loop.time() < end:
                await asyncio.sleep(0.01)
            assert server.current is None  # listed detached, not attached
            events = [line for line in session.log.path.read_text().splitlines() if '"detach"' in line]
            assert events and '"gone"' in events[-1]
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_several_clients_share_a_session_and_a_takeover_ends_them(tmp_path: Path) -> None:
    """Two clients at once: keys from both reach the pane, a read-only one's do not (and its status line
    does not say PROMPT), the panes take the smallest size, one leaving keeps the session attached, and a
    third with takeover ends the others."""
    from dsh.hostquery import query

    async def body() -> None:
        session, server = await serving(tmp_path)
        path = tmp_path / "s.sock"
        try:
            first, _ = await RawClient.connect(path)
            await first.until(lambda: b"PROMPT" in first.output, "the first client's frame")
            second, _ = await RawClient.connect(path)
            await second.until(lambda: b"PROMPT" in second.output, "the second client's frame")
            watcher, _ = await RawClient.connect(path, intent={"attach": "readonly"})
            await watcher.until(lambda: b"READ-ONLY" in watcher.output, "the read-only client's frame")
            assert b"PROMPT" not in watcher.output
            assert not first.controls and not second.controls  # nobody was taken over
            pane = next(iter(session.panes.values()))

            def shown(text: str) -> bool:
                return text in "\n".join(pane.terminal.screen.display)

            first.send(protocol.frame(protocol.INPUT, b"echo from-$((1+1))-first\r"))
            second.send(protocol.frame(protocol.INPUT, b"echo from-$((1+2))-second\r"))
            watcher.send(protocol.frame(protocol.INPUT, b"echo from-$((1+3))-watcher\r"))
            for text in ("from-2-first", "from-3-second"):
                await first.until(lambda text=text: shown(text), text)
            second.send(protocol.frame(protocol.INPUT, b"echo after-$((2+2))\r"))
            await first.until(lambda: shown("after-4"), "the second client's later line")
            assert not shown("from-4-watcher") and not shown("echo from-$((1+3))")

            # Each its own size: the panes fit the smallest (the second shrinks to 60x20).
            before = (pane.terminal.rows, pane.terminal.cols)
            second.send(protocol.size(20, 60))
            await first.until(lambda: pane.terminal.cols == 60, "the pane at the smaller width")
            assert pane.terminal.rows < before[0] and session.area.width == 60

            # One leaving: the others stay, the session is still attached, and the size grows back.
            second.writer.close()
            await first.until(lambda: len(server.clients) == 2, "the second client gone")
            await first.until(lambda: pane.terminal.cols == before[1], "the pane back at the larger width")
            answer = await asyncio.get_running_loop().run_in_executor(None, query, path)
            assert answer is not None and answer["attached"] is True
            assert '"detach"' not in session.log.path.read_text()

            third, _ = await RawClient.connect(path, intent={"attach": "takeover"})
            await first.until(lambda: first.controls, "the first client's exit")
            await watcher.until(lambda: watcher.controls, "the read-only client's exit")
            assert "attached from another terminal" in first.controls[0]["message"]
            await third.until(lambda: b"PROMPT" in third.output, "the third client's frame")
            assert len(server.clients) == 1
            third.writer.close()
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_a_client_leaving_for_another_session_closes_it_only_when_nobody_else_is_there(tmp_path: Path) -> None:
    async def body() -> None:
        session, server = await serving(tmp_path)
        path = tmp_path / "s.sock"
        try:
            first, _ = await RawClient.connect(path)
            second, _ = await RawClient.connect(path)
            for client in (first, second):
                await client.until(lambda client=client: b"PROMPT" in client.output, "a frame")

            async def leave(client: RawClient, connection) -> None:  # type: ignore[no-untyped-def]
                connection.request_switch("20261201T000000Z-abcdef", str(tmp_path))  # as /resume asks
                await client.until(lambda: client.controls, "the switch")
                assert client.controls[-1]["type"] == "switch"
                client.send(protocol.control(protocol.ToHost.LEAVE))
                await connection.done.wait()

            await leave(first, server.clients[0])
            assert not session.closing and len(server.clients) == 1  # idle, but the second is there
            await leave(second, server.clients[0])
            assert session.closing  # the last one gone, nothing running: closed as /quit would
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_a_socket_removed_under_the_host_is_made_again_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.host import server as server_module

    monkeypatch.setattr(server_module, "SOCKET_CHECK", 0.1)

    async def body() -> None:
        session, server = await serving(tmp_path)
        sock = tmp_path / "s.sock"
        try:
            client, _ = await RawClient.connect(sock)
            await client.until(lambda: b"PROMPT" in client.output, "the first frame")
            sock.unlink()  # a cleaner of the run dir, a user's rm
            await client.until(lambda: b"listening on a new one" in client.output, "the line saying so")
            assert sock.exists() and sock.stat().st_mode & 0o777 == 0o600
            reader, writer = await asyncio.open_unix_connection(str(sock))  # found again
            writer.write(protocol.hello(rows=1, cols=1, env={}, pid=os.getpid(), intent={"kind": "query"}))
            answer = protocol.decode_line((await reader.readline()).rstrip(b"\n"))
            assert answer["ok"] and answer["session"] == session.log.id
            writer.close()
            mark = b"still-here"
            client.send(protocol.frame(protocol.INPUT, b"echo " + mark + b"\r"))
            await client.until(lambda: client.output.count(mark) >= 2, "the first client still served")
            client.writer.close()
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_the_newest_detached_session_stays_newest_when_the_clock_is_set_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`dsh attach` with no id attaches the session left last, by each host's `detached_at`: a clock set
    back an hour between two detaches must not make the first look newer."""
    import time

    from dsh.host import server as server_module

    wall = [1_000_000.0]
    mono = [500.0]
    monkeypatch.setattr(server_module.time, "time", lambda: wall[0])
    monkeypatch.setattr(server_module.time, "monotonic", lambda: mono[0])
    from types import SimpleNamespace

    def host(name: str) -> server_module.HostServer:
        session = SimpleNamespace(after_reload=[], config={})  # all a server reads before it serves
        return server_module.HostServer(session, Path(name), None)  # type: ignore[arg-type]

    first, second = host("a.sock"), host("b.sock")
    first._detached = time.monotonic()  # left first
    wall[0] -= 3600  # NTP, a suspended laptop, by hand
    mono[0] += 5
    second._detached = time.monotonic()  # left five seconds later
    mono[0] += 1
    wall[0] += 1
    assert second.detached_at is not None and first.detached_at is not None
    assert second.detached_at > first.detached_at
    assert second.detached_at == wall[0] - 1  # said in the wall clock of the moment it is asked
