"""App-test harness: a real DshApp on prompt_toolkit pipe input, driven by key bytes; plus its own checks."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput

from dsh.config import load_config
from dsh.session.pane import Pane
from dsh.session.session import Session
from dsh.store.store import Store
from dsh.ui import chrome
from dsh.ui.app import DshApp
from dsh.ui.view_options import ViewOptions

WAIT = 15.0  # generous (CI runs two workers on a loaded machine): a condition that never comes fails
# the test with a description, not a hang

# Key bytes as a terminal sends them.
C_B = "\x02"
C_A = "\x01"
C_RBRACKET = "\x1d"
ENTER = "\r"
TAB = "\t"
ESC = "\x1b"
UP = "\x1b[A"
ALT_LEFT = "\x1b[1;3D"
ALT_RIGHT = "\x1b[1;3C"
ALT_UP = "\x1b[1;3A"
ALT_DOWN = "\x1b[1;3B"


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """Panes run /bin/sh, quiet and quick."""
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("ENV", "")
    monkeypatch.setenv("PS1", "$ ")


class Harness:
    """A running app: send key bytes, wait for model conditions, record what panes are sent."""

    def __init__(self, app: DshApp, pipe: PipeInput, task: asyncio.Future[Any]) -> None:
        self.app = app
        self.session = app.session
        self.pipe = pipe
        self.task = task
        self.sent: dict[str, list[bytes]] = {}

    def send(self, text: str) -> None:
        self.pipe.send_text(text)

    async def wait(self, condition: Callable[[], object], what: str, timeout: float = WAIT) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not condition():
            if self.task.done():
                self.task.result()  # raise what ended the app
                if not condition():
                    raise AssertionError(f"the app ended while waiting for: {what}")
                return
            if loop.time() > end:
                raise AssertionError(f"timed out waiting for: {what}; message={self.message!r}")
            await asyncio.sleep(0.005)

    async def quiet(self) -> None:
        """Give the loop a moment for keys that should have no effect (checked with a sentinel after)."""
        await asyncio.sleep(0.02)

    async def press_until(self, keys: str, condition: Callable[[], object], what: str) -> None:
        """Press `keys` until `condition` holds: for keys whose effect waits on a redraw (prompt history
        is loaded on the prompt's next repaint), where pressing again is harmless."""
        loop = asyncio.get_running_loop()
        end = loop.time() + WAIT
        while not condition():
            if loop.time() > end:
                raise AssertionError(f"timed out pressing {keys!r} for: {what}")
            self.send(keys)
            await asyncio.sleep(0.02)

    @property
    def message(self) -> str:
        return self.app.message.text if self.app.message is not None else ""

    @property
    def pane(self) -> Pane:
        pane = self.app.active_pane
        assert pane is not None
        return pane

    def record(self, pane: Pane) -> list[bytes]:
        """Start recording the bytes written to `pane`'s child (they still reach it)."""
        sent = self.sent.setdefault(pane.id, [])
        terminal = pane.terminal
        real = terminal.write

        def write(data: str | bytes) -> None:
            sent.append(data.encode() if isinstance(data, str) else bytes(data))
            real(data)

        terminal.write = write  # type: ignore[method-assign]
        return sent

    def written(self, pane: Pane) -> bytes:
        return b"".join(self.sent.get(pane.id, []))

    async def wait_output(self, pane: Pane, text: str) -> None:
        # A line ending with `text`: a shell that starts after the keys were typed prints its prompt
        # first on the output's line.
        try:
            await self.wait(
                lambda: any(line.rstrip().endswith(text) for line in pane.terminal.text_lines()),
                f"a line ending with {text!r} in {pane.id}",
            )
        except AssertionError as exc:
            shown = "\n".join(line for line in pane.terminal.text_lines() if line.strip())
            raise AssertionError(f"{exc}\n{pane.id} shows:\n{shown}") from None

    def type_line(self, line: str) -> None:
        self.send(line + ENTER)


@asynccontextmanager
async def running_app(cwd: Path, **options: Any) -> AsyncIterator[Harness]:
    """A session for `cwd` and its view on pipe input and a dummy output, running until the block ends."""
    config = load_config()
    store = Store(config)
    log = store.create_session(str(cwd))
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        session = Session(config=config, store=store, log=log, cwd=str(cwd))
        session.start()
        app = DshApp(session, ViewOptions(**options))
        task = asyncio.ensure_future(app.run_async())
        harness = Harness(app, pipe, task)
        try:
            await harness.wait(lambda: app.application.is_running, "the app to run")
            await harness.wait(
                lambda: app.active_pane is not None and app.active_pane.running, "the first pane to start"
            )
            yield harness
        finally:
            if not task.done():
                session.quit()
            await asyncio.wait_for(task, WAIT)
            await session.reap_panes(0.5)


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(test())


def log_events(app: DshApp) -> list[dict[str, Any]]:
    return [json.loads(line) for line in app.session.log.path.read_text().splitlines() if line.strip()]


# -- the harness's own checks -------------------------------------------------------------------


def test_app_starts_on_the_prompt_with_one_live_shell_pane(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            assert h.app.mode == "prompt"
            assert len(h.session.tabs.tabs) == 1
            assert h.pane.argv == ["/bin/sh", "-l"]
            assert h.pane.cwd == str(tmp_path)
            # An untitled tab is named after its active pane's program, as tmux names a window.
            assert "".join(fragment[1] for fragment in chrome.tabbar_fragments(h.app)).strip() == "0:sh"

    run(body)


def test_quit_ends_the_app_and_closes_the_session_log(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/quit")
            await h.wait(lambda: h.task.done(), "the app to end")
            assert h.session.log.closed
            events = log_events(h.app)
            assert events[0]["type"] == "session" and events[0]["cwd"] == str(tmp_path)
            assert events[-1]["type"] == "close"
            assert {"type": "input", "text": "/quit"}.items() <= next(e for e in events if e["type"] == "input").items()
            assert os.path.basename(str(h.session.log.path)) == f"{h.session.log.id}.jsonl"

    run(body)
