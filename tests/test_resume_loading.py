"""The fast /resume open: this workspace's rows and a count first, every workspace's rows later, one result."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from dsh.resume.candidates import CURRENT_SESSION, NO_WORKSPACE, Candidate
from dsh.resume.loading import load_rest, open_picker
from dsh.resume.picker import ALL, WORKSPACE, AllRows, PickerModel, render_text
from dsh.store.index import SessionIndex
from dsh.store.log import SessionLog, append_event
from dsh.store.workspace import workspace_partition

HERE = "/home/u/dsh"
NOW = 1_800_000_000.0


def make(root: Path, cwd: str, *inputs: str, close: bool = True) -> SessionLog:
    log = SessionLog.create(root, cwd)
    for text in inputs:
        log.append("input", text=text)
    if close:
        log.close()
    return log


def no_cwd_log(root: Path, folder_cwd: str, sid: str) -> None:
    """A log kept in `folder_cwd`'s folder whose header records no cwd at all."""
    path = root / workspace_partition(folder_cwd) / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    head = {"type": "session", "version": 1, "id": sid, "created_at": "2026-01-01T00:00:00.000Z"}
    path.write_text(json.dumps(head) + "\n" + json.dumps({"type": "close", "at": "2026-01-01T00:00:01Z"}) + "\n")


class World:
    """A store with this workspace and others: archived, live, current, unresumable rows among them."""

    def __init__(self, root: Path, index: SessionIndex) -> None:
        self.root, self.index = root, index
        self.mine = [make(root, HERE, f"here {i}") for i in range(4)]
        self.others = [make(root, f"/home/u/other{i % 3}", f"there {i}") for i in range(9)]
        self.archived = make(root, HERE, "hidden here")
        append_event(self.archived.path, "archive", archived=True)
        self.archived_there = make(root, "/home/u/other0", "hidden there")
        append_event(self.archived_there.path, "archive", archived=True)
        self.current = make(root, HERE, "me", close=False)
        no_cwd_log(root, HERE, "20260101T000000Z-abcdef")
        index.refresh()

    def open(self) -> PickerModel:
        return open_picker(self.index, cwd=HERE, current_session_id=self.current.id, own_pid=12345, now=NOW)

    def rest(self) -> AllRows:
        return load_rest(self.index, cwd=HERE, current_session_id=self.current.id, own_pid=12345)

    def old_way(self) -> PickerModel:
        """The picker as /resume built it before the fast open: every row at once."""
        cands = Candidate.from_summaries(
            self.index.summaries(cwd=None), current_session_id=self.current.id, own_pid=12345
        )
        return PickerModel(cands, current_cwd=HERE, now=NOW, current_workspace=workspace_partition(HERE))


@pytest.fixture
def world(root: Path, index: SessionIndex) -> World:
    return World(root, index)


def rows(model: PickerModel, scope: str) -> list[Candidate]:
    if model.scope != scope:
        model.toggle_scope()
    return model.visible


def test_fast_open_shows_exactly_the_workspace_rows_of_a_full_load(world: World) -> None:
    fast = world.open()
    full = world.old_way()
    assert fast.scope == full.scope == WORKSPACE
    assert fast.visible == full.visible
    assert len({c.id for c in fast.visible}) == len(fast.visible) == 6
    assert fast.frame(100, 30) == full.frame(100, 30)


def test_rows_arriving_later_match_the_full_load_without_duplicates(world: World) -> None:
    fast = world.open()
    before = list(fast.visible)
    fast.add_all(world.rest())
    full = world.old_way()
    assert fast.visible == before
    assert rows(fast, ALL) == rows(full, ALL)
    ids = [c.id for c in fast.visible]
    assert len(ids) == len(set(ids)) == 4 + 9 + 1 + 1


def test_counts_before_and_after_the_rest_arrives(world: World) -> None:
    fast = world.open()
    assert not fast.all_loaded
    assert fast.counts == (6, 15)
    assert fast.scope_line() == "This workspace · 6 — Tab: all workspaces · 15"
    fast.add_all(world.rest())
    assert fast.all_loaded
    assert fast.counts == (6, 15)
    fast.toggle_scope()
    assert fast.counts == (15, 6)


