"""The app keeps going when its own files fail under it: a message, never a crash."""

from __future__ import annotations

from pathlib import Path

from tests.test_app_harness import run, running_app


def test_a_session_log_that_cannot_be_written_is_a_message(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.app.log.close()  # as if the disk had gone away under the log
            h.type_line("echo still-works")
            await h.wait(lambda: "session log" in h.message, "a message about the session log")
            await h.wait_output(h.pane, "still-works")

    run(body)
