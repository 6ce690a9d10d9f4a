"""The control verbs in one process: a real session and host, asked by the real control client."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from dsh import protocol
from dsh.client import control as client
from dsh.client.control import ControlError, call
from dsh.config import load_config
from dsh.host.server import HostServer
from dsh.layout.geometry import layout_rects
from dsh.session.session import Session
from dsh.store.store import Store
from dsh.ui.remote import run_remote_view


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("ENV", "")
    monkeypatch.setenv("PS1", "$ ")


# A program that reads its terminal raw and prints each read in hex.
READER = (
    "import os, tty; tty.setraw(0); print('ready', end='\\r\\n', flush=True)\n"
    "while True: os.write(1, os.read(0, 1024).hex().encode() + b'\\r\\n')"
)


class Host:
    def __init__(self, session: Session, server: HostServer, path: Path) -> None:
        self.session, self.server, self.path = session, server, path

    async def ask(self, verb: str, **fields: Any) -> dict[str, Any]:
        """The reply, or {"error", "status"} for a refusal."""
        try:
            return await asyncio.to_thread(call, str(self.path), {"verb": verb, **fields}, timeout=30.0)
        except ControlError as exc:
            return {"error": str(exc), "status": exc.status}

    async def screen(self, pane: str, needle: str, **fields: Any) -> str:
        for _ in range(200):
            text = (await self.ask("capture", pane=pane, **fields)).get("text", "")
            if needle in text:
                return text
            await asyncio.sleep(0.05)
        raise AssertionError(f"{needle!r} never showed in {pane}: {text!r}")


def with_host(tmp_path: Path, test: Callable[[Host], Awaitable[None]]) -> None:
    async def body() -> None:
        config = load_config()
        store = Store(config)
        path = tmp_path / "s.sock"
        log = store.create_session(str(tmp_path))
        session = Session(config=config, store=store, log=log, cwd=str(tmp_path), size=(40, 120), socket=str(path))
        server = HostServer(session, path, run_remote_view)
        await server.start()
        session.start()
        try:
            await test(Host(session, server, path))
        finally:
            session.quit()
            await server.close()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_a_headless_layout_is_built_listed_and_saved(tmp_path: Path) -> None:
    async def test(host: Host) -> None:
        split = await host.ask("split", orientation="row", size=30)
        assert split["pane"] == "p2" and split["session"] == host.session.log.id
        assert (await host.ask("split", pane="p1", orientation="column", argv=["sh"]))["pane"] == "p3"
        tab = await host.ask("new_tab", cwd=str(tmp_path))
        assert tab["pane"] == "p4"
        assert (await host.ask("rename", pane="p4", name="builder\x1b[31m"))["title"] == "builder^[[31m"
        assert (await host.ask("rename", what="session", name="my layout"))["title"] == "my layout"
        await host.ask("focus", pane="builder")  # by its name
        info = (await host.ask("list"))["info"]
        assert info["title"] == "my layout" and info["attached"] is False
        tabs = [[p["id"] for p in t["panes"]] for t in info["tabs"]]
        assert tabs == [["p1", "p3", "p2"], ["p4"]]
        assert [t["active"] for t in info["tabs"]] == [False, True]
        first = {p["id"]: p for p in info["tabs"][0]["panes"]}
        # The 30% split: p2 is beside p1 and p3, about 30% of the 120 columns (headless, sized as drawn).
        assert 30 <= first["p2"]["cols"] <= 40 and first["p1"]["cols"] > 70
        rects = layout_rects(host.session.tabs.tabs[0].root, host.session.area).rects
        assert all((p["rows"], p["cols"]) == (rects[i].height - 1, rects[i].width) for i, p in first.items())
        assert all(p["running"] and p["pid"] for p in first.values())
        # Saved as the keys would save it: a structural change.
        layout = host.session.tabs.to_dict()
        assert json.dumps(layout).count('"p') >= 4
        closed = await host.ask("close", pane="p3")
        assert closed == {"ok": True, "pane": "p3", "session_ended": False, "session": host.session.log.id}
        assert "p3" not in host.session.panes

    with_host(tmp_path, test)


def test_send_text_keys_and_paste_reach_the_pane_as_typed(tmp_path: Path) -> None:
    async def test(host: Host) -> None:
        await host.ask("split", orientation="row", argv=[sys.executable, "-c", READER])
        await host.screen("p2", "ready")
        await host.ask("send", pane="p2", keys=["a", "C-c", "Up", "M-x", "Enter", "F5"])
        await host.screen("p2", "61031b5b411b780d1b5b31357e")
        await host.ask("send", pane="p2", text="é Enter", paste=True)  # it asked for no bracketed paste
        await host.screen("p2", "c3a920456e746572")
        await host.ask("send", pane="p2", text="line", enter=True)
        await host.screen("p2", "6c696e650d")
        # Bracketed paste when the program asked for it.
        await host.ask("send", pane="p1", text="printf '\\033[?2004h'; cat -v", enter=True)
        await host.screen("p1", "cat -v")
        await asyncio.sleep(0.3)
        await host.ask("send", pane="p1", text="pasted", paste=True, enter=True)
        assert "^[[200~pasted^[[201~" in await host.screen("p1", "201~")

    with_host(tmp_path, test)


def test_capture_joins_wrapped_lines_keeps_colours_and_reads_history(tmp_path: Path) -> None:
    async def test(host: Host) -> None:
        long = "x" * 150 + "END"
        script = (
            "printf '\\033[31mred\\033[0m plain\\n'; for i in $(seq 1 80); do echo line-$i; done; "
            "printf 'x%.0s' $(seq 150); echo END"
        )
        await host.ask("send", text=script, enter=True)
        text = await host.screen("p1", "xEND")
        assert long not in text  # wrapped at 120 columns
        joined = (await host.ask("capture", join=True))["text"]
        assert long in joined
        assert "line-80" in joined and "line-1\n" not in joined  # on screen, not the oldest
        history = (await host.ask("capture", lines=100))["text"]
        assert "line-1\n" in history and history.index("line-1\n") < history.index("line-80\n")
        everything = (await host.ask("capture", all=True, ansi=True))["text"]
        assert "\x1b[0;31mred\x1b[0m plain" in everything
        reply = await host.ask("capture")
        assert reply["cols"] == 120 and reply["running"] and isinstance(reply["fed"], int)

    with_host(tmp_path, test)


def test_wait_for_an_exit_a_quiet_pane_a_state_and_new_output(tmp_path: Path) -> None:
    async def test(host: Host) -> None:
        await host.ask("split", argv=["sh", "-c", "sleep 0.3; echo done-here; exit 7"])
        assert (await host.ask("wait", pane="p2", **{"for": "exit"}))["exit_status"] == 7
        # Status 0 closes the pane; its status and screen stay readable.
        await host.ask("split", argv=["sh", "-c", "echo bye-now; exit 0"])
        assert (await host.ask("wait", pane="p3", **{"for": "exit"}, timeout=10))["exit_status"] == 0
        assert "p3" not in host.session.panes
        assert "bye-now" in (await host.ask("capture", pane="p3"))["text"]
        timed = await host.ask("wait", pane="p1", **{"for": "exit"}, timeout=0.2)
        assert timed["status"] == 124 and "still running" in timed["error"]
        assert (await host.ask("wait", pane="p1", **{"for": "idle"}, seconds=0.2))["idle"] == 0.2
        waiting = asyncio.ensure_future(host.ask("wait", pane="p1", **{"for": "state"}, state="blocked", timeout=10))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        await host.ask("report", pane="p1", state="blocked", message="may I?\n\x1b[2Jrm -rf", source="hook")
        assert (await waiting)["state"] == "blocked"
        said = (await host.ask("list"))["info"]["tabs"][0]["panes"][0]["agent_state"]
        assert said["state"] == "blocked" and said["message"] == "may I? ^[[2Jrm -rf" and said["source"] == "hook"
        assert host.session.panes["p1"].last_message == said["message"]
        # A hook's own payload, read by the attention model: Claude Code's Stop is done, with its last message.
        stop = {"hook_event_name": "Stop", "session_id": "x", "last_assistant_message": "all green"}
        assert (await host.ask("report", pane="p1", hook="claude", payload=json.dumps(stop)))["state"] == "done"
        assert host.session.panes["p1"].agent_state.state == "done"
        assert (await host.ask("report", pane="p1", hook="claude", payload="{torn"))["state"] is None
        # A capture held for new output answers once the pane prints, with the new text.
        fed = (await host.ask("capture"))["fed"]
        held = asyncio.ensure_future(host.ask("capture", since=fed, hold=10))
        await asyncio.sleep(0.3)
        assert not held.done()
        await host.ask("send", text="echo fresh-output", enter=True)
        assert "fresh-output" in (await held)["text"]

    with_host(tmp_path, test)


def test_do_notify_and_what_is_refused(tmp_path: Path) -> None:
    async def test(host: Host) -> None:
        assert (await host.ask("do", line="/split -h"))["messages"] == []
        assert len(host.session.panes) == 2
        helped = await host.ask("do", line="/help split")
        assert any("usage: /split" in m["text"] for m in helped["messages"])
        assert (await host.ask("do", line="/nosuch"))["status"] == 3
        assert "needs a screen" in (await host.ask("do", line="/resume"))["error"]
        await host.ask("notify", text="build\x07 done")
        assert host.session.notifications[-1].text == "build^G done"
        # Unknown targets and another session's name: 2. Refusals: 3.
        assert (await host.ask("send", pane="p9", text="x"))["status"] == 2
        assert (await host.ask("send", session="20260101T000000Z-000000", pane="p1", text="x"))["status"] == 2
        assert (await host.ask("report", state="sleeping"))["status"] == 3
        assert (await host.ask("fly"))["status"] == 3
        assert (await host.ask("send", text="y" * (protocol.SEND_MAX + 1)))["status"] == 3
        assert (await host.ask("split", cwd="/no/such/dir"))["status"] == 3

    with_host(tmp_path, test)


def _raw(path: Path, payload: bytes, *, kind: bytes = protocol.CONTROL, length: int | None = None) -> bytes:
    """A control hello and one hand-made frame; all the host sent back."""
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(10)
    sock.connect(str(path))
    hello = protocol.hello(rows=1, cols=1, env={}, pid=os.getpid(), intent={"kind": "control"})
    n = len(payload) if length is None else length
    sock.sendall(hello + kind + n.to_bytes(4, "big") + payload)
    sock.shutdown(socket.SHUT_WR)
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    sock.close()
    return out


def _reply(raw: bytes) -> dict[str, Any]:
    line, _, rest = raw.partition(b"\n")
    assert json.loads(line)["ok"] is True
    return json.loads(rest[5:])


def test_malformed_oversized_and_huge_requests_are_refused_and_the_host_serves_on(tmp_path: Path) -> None:
    async def test(host: Host) -> None:
        run = asyncio.to_thread
        for payload in (b"{not json", b"[1, 2]", b"\xff\xfe", b'{"verb": "send", "text": 5}', b"[" * 100000):
            reply = _reply(await run(_raw, host.path, payload))
            assert reply["ok"] is False and reply["status"] == 3, (payload[:20], reply)
        huge = _reply(await run(_raw, host.path, b"", length=protocol.CONTROL_MAX + 1))
        assert huge["status"] == 3 and "too large" in huge["error"]
        assert _reply(await run(_raw, host.path, b"{}", kind=protocol.INPUT))["status"] == 3
        # The client refuses 100 MB before it connects.
        with pytest.raises(ControlError) as caught:
            await run(call, str(host.path), {"verb": "send", "text": "z" * (100 << 20)})
        assert caught.value.status == 3 and "too large" in str(caught.value)
        assert (await host.ask("list"))["info"]["id"] == host.session.log.id

    with_host(tmp_path, test)


def test_the_lean_clients_json_and_constants_match_the_protocols() -> None:
    assert client.PROTOCOL_VERSION == protocol.PROTOCOL_VERSION and client.MAGIC == protocol.MAGIC
    assert (client.CONTROL, client.CONTROL_MAX, client.SEND_MAX) == (
        protocol.CONTROL,
        protocol.CONTROL_MAX,
        protocol.SEND_MAX,
    )
    value = {"a": [1, 2.5, 'é\udc80\x1b"', True, None], "b": {}, "c": -3}
    assert json.loads(client.dumps(value).replace("\\udc80", "")) == {**value, "a": [1, 2.5, 'é\x1b"', True, None]}
    assert client.loads(client.dumps(value)) == value
    for bad in ("{bad", '{"a": NaN}', "1 2", ""):
        with pytest.raises(ValueError):
            client.loads(bad)


def _control_as(uid: int, path: Path) -> str:
    """A control request to `path` from a child process running as `uid`; what came back."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        answer = b""
        try:
            os.close(read_fd)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            answer = _raw(path, b'{"verb": "send", "text": "rm -rf ~"}')
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


