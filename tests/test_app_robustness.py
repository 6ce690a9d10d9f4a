"""The app keeps going when its own files fail under it: a message, never a crash."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.test_app_harness import (
    UP,
    plain_shell,  # noqa: F401  (autouse: panes run a quick /bin/sh)
    run,
    running_app,
)


def test_a_session_log_that_cannot_be_written_is_a_message(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.session.log.close()  # as if the disk had gone away under the log
            h.type_line("echo still-works")
            await h.wait(lambda: "session log" in h.message, "a message about the session log")
            await h.wait_output(h.pane, "still-works")

    run(body)


def test_a_password_typed_at_the_prompt_is_masked_and_never_stored(tmp_path: Path) -> None:
    from dsh.home import dsh_home

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("stty -echo; read secret; stty echo; echo got-$secret")
            # Echo goes off while `stty` is the pane's foreground program, which has the keyboard for
            # that moment: wait until the shell's own `read` has it back on the prompt.
            await h.wait(
                lambda: h.app.pane_wants_secret() and h.app.mode == "prompt",
                "the pane to read without echo, with the keyboard on the prompt",
            )
            h.send("hunter3")
            await h.wait(lambda: h.app.prompt_buffer.text == "hunter3", "the password on the prompt")
            h.send("\r")
            await h.wait_output(h.pane, "got-hunter3")
            h.type_line("echo after")
            await h.wait_output(h.pane, "after")

    run(body)
    stored = b"".join(p.read_bytes() for p in dsh_home().rglob("*") if p.is_file() and p.suffix != ".tail")
    assert b"hunter3" not in stored
    assert b"echo after" in stored  # ordinary lines are still logged and kept in history


def test_reading_secret_follows_the_child_terminal_modes() -> None:
    import asyncio

    from dsh.term.terminal import Terminal

    async def body() -> None:
        term = Terminal(["sh", "-c", "stty -echo; sleep 0.5; stty echo; sleep 2"], cwd="/")
        term.start()
        try:
            deadline = asyncio.get_running_loop().time() + 3
            while not term.reading_secret():
                assert asyncio.get_running_loop().time() < deadline, "echo never went off"
                await asyncio.sleep(0.02)
            while term.reading_secret():
                assert asyncio.get_running_loop().time() < deadline, "echo never came back"
                await asyncio.sleep(0.02)
        finally:
            term.kill()

    run(body)


def test_c_r_shows_the_first_match_at_once_and_enter_runs_it(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            for line in ("echo apple-one", "echo banana-two", "echo cherry-three", "echo banana-four"):
                h.type_line(line)
                await h.wait_output(h.pane, line.split()[1])
            sent = h.record(h.pane)
            h.send("\x12" + "bana")  # C-r, then the query
            await h.wait(lambda: h.app.prompt_buffer.text == "echo banana-four", "the newest match, at once")
            assert h.app._label().startswith("(reverse-i-search)`bana'")
            h.send("\x12")  # again: further back
            await h.wait(lambda: h.app.prompt_buffer.text == "echo banana-two", "the older match")
            h.send("\r")  # Enter runs the found line
            await h.wait(lambda: sent, "the found line to run")
            assert b"".join(sent) == b"echo banana-two\r" and h.app.prompt_buffer.text == ""

    run(body)


def test_escape_ends_a_search_with_the_line_as_it_was(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("echo apple-one")
            await h.wait_output(h.pane, "apple-one")
            h.send("draft")
            await h.wait(lambda: h.app.prompt_buffer.text == "draft", "the draft line")
            h.send("\x12" + "apple")
            await h.wait(lambda: h.app.prompt_buffer.text == "echo apple-one", "the match")
            h.send("\x07")  # C-g
            await h.wait(lambda: h.app.prompt_buffer.text == "draft", "the draft back")
            assert h.app.prompt_buffer.cursor_position == 5 and h.app.memory.search is None
            h.send("\x15")  # C-u; then Up: history from its newest line, not from the search
            await h.press_until(UP, lambda: h.app.prompt_buffer.text == "echo apple-one", "Up from the newest line")

    run(body)


def test_attaches_while_the_worker_is_busy_queue_one_index_refresh_not_one_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every attach's first frame asks for an index refresh on the session's one worker thread; a
    hundred attaches queued a hundred, which then ran long after the last client left (holding the
    index's three descriptors: the fd-count flake of the hundred-attaches test) and kept the prompt's
    history, which waits on that worker, from the next attach."""
    import threading

    from dsh.store.index import SessionIndex

    refreshes: list[float] = []
    real = SessionIndex.refresh

    def counted(self: SessionIndex, *args: Any, **kwargs: Any) -> Any:
        refreshes.append(time.monotonic())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SessionIndex, "refresh", counted)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            await h.wait(lambda: h.app._first_frame_out, "the first frame")
            await asyncio.wrap_future(h.session.worker.submit(lambda: None))  # its own refresh done
            busy = threading.Event()
            h.session.worker.submit(busy.wait, 10)
            del refreshes[:]
            for _ in range(50):
                h.app.refresh_index_in_background()  # fifty attaches' first frames
            busy.set()
            done = h.session.worker.submit(lambda: None)
            await asyncio.wrap_future(done)
            assert len(refreshes) == 1, f"{len(refreshes)} refreshes for 50 asks made while one waited"
            h.app.refresh_index_in_background()  # one asked after it ran is a refresh of its own
            await asyncio.wrap_future(h.session.worker.submit(lambda: None))
            assert len(refreshes) == 2

    run(body)


def test_a_snapshot_removed_under_the_session_is_written_again(tmp_path: Path) -> None:
    import shutil

    from dsh.persist.snapshot import SNAPSHOT_FILE, state_dir
    from dsh.session.file_watch import check_session_files

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("echo saved-once")
            await h.wait_output(h.pane, "saved-once")
            h.session.scheduler.flush()
            snapshot = state_dir(h.session.log.id) / SNAPSHOT_FILE
            assert snapshot.exists()
            shutil.rmtree(snapshot.parent)  # a cleaner, a user's rm -r ~/.dsh/state
            found = check_session_files(h.session)
            assert found.made == ["snapshot"] and not found.errors
            await h.wait(snapshot.exists, "the snapshot written again")
            assert b"saved-once" in b"".join(p.read_bytes() for p in snapshot.parent.rglob("*.tail"))
            assert check_session_files(h.session).made == []  # said once

    run(body)
