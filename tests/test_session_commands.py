"""Commands act on the headless session: run here with no screen, through a stand-in for the client."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from dsh.commands.registry import CommandError
from dsh.config import load_config
from dsh.session.commands import build_registry
from dsh.session.session import Session
from dsh.store.store import Store


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("ENV", "")


class FakeClient:
    """What a command may ask of the attached client, recorded."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.registry = build_registry()
        self.calls: list[tuple] = []
        self.asked: list[tuple[str, Callable[[str], None]]] = []
        self.confirmed: list[tuple[str, Callable[[], object], str]] = []

    def announce(self, text: str, *, error: bool = False) -> None:
        self.calls.append(("announce", text, error))

    def ask(self, label: str, action: Callable[[str], None], default: str = "") -> None:
        self.asked.append((label, action))

    def confirm(self, question: str, on_yes: Callable[[], object], *, declined: str = "not done") -> None:
        self.confirmed.append((question, on_yes, declined))

    def show_help(self, topic: str | None = None) -> None:
        self.calls.append(("help", topic))

    def open_picker(self) -> None:
        self.calls.append(("picker",))

    def enter_copy_mode(self) -> None:
        self.calls.append(("copy",))

    def paste_clipboard(self) -> None:
        self.calls.append(("paste",))

    def enter_prompt(self) -> None:
        self.calls.append(("prompt",))

    def enter_pane(self) -> None:
        self.calls.append(("pane",))

    def detach(self) -> None:
        self.calls.append(("detach",))


def with_session(tmp_path: Path, test: Callable[[Session, FakeClient], object]) -> None:
    async def body() -> None:
        config = load_config()
        store = Store(config)
        session = Session(config=config, store=store, log=store.create_session(str(tmp_path)), cwd=str(tmp_path))
        session.start()
        client = FakeClient(session)
        try:
            result = test(session, client)
            if asyncio.iscoroutine(result):
                await result
        finally:
            session.quit()
            await session.reap_panes(0.5)

    asyncio.run(body())


def test_split_focus_zoom_and_tabs_change_the_model(tmp_path: Path) -> None:
    async def test(session: Session, client: FakeClient) -> None:
        run = client.registry.dispatch
        first = session.active_pane
        await run(client, "split", ["-h"])
        assert len(session.panes) == 2 and session.active_pane is not first
        await run(client, "focus", ["left"])
        assert session.active_pane is first
        await run(client, "zoom", [])
        assert session.tabs.active_tab.zoomed
        await run(client, "new", [])
        assert len(session.tabs.tabs) == 2 and session.tabs.active_index == 1
        await run(client, "tab", ["select", "0"])
        assert session.tabs.active_index == 0
        with pytest.raises(CommandError, match="no tab 7"):
            await run(client, "tab", ["select", "7"])

    with_session(tmp_path, test)


def test_quit_asks_the_client_first_while_a_program_runs(tmp_path: Path) -> None:
    async def test(session: Session, client: FakeClient) -> None:
        pane = session.active_pane
        assert pane is not None
        pane.terminal.write(b"sleep 30\r")
        for _ in range(300):  # a loaded machine may take seconds to start the shell and then sleep
            if session.busy_panes():
                break
            await asyncio.sleep(0.05)
        assert session.busy_panes(), "sleep 30 never showed as running in the pane"
        await client.registry.dispatch(client, "quit", [])
        assert not session.closing
        ((question, on_yes, declined),) = client.confirmed
        assert "still running: p1" in question and declined == "not quitting"
        assert not session.closing  # nothing happens until the answer
        on_yes()  # y
        assert session.closing and session.log.closed

    with_session(tmp_path, test)


def test_detach_and_the_overlays_are_the_clients_business(tmp_path: Path) -> None:
    async def test(session: Session, client: FakeClient) -> None:
        for name, args in (("detach", []), ("resume", []), ("help", ["keys"]), ("copy", [])):
            await client.registry.dispatch(client, name, args)
        assert client.calls == [("detach",), ("picker",), ("help", "keys"), ("copy",)]
        assert not session.closing

    with_session(tmp_path, test)


def test_rename_is_logged_and_said(tmp_path: Path) -> None:
    async def test(session: Session, client: FakeClient) -> None:
        await client.registry.dispatch(client, "rename", ["release", "work"])
        assert session.title == "release work"
        assert '"type": "title"' in session.log.path.read_text()
        assert ("announce", "session renamed: release work", False) in client.calls

    with_session(tmp_path, test)


def test_messages_wait_for_a_client_when_none_is_attached(tmp_path: Path) -> None:
    def test(session: Session, client: FakeClient) -> None:
        session.announce("saved while you were away", error=True)
        (message,) = session.take_pending()
        assert message.text == "saved while you were away" and message.error
        assert session.take_pending() == []

    with_session(tmp_path, test)
