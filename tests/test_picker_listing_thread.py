"""The picker lists every row on a thread of its own: the session's worker stays free meanwhile."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from dsh.resume import loading
from dsh.ui.state import Mode
from tests.test_app_harness import run, running_app


def test_a_long_listing_leaves_the_sessions_worker_free(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What waits on the session's worker (the prompt's history, which the keys typed at an attach wait
    for) is not queued behind a listing of every row, which takes seconds at 100,000 sessions."""
    listing = threading.Event()
    release = threading.Event()
    real = loading.load_rest_and_refresh

    def slow(*args: Any, **kw: Any) -> list[str]:
        listing.set()
        release.wait(30)
        return real(*args, **kw)

    monkeypatch.setattr(loading, "load_rest_and_refresh", slow)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/resume")
            await h.wait(lambda: h.app.mode == Mode.PICKER and listing.is_set(), "the picker, listing")
            try:
                done = h.session.worker.submit(lambda: "free")
                assert await asyncio.wait_for(asyncio.wrap_future(done), 5) == "free"
            finally:
                release.set()
            h.send("\x1b")
            await h.wait(lambda: h.app.mode != Mode.PICKER, "the picker closed")

    run(body)
