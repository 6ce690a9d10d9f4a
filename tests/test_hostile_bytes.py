"""Hostile bytes: a directory name or typed text that is not UTF-8 round-trips through the log, the
index takes it, listings show it escaped, and a pane gets exactly the bytes typed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dsh.config import load_config
from dsh.resume.loading import load_rest, open_picker
from dsh.store.index import SessionIndex
from dsh.store.log import read_header, read_log
from dsh.store.store import Store
from tests.hostile import assert_clean, make_sessions, run_dsh
from tests.test_app_harness import plain_shell, run, running_app  # noqa: F401  (plain_shell: autouse)

RAW_NAME = b"caf\xe9-\xff"  # Latin-1 é and a byte no encoding uses: not UTF-8


@pytest.fixture
def bad_dir(tmp_path: Path) -> Path:
    path = tmp_path / os.fsdecode(RAW_NAME)
    path.mkdir()
    return path


def test_a_directory_that_is_not_utf8_round_trips_and_every_listing_works(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path, bad_dir: Path
) -> None:
    good = tmp_path / "good"
    good.mkdir()
    [bad_id] = make_sessions(bad_dir, "echo typed \udcfe byte")
    [good_id] = make_sessions(good, "fine")

    store = Store(load_config(env={}))
    path = store.find_log(bad_id)
    assert path is not None
    # The log keeps the exact bytes (JSON \udcNN escapes, documented in dsh(1)), and gives them back.
    assert b"\\udcff" in path.read_bytes()
    assert os.fsencode(read_header(path)["cwd"]) == os.fsencode(str(bad_dir))
    assert read_log(path).events[0]["text"] == "echo typed \udcfe byte"

    listing = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert listing.returncode == 0 and listing.stderr == ""
    assert_clean(listing)
    assert bad_id in listing.stdout and good_id in listing.stdout
    assert "caf\\xe9-\\xff" in listing.stdout and "typed \\xfe byte" in listing.stdout

    here = run_dsh(dsh_cmd, dsh_env, "sessions", cwd=bad_dir)
    assert here.returncode == 0 and bad_id in here.stdout and good_id not in here.stdout
    assert_clean(here)

    rows = json.loads(run_dsh(dsh_cmd, dsh_env, "sessions", "--all", "--json").stdout)
    by_id = {row["id"]: row for row in rows}
    assert os.fsencode(by_id[bad_id]["cwd"]) == os.fsencode(str(bad_dir))
    assert by_id[bad_id]["title"] == "echo typed \udcfe byte"

    # The index holds it as it is, so a second refresh finds nothing to redo.
    assert store.refresh() == [] and not store.index.changed
    assert {s.id for s in store.summaries(cwd=str(bad_dir))} == {bad_id}
    store.close()


def test_the_picker_lists_such_sessions_in_both_scopes(tmp_path: Path, bad_dir: Path) -> None:
    [bad_id] = make_sessions(bad_dir, "in bad")
    [other] = make_sessions(tmp_path, "elsewhere")
    store = Store(load_config(env={}))
    store.refresh()
    model = open_picker(store.index, cwd=str(bad_dir), current_session_id=None, own_pid=os.getpid(), now=0.0)
    assert [c.id for c in model.visible] == [bad_id]
    assert "\\xff" in model.visible[0].workspace_label
    everything = load_rest(store.index, cwd=str(bad_dir), current_session_id=None, own_pid=os.getpid())
    assert everything.error is None
    assert {c.id for c in everything.rows} == {bad_id, other}
    assert [c.id for c in everything.here] == [bad_id]
    store.close()


def test_a_session_index_built_before_is_rebuilt_and_keeps_every_row(tmp_path: Path, bad_dir: Path) -> None:
    ids = make_sessions(bad_dir, "one", "two") + make_sessions(tmp_path, "three")
    db = Path(os.environ["DSH_HOME"]) / "session-query.db"
    index = SessionIndex(db, Path(os.environ["DSH_HOME"]) / "sessions")
    index.refresh()
    index.close()
    again = SessionIndex(db, Path(os.environ["DSH_HOME"]) / "sessions")
    assert again.refresh() == [] and not again.changed
    assert sorted(s.id for s in again.summaries()) == sorted(ids)
    again.close()


def test_a_line_with_a_byte_that_is_not_utf8_reaches_the_pane_as_that_byte(tmp_path: Path) -> None:
    line = "printf 'A\udcffB' > out.bin"

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.app.handle_line(line)  # what the prompt hands over for a typed 0xff (surrogateescape)
            await h.wait(
                lambda: (tmp_path / "out.bin").exists() and (tmp_path / "out.bin").stat().st_size == 3,
                "the shell to write the file",
            )
            inputs = [e["text"] for e in read_log(h.session.log.path).events if e["type"] == "input"]
            assert inputs == [line]

    run(body)
    assert (tmp_path / "out.bin").read_bytes() == b"A\xffB"


@pytest.mark.slow
def test_continue_in_a_directory_that_is_not_utf8(dsh_cmd: list[str], dsh_env: dict[str, str], bad_dir: Path) -> None:
    from tests.e2e.ptydriver import PtyDriver

    [sid] = make_sessions(bad_dir, "before")
    driver = PtyDriver([*dsh_cmd, "--continue"], env=dsh_env, cwd=bad_dir, rows=30, cols=110)
    try:
        screen = driver.wait_for("resumed session")
        assert sid in screen and "\\xe9-\\xff" in screen
        driver.type_line("/quit")
        assert driver.wait_exit() == 0
    finally:
        driver.close()
    assert b"Traceback" not in driver.raw