def test_tab_before_the_rest_arrives_shows_the_newest_rows_then_fills_in(world: World) -> None:
    fast = world.open()
    fast.toggle_scope()
    assert fast.scope == ALL and not fast.loading and fast.partial
    assert fast.counts == (15, 6)
    text = render_text(fast.frame(100, 40))
    assert "All workspaces · 15 (newest 15 while the rest loads) — Tab: this workspace · 6" in text
    assert [c.id for c in fast.visible] == [c.id for c in world.rest().rows]  # the newest come from the index
    fast.set_query("there 7")  # typed while loading: kept, and applied again when the rows come
    fast.add_all(world.rest())
    assert not fast.loading and not fast.partial and fast.query == "there 7"
    while fast.refine(1.0):
        pass
    assert fast.visible[0].first_input == "there 7" and fast.selected_index == 0
    assert "while the rest loads" not in render_text(fast.frame(100, 20))


def test_tab_says_loading_when_not_even_the_newest_rows_are_there(world: World) -> None:
    here = world.open()
    fast = PickerModel(here.visible, current_cwd=HERE, now=NOW, all_count=15)
    fast.toggle_scope()
    assert fast.loading and "Loading all workspaces · 15…" in render_text(fast.frame(100, 20))
    assert fast.enter() == "all workspaces are still loading"
    fast.move(1)
    fast.end()
    assert fast.selected is None


def test_tab_back_and_forth_while_loading_keeps_the_workspace_rows(world: World) -> None:
    fast = world.open()
    here = list(fast.visible)
    fast.toggle_scope()
    fast.toggle_scope()
    assert fast.scope == WORKSPACE and fast.visible == here


def test_archived_rows_are_hidden_in_both_parts(world: World) -> None:
    fast = world.open()
    hidden = {world.archived.id, world.archived_there.id}
    assert not hidden & {c.id for c in fast.visible}
    fast.add_all(world.rest())
    assert not hidden & {c.id for c in rows(fast, ALL)}


def test_unresumable_rows_are_kept_with_their_reasons(world: World) -> None:
    fast = world.open()
    reasons = {c.id: c.unresumable_reason for c in fast.visible}
    assert reasons[world.current.id] == CURRENT_SESSION
    assert reasons["20260101T000000Z-abcdef"] == NO_WORKSPACE
    fast.add_all(world.rest())
    assert {c.id: c.unresumable_reason for c in rows(fast, ALL)}["20260101T000000Z-abcdef"] == NO_WORKSPACE


def test_a_live_session_of_another_process_is_resumable_in_both_parts(root: Path, index: SessionIndex) -> None:
    # Its host runs on: Enter attaches it, so it is listed as a live row, not refused.
    live = make(root, HERE, "busy", close=False)  # held by this test process, not by "dsh" pid 12345
    index.refresh()
    fast = open_picker(index, cwd=HERE, current_session_id=None, own_pid=12345, now=NOW)
    (row,) = fast.visible
    assert row.id == live.id and row.unresumable_reason is None
    assert row.live_pid == os.getpid() and row.state == "attached"
    fast.add_all(load_rest(index, cwd=HERE, current_session_id=None, own_pid=12345))
    assert fast.visible == [row]
    live.close()


def test_the_rest_loads_on_a_worker_thread_with_its_own_connection(world: World) -> None:
    fast = world.open()  # the test's connection is made on this thread
    got: list[AllRows] = []
    worker = threading.Thread(target=lambda: got.append(world.rest()))
    worker.start()
    worker.join(30)
    (rest,) = got
    assert rest.error is None and len(rest.rows) == 15
    fast.add_all(rest)
    assert len(rows(fast, ALL)) == 15
    assert world.index.count() == 15  # the app's own connection is still fine


def test_selection_moved_by_the_user_stays_on_its_row_when_rows_change(world: World) -> None:
    fast = world.open()
    fast.add_all(world.rest())
    fast.toggle_scope()
    fast.move(3)
    chosen = fast.selected
    assert chosen is not None
    newer = make(world.root, "/home/u/new", "brand new")
    world.index.refresh()
    fast.add_all(world.rest())
    assert fast.visible[0].id == newer.id
    assert fast.selected == chosen and fast.selected_index == 4


def test_the_top_row_stays_the_top_row_when_rows_change(world: World) -> None:
    fast = world.open()
    fast.toggle_scope()
    newer = make(world.root, "/home/u/new", "brand new")
    world.index.refresh()
    fast.add_all(world.rest())
    assert fast.selected_index == 0 and fast.selected is not None and fast.selected.id == newer.id