@pytest.mark.skipif(os.getuid() != 0, reason="running a client as another user needs root here")
def test_a_control_request_from_another_uid_is_refused(tmp_path: Path) -> None:
    import shutil
    import tempfile

    # A folder the other user can reach: only the host's check of the peer's uid stands in the way.
    public = Path(tempfile.mkdtemp(prefix="dsh-peer-"))

    async def test(host: Host) -> None:
        public.chmod(0o755)  # after the host bound in it (a host binds in no other folder than a private one)
        host.path.chmod(0o777)
        answer = await asyncio.to_thread(_control_as, 65534, host.path)
        public.chmod(0o700)  # the control client uses no folder others can enter
        reply = json.loads(answer.splitlines()[0])
        assert reply["ok"] is False and "another user" in reply["error"], answer
        assert (await host.ask("list"))["info"]["id"] == host.session.log.id  # its own user still gets in

    try:
        with_host(public, test)
    finally:
        shutil.rmtree(public, ignore_errors=True)


def test_the_lean_socket_path_is_rundirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.cli.control_cmd import socket_of
    from dsh.rundir import socket_path

    mine = tmp_path / "xdg"
    mine.mkdir(mode=0o700)
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    cases = [("DSH_HOME", str(tmp_path / "h")), ("XDG_RUNTIME_DIR", str(mine)), ("XDG_RUNTIME_DIR", str(open_to_all))]
    for name, value in cases:
        monkeypatch.setenv(name, value)
        assert socket_of("20261201T000000Z-abcdef") == str(socket_path("20261201T000000Z-abcdef")), (name, value)
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setenv("DSH_HOME", "~/x/.././/dsh-home-rel/")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert socket_of("s1") == str(socket_path("s1"))


def test_reload_is_asked_by_another_session_of_the_same_home_only(tmp_path: Path, dsh_home: Path) -> None:
    async def test(host: Host) -> None:
        (dsh_home / "config.toml").write_text("[term]\nscrollback = 500\n")
        other = "20261202T060000Z-abc123"
        refused = await host.ask("reload", **{"from": other, "home": str(tmp_path / "another-home")})
        assert "another DSH_HOME" in refused["error"] and host.session.scrollback == 10000
        assert "from must be" in (await host.ask("reload", **{"from": "../x", "home": str(dsh_home)}))["error"]
        reply = await host.ask("reload", **{"from": other, "home": str(dsh_home)})
        assert reply["ok"] is True and reply["warnings"] == 0 and host.session.scrollback == 500

    with_host(tmp_path, test)
