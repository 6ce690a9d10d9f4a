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


def _held_listing(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """The picker's listing (`load_rest_and_refresh`) held until `release` is set; `listing` says it began."""
    listing = threading.Event()
    release = threading.Event()
    real = loading.load_rest_and_refresh

    def held(*args: Any, **kw: Any) -> list[str]:
        listing.set()
        release.wait(30)
        return real(*args, **kw)

    monkeypatch.setattr(loading, "load_rest_and_refresh", held)
    return listing, release


def test_a_long_listing_leaves_the_sessions_worker_free(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What waits on the session's worker (the prompt's history, which the keys typed at an attach wait
    for) is not queued behind a listing of every row, which takes seconds at 100,000 sessions."""
    listing, release = _held_listing(monkeypatch)

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


@pytest.mark.parametrize("indexed_by", ["this picker", "another dsh"])
def test_a_session_written_while_the_picker_is_open_is_searched_then_read_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indexed_by: str
) -> None:
    """A look at the disk while the picker is open finds a new session: its lines are searched again at
    once, then that row alone is read and joins the rows (every row is listed once, at the open). Also
    when another dsh (`dsh sessions`, a client starting) indexed it first, which leaves the picker's own
    refresh nothing to change."""
    import io

    from dsh.store.index import SessionIndex
    from dsh.store.log import SessionLog

    listings: list[int] = []
    real = loading.load_rest

    def counted(*args: Any, **kw: Any) -> Any:
        listings.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(loading, "load_rest", counted)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("/resume")
            await h.wait(lambda: h.app.mode == Mode.PICKER and h.app.picker.all_loaded, "every row")
            await h.wait(lambda: not h.app.resume._loading, "the open's listing and its look at the disk")
            view = h.app.picker_view
            seen: list[str] = []
            add_all, search_again = view.add_all, view.search_again
            monkeypatch.setattr(view, "add_all", lambda rows: (seen.append("rows"), add_all(rows)))
            monkeypatch.setattr(view, "search_again", lambda: (seen.append("search"), search_again()))
            store = h.session.store
            log = SessionLog.create(store.root, "/w/elsewhere")
            log.append("input", text="make the ocelot")
            log.close()
            if indexed_by == "another dsh":
                other = SessionIndex(store.index.db_path, store.root, progress=io.StringIO())
                other.refresh()
                other.close()
            h.send("\t")  # every workspace
            await h.wait(lambda: any(c.id == log.id for c in h.app.picker.visible), "the new session listed")
            assert seen[:3] == ["search", "rows", "search"], seen
            assert len(listings) == 1
            h.send("\x1b")
            await h.wait(lambda: h.app.mode != Mode.PICKER, "the picker closed")

    run(body)


def test_a_first_frame_s_index_refresh_is_left_to_the_picker_that_is_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dsh --resume`: the picker opens before the first frame and lists every row, then refreshes the
    index itself. The first frame's own refresh beside it did the same work on another thread, taking
    the GIL from the keys typed at the open; it is not made while this view's picker lists."""
    from dsh.store.index import SessionIndex

    listing, release = _held_listing(monkeypatch)
    refreshes: list[str] = []
    real_refresh = SessionIndex.refresh

    def counted(self: SessionIndex, *args: Any, **kw: Any) -> Any:
        refreshes.append(threading.current_thread().name)
        return real_refresh(self, *args, **kw)

    monkeypatch.setattr(SessionIndex, "refresh", counted)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            await h.wait(lambda: h.app._first_frame_out, "the first frame")
            await asyncio.wrap_future(h.session.worker.submit(lambda: None))  # its own refresh done
            h.type_line("/resume")
            await h.wait(lambda: h.app.mode == Mode.PICKER and listing.is_set(), "the picker, listing")
            del refreshes[:]
            try:
                h.app.refresh_index_in_background()  # as a first frame drawn now would ask
                await asyncio.wrap_future(h.session.worker.submit(lambda: None))
                assert refreshes == []
            finally:
                release.set()
            await h.wait(lambda: not h.app.resume._loading, "the listing and its own look at the disk")
            assert len(refreshes) == 1  # the picker's, after its rows
            h.app.refresh_index_in_background()  # the picker done: a first frame's refresh again
            await asyncio.wrap_future(h.session.worker.submit(lambda: None))
            assert len(refreshes) == 2
            h.send("\x1b")
            await h.wait(lambda: h.app.mode != Mode.PICKER, "the picker closed")

    run(body)


def test_a_query_typed_before_the_picker_s_own_refresh_finds_the_lines_that_refresh_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys typed as the picker opens search the typed lines at once, while the picker's own look at the
    disk may still be indexing them (a session that ended just before, here written after the first
    frame's refresh). Once that look is done, the query is searched again: before, its hit was missed
    for as long as the picker stayed open ("No matching session" for a line in the index)."""
    from dsh.store.log import SessionLog

    listing, release = _held_listing(monkeypatch)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            await h.wait(lambda: h.app._first_frame_out, "the first frame")
            await asyncio.wrap_future(h.session.worker.submit(lambda: None))  # its own refresh done
            log = SessionLog.create(h.session.store.root, "/w/elsewhere")
            log.append("input", text="echo first line")
            log.append("input", text="make the ocelot")
            log.append("input", text="echo third")
            log.close()
            h.type_line("/resume")
            await h.wait(lambda: h.app.mode == Mode.PICKER and listing.is_set(), "the picker, listing")
            h.send("\t")  # every workspace
            h.send("ocelot")
            picker = h.app.picker
            await h.wait(lambda: picker._hits_query == "ocelot", "the search of the typed lines, before the refresh")
            release.set()
            await h.wait(lambda: not h.app.resume._loading, "the listing and its own look at the disk")

            def matched() -> bool:
                return any(c.id == log.id and picker.transcript_line(c) == "make the ocelot" for c in picker.visible)

            await h.wait(matched, "the row, shown with its matched line")
            h.send("\x1b")
            await h.wait(lambda: h.app.mode != Mode.PICKER, "the picker closed")

    run(body)