def test_a_workspace_query_keeps_its_ranking_when_the_same_rows_arrive(world: World) -> None:
    fast = world.open()
    fast.set_query("here 2")
    ranked = fast.visible
    fast.move(1)
    fast.add_all(world.rest())
    assert fast.query == "here 2" and fast.visible == ranked and fast.selected_index == 1


def test_new_workspace_rows_after_a_refresh_are_taken_in(world: World) -> None:
    fast = world.open()
    newer = make(world.root, HERE, "just now")
    world.index.refresh()
    fast.add_all(world.rest())
    assert fast.visible[0].id == newer.id
    assert fast.counts == (7, 16)


def test_rename_and_archive_before_the_rest_arrives_are_kept(world: World) -> None:
    fast = world.open()
    first, second = fast.visible[0], fast.visible[1]
    fast.rename(first.id, "renamed here")
    fast.archive(second.id)
    fast.add_all(world.rest())  # the index has not seen either change yet
    mine = {c.id: c.title for c in fast.visible}
    assert mine[first.id] == "renamed here" and second.id not in mine
    every = {c.id: c.title for c in rows(fast, ALL)}
    assert every[first.id] == "renamed here" and second.id not in every
    fast.set_query("renamed")
    assert [c.id for c in fast.visible] == [first.id]


def test_a_broken_index_is_reported_in_the_all_scope(tmp_path: Path, root: Path) -> None:
    db = tmp_path / "session-query.db"
    idx = SessionIndex(db, root)
    make(root, HERE, "x")
    idx.refresh()
    fast = open_picker(idx, cwd=HERE, current_session_id=None, own_pid=1, now=NOW)
    idx.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 500)  # damaged after the open, before the rest is read
    rest = load_rest(idx, cwd=HERE, current_session_id=None, own_pid=1)
    assert rest.rows == [] and rest.error is not None and "session index" in rest.error
    fast.add_all(rest)
    fast.toggle_scope()
    # The newest rows read at the open stay, and the reason the rest could not be read is shown.
    assert fast.partial and "session index" in (fast.note or "")
    assert "Cannot list all workspaces: " in render_text(fast.frame(100, 20))
    assert fast.counts == (1, 1)


def test_an_empty_store_opens_and_loads(index: SessionIndex) -> None:
    fast = open_picker(index, cwd=HERE, current_session_id=None, own_pid=1, now=NOW)
    assert fast.counts == (0, 0)
    assert "No sessions in this workspace" in fast.empty_message()
    fast.add_all(load_rest(index, cwd=HERE, current_session_id=None, own_pid=1))
    fast.toggle_scope()
    assert fast.empty_message() == "No sessions in any workspace"


def test_a_plain_candidate_list_may_be_added_too(world: World) -> None:
    fast = world.open()
    full = world.old_way()
    fast.add_all(rows(full, ALL))
    assert rows(fast, ALL) == rows(full, ALL)
    assert rows(fast, WORKSPACE) == rows(full, WORKSPACE)


def test_prepare_skips_the_all_scope_until_its_rows_come(world: World) -> None:
    fast = world.open()
    fast.prepare()
    fast.add_all(world.rest())
    fast.toggle_scope()
    fast.set_query("there")
    while fast.refine(1.0):
        pass
    assert len(fast.visible) == 9


def test_load_then_refresh_delivers_again_only_when_the_logs_changed(world: World) -> None:
    from dsh.resume.loading import load_rest_and_refresh

    fast = world.open()
    newer = make(world.root, HERE, "not indexed yet")  # written after the last refresh
    delivered: list[AllRows] = []

    def run() -> list[str]:
        return load_rest_and_refresh(
            world.index, cwd=HERE, current_session_id=world.current.id, own_pid=12345, deliver=delivered.append
        )

    assert run() == []
    assert [len(d.rows) for d in delivered] == [15, 16]  # what the index knew, then the refreshed rows
    for rows_now in delivered:
        fast.add_all(rows_now)
    assert fast.visible[0].id == newer.id and fast.counts == (7, 16)
    delivered.clear()
    assert run() == []
    assert [len(d.rows) for d in delivered] == [16]  # nothing changed: one delivery


