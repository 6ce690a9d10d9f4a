"""Every pane knows where it is: DSH_SESSION_ID, DSH_PANE_ID and DSH_SOCKET, as tmux sets TMUX_PANE."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dsh.config import load_config
from dsh.session.session import Session
from dsh.store.store import Store


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("ENV", "")


def _panes_env(tmp_path: Path, socket: str | None, outer: dict[str, str]) -> list[dict[str, str]]:
    async def body() -> list[dict[str, str]]:
        config = load_config()
        store = Store(config)
        env = {"PATH": "/usr/bin:/bin", "SHELL": "/bin/sh", **outer}
        log = store.create_session(str(tmp_path))
        session = Session(config=config, store=store, log=log, cwd=str(tmp_path), env=env, socket=socket)
        session.start()
        try:
            session.split("row", None)
            return [pane.env for pane in session.panes.values()]
        finally:
            session.quit()
            await session.reap_panes(0.5)

    return asyncio.run(body())


def test_each_pane_gets_its_session_its_id_and_the_hosts_socket(tmp_path: Path) -> None:
    outer = {"DSH_SESSION_ID": "outer", "DSH_PANE_ID": "p9", "DSH_SOCKET": "/elsewhere.sock"}
    envs = _panes_env(tmp_path, "/run/me/dsh/x.sock", outer)
    assert [env["DSH_PANE_ID"] for env in envs] == ["p1", "p2"]
    assert all(env["DSH_SOCKET"] == "/run/me/dsh/x.sock" for env in envs)
    assert all(env["DSH_SESSION_ID"] not in ("", "outer") for env in envs)


def test_a_session_with_no_socket_never_passes_on_an_outer_ones(tmp_path: Path) -> None:
    envs = _panes_env(tmp_path, None, {"DSH_SOCKET": "/elsewhere.sock"})
    assert all("DSH_SOCKET" not in env for env in envs)
