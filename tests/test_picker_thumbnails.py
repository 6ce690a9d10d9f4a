"""The picker's preview shows a session's last saved screen beside its typed lines (from the snapshot's
tail of its active pane), read without touching the snapshot."""

from __future__ import annotations

import asyncio
from pathlib import Path

from dsh.persist.snapshot import SNAPSHOT_FILE, state_dir
from dsh.persist.thumbnails import last_screen
from dsh.resume.picker import PickerModel
from dsh.resume.picker_draw import render_text
from dsh.session.session import Session
from tests.test_picker_model import NOW, cand
from tests.test_session_commands import FakeClient, plain_shell, with_session  # noqa: F401 (plain_shell: autouse)


def test_the_last_screen_of_a_saved_session_beside_its_typed_lines(tmp_path: Path) -> None:
    saved: dict[str, str] = {}

    async def test(session: Session, client: FakeClient) -> None:
        pane = session.active_pane
        assert pane is not None
        pane.terminal.write(b"printf '\\033[1mthumb\\033[0m-%s\\n' $((6*7))\r")
        for _ in range(400):
            if "thumb-42" in "\n".join(pane.terminal.screen.display):
                break
            await asyncio.sleep(0.05)
        session.scheduler.flush()
        saved["id"] = session.log.id

    with_session(tmp_path, test)
    screen = last_screen(saved["id"])
    # (The output, not the command: that says thumb\033[0m-%s. A loaded machine may print it after the
    # prompt the shell showed once the line was typed ahead.)
    assert screen is not None and any("thumb-42" in row for row in screen)

    row = cand(saved["id"], str(tmp_path), "work", NOW.isoformat(), preview=("make test",))
    model = PickerModel([row], current_cwd=str(tmp_path), now=NOW)
    model.thumbnails = {saved["id"]: screen}  # type: ignore[attr-defined]  # as the view loads them
    text = render_text(model.frame(100, 30))
    line = next(line for line in text.splitlines() if "thumb-42" in line)
    assert "│" in line and line.index("│") < line.index("thumb-42")
    assert any("make test" in line for line in text.splitlines())
    assert "thumb-42" not in render_text(model.frame(60, 30))  # no room beside: the typed lines only


def test_no_picture_for_a_missing_or_broken_snapshot_and_nothing_is_moved(tmp_path: Path, dsh_home: Path) -> None:
    sid = "20261201T000000Z-abcdef"
    assert last_screen(sid) is None
    folder = state_dir(sid)
    folder.mkdir(parents=True, mode=0o700)
    (folder / SNAPSHOT_FILE).write_text("{not json")
    assert last_screen(sid) is None
    assert [p.name for p in folder.iterdir()] == [SNAPSHOT_FILE]  # left for its host's loader