def test_the_look_after_the_first_listing_reads_only_the_rows_that_changed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The current session's own log is always new or grown after the open: that one row is read again,
    not every row (2-4 s of a worker at 100,000 sessions, right after the first listing)."""
    from dsh.resume import loading

    listings: list[int] = []
    every_row = loading.load_rest

    def counted(*args: object, **kw: object) -> AllRows:
        listings.append(1)
        return every_row(*args, **kw)  # type: ignore[arg-type]  # (the same arguments, passed on)

    monkeypatch.setattr(loading, "load_rest", counted)
    world.current.set_title("renamed while the picker opens")
    delivered: list[AllRows] = []
    loading.load_rest_and_refresh(
        world.index, cwd=HERE, current_session_id=world.current.id, own_pid=12345, deliver=delivered.append
    )
    assert len(listings) == 1 and len(delivered) == 2
    assert [c.title for c in delivered[1].rows if c.id == world.current.id] == ["renamed while the picker opens"]
    assert_same_rows(delivered[1], world.rest())


def assert_same_rows(got: AllRows, want: AllRows) -> None:
    """Two listings of every row hold the same rows, in the same order, in both scopes, and search alike."""
    assert got.rows == want.rows
    assert got.here == want.here
    assert got.search_index is not None and want.search_index is not None
    assert got.search_index.texts == want.search_index.texts
    assert got.error == want.error


def test_an_update_of_the_listing_is_what_listing_every_row_again_gives(world: World) -> None:
    """Renamed, new, archived and deleted logs: the rows read again, merged into the listing, are the
    listing made from scratch (order, scopes, searched texts)."""
    from dsh.resume.loading import follow, update_rest

    listed = world.rest()
    world.others[2].path.parent.mkdir(exist_ok=True)
    append_event(world.others[2].path, "title", title="a new name")
    append_event(world.others[5].path, "archive", archived=True)
    append_event(world.archived.path, "archive", archived=False)  # back in the listing
    world.others[7].path.unlink()
    newer = make(world.root, "/home/u/other1", "brand new")
    followed = follow(world.index)
    assert followed.changed and len(followed.paths or ()) == 5
    got = update_rest(world.index, listed, followed, cwd=HERE, current_session_id=world.current.id, own_pid=12345)
    assert got.rows[0].id == newer.id
    assert_same_rows(got, world.rest())
    assert not any(gc_tracked(c) for c in got.rows)


def gc_tracked(c: Candidate) -> bool:
    import gc

    return gc.is_tracked(c)


def test_an_update_with_agents_reads_the_conversations_again_when_they_changed(root: Path, index: SessionIndex) -> None:
    from dsh.resume.loading import Followed, update_rest

    make(root, "/w/a", "make")
    index.refresh()
    add_conversations(index, 3)
    listed = load_rest(index, cwd="/w/here", current_session_id=None, own_pid=os.getpid(), agents=True)
    add_conversations(index, 5)  # two more, as a refresh of the agents' stores found them
    followed = Followed(True, [], [], agents=True)
    got = update_rest(index, listed, followed, cwd="/w/here", current_session_id=None, own_pid=1, agents=True)
    assert_same_rows(got, load_rest(index, cwd="/w/here", current_session_id=None, own_pid=1, agents=True))
    assert sum(c.is_agent for c in got.rows) == 5
    # The changes unknown (a rebuilt index): every row again.
    unknown = Followed(True, [], None)
    again = update_rest(index, listed, unknown, cwd="/w/here", current_session_id=None, own_pid=1, agents=True)
    assert sum(c.is_agent for c in again.rows) == 5


def test_gc_pause_always_ends_with_the_gc_as_it_was() -> None:
    import gc

    from dsh.resume.candidates import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("a failed load")
    assert gc.isenabled()


def test_gc_pauses_in_two_threads_end_when_the_last_one_does() -> None:
    """A search's pause that began before a listing's and ends while the listing goes on leaves the
    collector off until the listing's pause ends too."""
    import gc

    from dsh.resume.candidates import gc_paused

    listing_in, search_done, listing_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def listing() -> None:
        with gc_paused():
            listing_in.set()
            assert search_done.wait(5)
            seen.append(gc.isenabled())
        listing_out.set()

    with gc_paused():  # the search
        threading.Thread(target=listing, daemon=True).start()
        assert listing_in.wait(5)
    search_done.set()
    assert listing_out.wait(5)
    assert seen == [False] and gc.isenabled()


def test_rows_already_newest_first_keep_their_tie_order_and_others_are_sorted() -> None:
    from dsh.resume.picker import newest_first

    def c(sid: str, at: str) -> Candidate:
        return Candidate(sid, HERE, "~", sid, "", at, at, 1, None, None, ())

    ordered = [c("b", "2026-02"), c("a", "2026-02"), c("z", "2026-01")]
    assert newest_first(ordered) == ordered
    assert [x.id for x in newest_first(reversed(ordered))] == ["a", "b", "z"]


def test_release_empties_a_list_of_any_size() -> None:
    from dsh.store.index import release

    for n in (0, 1, 4999, 5000, 12345):
        items = list(range(n))
        release(items)
        assert items == []


def test_following_the_disk_makes_a_new_line_searchable_and_says_so(root: Path, index: SessionIndex) -> None:
    from dsh.resume.loading import follow
    from dsh.store import textsearch

    log = SessionLog.create(root, "/w/app")
    log.append("input", text="make build")
    index.refresh()
    assert follow(index)[:2] == (False, [])  # nothing changed: nothing to search again
    log.append("input", text="deploy the ocelot service")
    changed, warnings, paths, agents, _ = follow(index)
    assert changed and warnings == [] and paths == [str(log.path)] and not agents
    found = index.read(lambda conn: textsearch.search(conn, "ocelot"))
    assert [hit.owner for hit in found] == [f"s:{log.id}"]
    log.close()


def test_a_query_at_the_open_finds_an_old_row_before_every_row_is_here(
    root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.resume import loading
    from dsh.resume.loading import find_rows

    monkeypatch.setattr(loading, "RECENT_ROWS", 5)  # the open shows the 5 newest rows of every workspace
    old = SessionLog.create(root, "/w/far")
    old.append("input", text="make race")
    old.set_title("flamingo checkout race")
    old.close()
    for i in range(12):
        make(root, f"/w/ws{i}", f"pytest -k case{i}")
    index.refresh()
    model = open_picker(index, cwd="/w/here", current_session_id=None, own_pid=os.getpid(), now=0.0)
    model.toggle_scope()
    model.set_query("flamingoc")
    assert model.partial and model.visible == []  # not among the newest rows
    found = find_rows(index, "flamingoc", current_session_id=None, own_pid=os.getpid(), agents=False)
    assert [c.id for c in found.rows] == [old.id]  # the LIKE found it; the ranking decides it matches
    assert model.add_found("flamingoc", found.rows)
    assert [c.id for c in model.visible] == [old.id]
    assert not model.add_found("older query", found.rows)  # an answer to another query is dropped


def _open_with_old_row(root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch) -> tuple[PickerModel, str]:
    from dsh.resume import loading

    monkeypatch.setattr(loading, "RECENT_ROWS", 5)  # the open shows the 5 newest rows of every workspace
    old = SessionLog.create(root, "/w/far")
    old.append("input", text="make race")
    old.set_title("flamingo checkout race")
    old.close()
    for i in range(12):
        make(root, f"/w/ws{i}", f"pytest -k case{i}")
    index.refresh()
    model = open_picker(index, cwd="/w/here", current_session_id=None, own_pid=os.getpid(), now=0.0)
    model.toggle_scope()
    return model, old.id


def test_a_complete_answer_from_the_index_is_final_before_every_row_is_here(
    root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.resume.loading import find_rows
    from dsh.resume.picker_draw import render_text

    model, old_id = _open_with_old_row(root, index, monkeypatch)
    model.set_query("flamingoc")
    found = find_rows(index, "flamingoc", current_session_id=None, own_pid=os.getpid(), agents=False)
    assert found.complete  # fewer rows than asked for: every row the query can list
    assert model.add_found("flamingoc", found.rows, found.complete)
    assert model.answered() and not model.partial
    frame = render_text(model.frame(100, 30))
    assert "while the rest loads" not in frame, frame
    assert frame.splitlines()[1].split()[-1] == "1/13", frame
    # Every row arriving changes nothing on screen: the same row, the same count.
    model.add_all(load_rest(index, cwd="/w/here", current_session_id=None, own_pid=os.getpid()))
    while model.refine(1.0):
        pass
    assert [c.id for c in model.visible] == [old_id]
    assert render_text(model.frame(100, 30)) == frame


def test_an_answer_cut_at_its_limit_or_with_hits_elsewhere_is_not_final(
    root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.resume import loading
    from dsh.resume.loading import find_rows

    model, _old = _open_with_old_row(root, index, monkeypatch)
    model.set_query("case")  # 12 sessions hold it
    monkeypatch.setattr(loading, "CHECKED_ROWS", 11)
    found = find_rows(index, "case", current_session_id=None, own_pid=os.getpid(), agents=False)
    assert len(found.rows) == 12 and not found.complete  # more than can be checked one by one
    model.add_found("case", found.rows, found.complete)
    assert model.partial and "…" in render_text_of(model)
    # A typed line the transcript search matched in a row not here: not final either.
    model.set_query("flamingoc")
    found = find_rows(index, "flamingoc", current_session_id=None, own_pid=os.getpid(), agents=False)
    model.add_found("flamingoc", found.rows, found.complete)
    assert model.answered()
    model.set_transcript_hits("flamingoc", {"s:20260101T000000Z-abcdef": "flamingoc elsewhere"})
    assert not model.answered() and model.partial
    assert find_rows(index, "flämingo", current_session_id=None, own_pid=os.getpid(), agents=False).complete is False


def render_text_of(model: PickerModel) -> str:
    from dsh.resume.picker_draw import render_text

    return render_text(model.frame(100, 30))


def test_the_count_at_the_open_counts_every_conversation(
    root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The all scope's count at the open is the count every row brings (not the newest conversations')."""
    from dsh.resume import agent_rows, loading

    monkeypatch.setattr(loading, "RECENT_ROWS", 2)
    monkeypatch.setattr(agent_rows, "RECENT_ROWS", 2)
    make(root, "/w/a", "make")
    index.refresh()
    add_conversations(index, 5)
    model = open_picker(index, cwd="/w/here", current_session_id=None, own_pid=os.getpid(), now=0.0, agents=True)
    rows = load_rest(index, cwd="/w/here", current_session_id=None, own_pid=os.getpid(), agents=True)
    assert model.counts[1] == len(rows.rows) == 6


def add_conversations(index: SessionIndex, count: int) -> None:
    """`count` Claude conversations with a prompt each, and one never prompted (never listed)."""
    from dsh.store import agent_table
    from dsh.store.agent_table import ConversationRow

    def row(i: int, messages: int) -> ConversationRow:
        sid = f"00000000-0000-4000-8000-{i:012d}"
        at = f"2026-01-01T00:00:{i:02d}.000Z"
        path = f"/h/.claude/projects/x/{sid}.jsonl"
        return ConversationRow(
            path, "claude", 1, 1, 1, "claude", sid, f"claude:{sid}", "/w/a", f"task {i}", f"do task {i}",
            None, None, messages, messages, None, at, at, "/h",
        )  # fmt: skip

    index.write(lambda conn: agent_table.upsert(conn, [row(i, 2) for i in range(count)] + [row(99, 0)]))


def test_the_best_rows_come_first_then_every_row_the_query_lists(
    root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row met only by its workspace's name is not among the first rows (title and first line), but is in
    the complete answer; a newer query waiting stops the second look."""
    from dsh.resume.loading import find_rows

    model, old_id = _open_with_old_row(root, index, monkeypatch)
    early: list[list[str]] = []
    found = find_rows(
        index, "w/far", current_session_id=None, own_pid=os.getpid(), agents=False,
        early=lambda f: early.append([c.id for c in f.rows]),
    )  # fmt: skip
    assert early == [[]] and found.complete and [c.id for c in found.rows] == [old_id]
    model.set_query("w/far")
    model.add_found("w/far", found.rows, found.complete)
    assert [c.id for c in model.visible] == [old_id] and not model.partial
    cut = find_rows(index, "w/far", current_session_id=None, own_pid=os.getpid(), agents=False, superseded=lambda: True)
    assert cut == ([], False)


def test_every_row_listed_is_out_of_the_cyclic_collector(world: World) -> None:
    """Listed rows hold only text and numbers: untracked, no collection walks them (they are freed as ever)."""
    import gc
    import weakref

    rows = load_rest(world.index, cwd="/w/app", current_session_id=None, own_pid=os.getpid())
    assert rows.rows and not any(gc.is_tracked(c) for c in rows.rows)
    assert not any(gc.is_tracked(c.preview) for c in rows.rows)
    # and the lists that hold them and their searched texts, which a collection would walk item by item
    assert rows.search_index is not None
    assert not any(gc.is_tracked(items) for items in (rows.rows, rows.here, *rows.search_index.lists()))
    title = rows.rows[0].title
    model = PickerModel([], current_cwd="/w/app", now=0.0, all_count=0)
    model.add_all(rows)
    model.toggle_scope()
    model.set_query(title)
    assert model.visible[0].title == title  # searched and drawn as before
    holder = weakref.ref(rows.search_index) if rows.search_index is not None else None
    del model, rows
    gc.collect()
    assert holder is None or holder() is None


def test_a_listing_of_every_row_gives_way_to_a_search_someone_waits_on(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the picker's search for typed keys runs, the listing beside it pauses between slices (both
    cores and the GIL were shared: the search took several times as long)."""
    from dsh.resume import candidates
    from dsh.resume.candidates import up_front
    from dsh.store import index as index_module

    monkeypatch.setattr(index_module, "_FETCH_SLICE", 1)
    monkeypatch.setattr(candidates, "_MAKE_SLICE", 10**9)  # the read of the index itself pauses
    monkeypatch.setattr(candidates, "GIVE_WAY_MAX", 10.0)
    done = threading.Event()
    got: list[AllRows] = []

    def listing() -> None:
        got.append(load_rest(world.index, cwd="/w/app", current_session_id=None, own_pid=os.getpid()))
        done.set()

    with up_front():
        threading.Thread(target=listing, daemon=True).start()
        assert not done.wait(0.5)  # paused at its first slice
    assert done.wait(10) and got[0].rows  # and on once the search is done
    # Nothing up front: no pause at all; and a search's own rows, or the loop's, never wait.
    done.clear()
    threading.Thread(target=listing, daemon=True).start()
    assert done.wait(5)
    with up_front():
        started = time.monotonic()
        open_picker(world.index, cwd="/w/app", current_session_id=None, own_pid=os.getpid(), now=0.0)
        assert time.monotonic() - started < 5


def test_a_listing_of_every_row_pauses_while_keys_are_typed(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.resume import candidates
    from dsh.resume.candidates import keys_typed

    monkeypatch.setattr(candidates, "GIVE_WAY_MAX", 10.0)
    done = threading.Event()

    def listing() -> None:
        load_rest(world.index, cwd="/w/app", current_session_id=None, own_pid=os.getpid())
        done.set()

    keys_typed(0.8)
    started = time.monotonic()
    threading.Thread(target=listing, daemon=True).start()
    assert done.wait(10)
    assert time.monotonic() - started >= 0.7  # it waited for the typing to pause
    keys_typed(0.0)


def test_a_look_at_the_disk_waits_while_keys_are_typed(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.resume import candidates
    from dsh.resume.candidates import keys_typed
    from dsh.resume.loading import follow

    monkeypatch.setattr(candidates, "GIVE_WAY_MAX", 10.0)
    keys_typed(0.8)
    started = time.monotonic()
    assert follow(world.index)[1] == []
    assert time.monotonic() - started >= 0.7  # it began once the typing paused
    keys_typed(0.0)


def test_a_background_job_gives_way_for_a_bounded_time_in_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys typed one at a time, without end: a background job's pauses add up to GIVE_WAY_TOTAL at most,
    and a new job has its own."""
    from dsh.resume import candidates
    from dsh.resume.candidates import give_way, in_the_background, keys_typed

    monkeypatch.setattr(candidates, "GIVE_WAY_MAX", 0.2)
    monkeypatch.setattr(candidates, "GIVE_WAY_TOTAL", 0.5)
    keys_typed(60.0)  # typing that never pauses
    try:
        for _job in range(2):
            with in_the_background():
                started = time.monotonic()
                for _slice in range(10):
                    give_way()
                took = time.monotonic() - started
            assert 0.45 <= took < 2.0, took  # paused, and for 0.5 s in all, not 10 x 0.2 s
    finally:
        keys_typed(0.0)


def test_past_its_budget_a_background_job_still_lets_a_keys_frames_go_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its GIVE_WAY_TOTAL spent, a job still pauses for KEY_FRAME after a key (its echo and ranking, which
    a listing's slices beside it made take twice as long), and not at all with no key typed."""
    from dsh.resume import candidates
    from dsh.resume.candidates import KEY_FRAME, give_way, in_the_background, keys_typed

    monkeypatch.setattr(candidates, "GIVE_WAY_TOTAL", 0.0)
    with in_the_background():
        keys_typed()
        started = time.monotonic()
        give_way()
        paused = time.monotonic() - started
        keys_typed(0.0)
        started = time.monotonic()
        give_way()
        unpaused = time.monotonic() - started
    assert paused >= KEY_FRAME * 0.8 and unpaused < KEY_FRAME * 0.8


def test_a_session_another_refresh_indexed_between_the_listing_and_its_own_refresh_is_listed(world: World) -> None:
    """The first frame's refresh (another thread) or another dsh indexed a new log after the picker read
    its rows and before the picker's refresh, which then had nothing left to change: the new session was
    never shown (in CI, an empty /resume for 10 s)."""
    import io

    from dsh.resume.loading import load_rest_and_refresh

    newer = make(world.root, "/home/u/other1", "brand new")  # on disk, not in the index yet
    delivered: list[AllRows] = []

    def deliver(rows: AllRows) -> None:
        if not delivered:
            other = SessionIndex(world.index.db_path, world.root, progress=io.StringIO())
            other.refresh()
            other.close()
        delivered.append(rows)

    load_rest_and_refresh(world.index, cwd=HERE, current_session_id=world.current.id, own_pid=12345, deliver=deliver)
    assert newer.id not in {c.id for c in delivered[0].rows}
    assert len(delivered) == 2 and newer.id in {c.id for c in delivered[1].rows}
    assert_same_rows(delivered[1], world.rest())
    assert delivered[1].generation == world.index.generation()


def test_conversations_are_made_rows_in_slices_that_give_way(
    root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listing's 20,000 conversations are made rows a slice at a time, giving way between slices (keys
    typed or a search up front go first), and the rows are the same as made at once."""
    from dsh.resume import agent_rows
    from dsh.resume.agent_rows import agent_candidates

    add_conversations(index, 7)
    whole = index.read(lambda conn: agent_candidates(conn))
    looks: list[int] = []
    monkeypatch.setattr(agent_rows, "_MAKE_SLICE", 3)
    monkeypatch.setattr(agent_rows, "give_way", lambda: looks.append(1))
    sliced = index.read(lambda conn: agent_candidates(conn))
    assert sliced == whole and len(whole) == 7 and len(looks) == 2  # 8 rows read (one never listed): 3 slices


def test_an_update_s_reads_give_way_as_a_whole_listing_s_do(
    root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """update_rest reads with a connection whose long reads go in slices that give way (load_rest's did,
    update_rest's did not: its reads held the GIL from the loop ranking a query typed meanwhile)."""
    from dsh.resume import loading
    from dsh.resume.candidates import give_way
    from dsh.resume.loading import Followed, update_rest

    make(root, "/w/a", "make")
    index.refresh()
    listed = load_rest(index, cwd="/w/here", current_session_id=None, own_pid=os.getpid(), agents=True)
    pauses: list[object] = []

    class Recording(SessionIndex):
        def close(self) -> None:
            pauses.append(self.give_way)
            super().close()

    monkeypatch.setattr(loading, "SessionIndex", Recording)
    update_rest(index, listed, Followed(True, [], [], agents=True), cwd="/w/here", current_session_id=None, own_pid=1)
    assert pauses == [give_way]


def test_conversations_read_again_unchanged_are_the_rows_made_before(root: Path, index: SessionIndex) -> None:
    """A listing of every conversation after one changed makes only that one a row again; the others are
    the same rows as before (20,000 made again cost a refresh's update 0.3 s of CPU), and equal to rows
    made from nothing."""
    from dsh.resume import agent_rows
    from dsh.resume.agent_rows import agent_candidates
    from dsh.store import agent_table

    add_conversations(index, 5)
    first = index.read(lambda conn: agent_candidates(conn))
    changed = index.read(lambda conn: agent_table.conversations(conn))[1]._replace(title="renamed", size=2)
    index.write(lambda conn: agent_table.upsert(conn, [changed]))
    again = index.read(lambda conn: agent_candidates(conn))
    by_id = {c.id: c for c in first}
    renamed = [c for c in again if c.title == "renamed"]
    assert len(renamed) == 1 and renamed[0] is not by_id[renamed[0].id]
    assert all(c is by_id[c.id] for c in again if c.title != "renamed")
    agent_rows._made = {}
    assert index.read(lambda conn: agent_candidates(conn)) == again


def test_a_conversation_row_made_for_another_home_is_made_again(
    root: Path, index: SessionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its label shows the cwd under the home as `~`: a row made before HOME changed is not kept."""
    from dsh.resume.agent_rows import agent_candidates

    add_conversations(index, 2)
    monkeypatch.setenv("HOME", "/elsewhere")
    assert {c.workspace_label for c in index.read(lambda conn: agent_candidates(conn))} == {"/w/a"}
    monkeypatch.setenv("HOME", "/w")
    assert {c.workspace_label for c in index.read(lambda conn: agent_candidates(conn))} == {"~/a"}
