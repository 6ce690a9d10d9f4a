"""PickerModel: scope default and counts, Tab, label search only in `all`, row budget, refusals, ranking."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dsh.resume.candidates import CURRENT_SESSION, NO_WORKSPACE, Candidate
from dsh.resume.picker import ALL, WORKSPACE, AllRows, PickerModel, age, prepare_all, render_text

NOW = datetime(2026, 11, 29, 21, 0, 0, tzinfo=UTC)
HERE = "/home/u/dsh"


def cand(
    sid: str,
    cwd: str | None,
    title: str,
    updated: str,
    *,
    reason: str | None = None,
    first_input: str = "",
    label: str | None = None,
    preview: tuple[str, ...] = (),
) -> Candidate:
    return Candidate(
        id=sid,
        cwd=cwd,
        workspace_label=label if label is not None else (cwd or "(no workspace)").replace("/home/u", "~"),
        title=title,
        first_input=first_input,
        created_at=updated,
        updated_at=updated,
        pane_count=1,
        live_pid=None,
        unresumable_reason=reason,
        preview=preview,
    )


def sample() -> list[Candidate]:
    return [
        cand("a1", HERE, "fix resume picker", "2026-11-29T20:50:00.000Z"),
        cand("a2", HERE, "store index", "2026-11-29T19:00:00.000Z", reason=CURRENT_SESSION),
        cand("b1", "/home/u/webshop", "landing page css", "2026-11-29T20:55:00.000Z"),
        cand("b2", "/home/u/webshop", "checkout flow", "2026-11-20T10:00:00.000Z"),
        cand("c1", None, "orphan", "2026-10-01T10:00:00.000Z", reason=NO_WORKSPACE),
    ]


def model(cands: list[Candidate] | None = None, cwd: str = HERE) -> PickerModel:
    return PickerModel(sample() if cands is None else cands, current_cwd=cwd, now=NOW)


def ids(rows: list[Candidate]) -> list[str]:
    return [c.id for c in rows]


def test_default_scope_is_this_workspace_newest_first() -> None:
    m = model()
    assert m.scope == WORKSPACE
    assert ids(m.visible) == ["a1", "a2"]
    assert m.counts == (2, 5)
    assert m.scope_line() == "This workspace · 2 — Tab: all workspaces · 5"


def test_tab_toggles_and_clears_query_and_selection() -> None:
    m = model()
    m.set_query("fix")
    m.toggle_scope()
    assert m.scope == ALL and m.query == "" and m.selected_index == 0
    assert ids(m.visible) == ["b1", "a1", "a2", "b2", "c1"]
    assert m.scope_line() == "All workspaces · 5 — Tab: this workspace · 2"
    m.move(3)
    assert m.selected is not None and m.selected.id == "b2"
    m.toggle_scope()
    assert m.scope == WORKSPACE and m.selected_index == 0
    assert m.selected is not None and m.selected.id == "a1"


def test_empty_workspace_says_so_and_never_switches_scope() -> None:
    m = model(cwd="/home/u/elsewhere")
    assert m.scope == WORKSPACE
    assert m.visible == [] and m.selected is None
    assert m.empty_message() == "No sessions in this workspace — Tab shows all workspaces · 5"
    assert m.enter() == "no session to resume here"
    assert m.scope == WORKSPACE
    text = render_text(m.frame(80, 12))
    assert "No sessions in this workspace — Tab shows all workspaces · 5" in text


def test_workspace_label_is_searchable_only_in_all_scope() -> None:
    cands = [*sample(), cand("a3", HERE, "tidy imports", "2026-11-28T10:00:00.000Z", label="~/webshop-old")]
    m = model(cands)
    m.set_query("webshop")
    assert m.visible == []  # the label does not match in this workspace
    m.toggle_scope()
    m.set_query("webshop")
    assert set(ids(m.visible)) == {"b1", "b2", "a3"}


def test_search_covers_title_first_input_and_id() -> None:
    cands = [
        cand("x1", HERE, "alpha", "2026-11-29T20:00:00.000Z", first_input="make deploy"),
        cand("zeta9", HERE, "beta", "2026-11-29T19:00:00.000Z"),
    ]
    m = model(cands)
    m.set_query("deploy")
    assert ids(m.visible) == ["x1"]
    m.set_query("zeta9")
    assert ids(m.visible) == ["zeta9"]


def test_ranking_whole_word_then_substring_ties_newest_first() -> None:
    cands = [
        cand("n1", HERE, "xfixturex", "2026-11-29T20:59:00.000Z"),
        cand("n2", HERE, "fix it later", "2026-11-29T20:00:00.000Z"),
        cand("n3", HERE, "fix it", "2026-11-29T19:00:00.000Z"),
        cand("n4", HERE, "fix it", "2026-11-29T19:30:00.000Z"),
    ]
    m = model(cands)
    m.set_query("fix")
    # The whole word first, newest first whatever the length; the substring after.
    assert ids(m.visible) == ["n2", "n4", "n3", "n1"]
    positions = m.match_positions(m.visible[0])
    assert positions["title"] == (0, 1, 2)


def test_disabled_rows_stay_visible_and_enter_gives_the_reason() -> None:
    m = model()
    m.move(1)
    assert m.selected is not None and m.selected.id == "a2"
    assert m.enter() == CURRENT_SESSION
    m.toggle_scope()
    m.end()
    assert m.selected is not None and m.selected.id == "c1"
    assert m.enter() == NO_WORKSPACE
    m.home()
    chosen = m.enter()
    assert isinstance(chosen, Candidate) and chosen.id == "b1"
    text = render_text(m.frame(100, 20))
    assert "orphan  — session has no recorded workspace" in text
    assert "store index  — this is the current session" in text


def _many(n: int) -> list[Candidate]:
    return [
        cand(f"r{i:03d}", f"/w/{i % 3}", f"row {i:03d}", f"2026-11-29T{20 - i // 60:02d}:{59 - i % 60:02d}Z")
        for i in range(n)
    ]


@pytest.mark.parametrize("scope", [WORKSPACE, ALL])
def test_row_budget_counts_taller_rows_and_follows_selection(scope: str) -> None:
    m = model(_many(90), cwd="/w/0")
    if scope == ALL:
        m.toggle_scope()
    per_row = 2 if scope == ALL else 1
    height = 7
    assert len(m.window(height)) == height // per_row
    total = len(m.visible)
    for _ in range(total + 3):
        rows = m.window(height)
        assert len(rows) * per_row <= height
        assert m.selected in rows
        m.move(1)
    m.page(-1, height)
    assert m.selected in m.window(height)
    m.home()
    assert m.window(height)[0] == m.selected
    m.end()
    assert m.window(height)[-1] == m.selected == m.visible[-1]


@pytest.mark.parametrize("scope", [WORKSPACE, ALL])
def test_frame_never_overflows(scope: str) -> None:
    m = model(_many(90), cwd="/w/0")
    if scope == ALL:
        m.toggle_scope()
    for height in (1, 3, 6, 13, 30):
        for width in (5, 40, 100):
            m.move(7)
            lines = m.frame(width, height)
            assert len(lines) == height
            for line in lines:
                assert sum(len(text) for _, text in line) == width
    selected_title = m.selected.title if m.selected else ""
    assert selected_title in render_text(m.frame(100, 30))


def test_selected_row_is_reversed_and_matches_highlighted() -> None:
    m = model()
    m.set_query("pick")
    lines = m.frame(80, 12)
    row = lines[2]
    assert all("reverse" in style for style, _ in row)
    assert any("class:picker.match" in style and text == "pick" for style, text in row)
    assert m.cursor(80) == (6, 1)


def test_rename_and_archive_update_rows() -> None:
    m = model()
    m.rename("a1", "better\x1b[2J name")
    assert m.visible[0].title == "better^[[2J name"
    m.set_query("better")
    assert ids(m.visible) == ["a1"]
    m.set_query("")
    m.archive("a1")
    assert ids(m.visible) == ["a2"]
    assert m.counts == (1, 4)
    m.toggle_scope()
    assert "a1" not in ids(m.visible)


def test_preview_shows_the_highlighted_rows_last_lines() -> None:
    cands = [
        cand("p1", HERE, "with preview", "2026-11-29T20:00:00.000Z", preview=tuple(f"line {i}" for i in range(10)))
    ]
    text = render_text(model(cands).frame(80, 20))
    assert "p1 · ~/dsh" in text
    assert "line 9" in text and "line 6" in text and "line 5" not in text


def test_footer_carries_the_tab_hint() -> None:
    m = model()
    assert m.footer() == (
        "↑↓ move · Enter resume · Tab: all workspaces · C-r rename · C-d archive · C-a archived · Esc close"
    )
    m.toggle_scope()
    assert "Tab: this workspace" in m.footer()


def test_age_units() -> None:
    assert age("2026-11-29T20:59:15Z", NOW) == "45s"
    assert age("2026-11-29T20:57:00.000Z", NOW) == "3m"
    assert age("2026-11-29T19:00:00Z", NOW) == "2h"
    assert age("2026-11-24T21:00:00Z", NOW) == "5d"
    assert age("garbage", NOW) == "?"


def test_now_may_be_epoch_seconds() -> None:
    m = PickerModel(sample(), current_cwd=HERE, now=NOW.timestamp())
    assert m.now == NOW


def test_large_lists_rank_in_steps_and_end_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.resume import picker as picker_mod

    monkeypatch.setattr(picker_mod, "KEYSTROKE_BUDGET", 0.0)  # one chunk per keystroke, whatever the machine
    words = ["parser", "fixture", "login", "export", "flaky", "render"]
    cands = [
        cand(
            f"id{i:04d}",
            f"/w/{i % 7}",
            f"{words[i % 6]} {words[(i * 5) % 6]} {i}",
            f"2026-11-{1 + i % 28:02d}T10:00:00Z",
        )
        for i in range(1500)
    ]
    m = model(cands, cwd="/w/0")
    m.toggle_scope()
    m.set_query("fixrend")
    assert m.pending
    while len(m.visible) < 3 and m.refine(0.0):
        pass
    m.move(2)
    while m.refine(0.0):
        assert m.selected is not None
    assert not m.pending
    texts = [" · ".join(m._scopes[ALL].fields(c)) for c in m._scopes[ALL].rows]
    assert [c.id for c in m.visible] == [m._scopes[ALL].rows[i].id for i in _brute_tiers("fixrend", texts)]
    assert len(m.visible) == 250  # "fixture render" rows: one in six


def _brute_tiers(query: str, texts: list[str]) -> list[int]:
    from dsh.resume.search import Query

    q = Query(query)
    found = [(t, -s, i) for i, text in enumerate(texts) if (hit := q.tier(text, text.lower())) for t, s in [hit]]
    return [i for *_, i in sorted(found)]


def test_rows_found_ahead_of_ranking_can_be_moved_to_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.resume import picker as picker_mod

    monkeypatch.setattr(picker_mod, "KEYSTROKE_BUDGET", 0.0)
    stamp = "2026-11-01T10:00Z"
    cands = [cand(f"id{i:04d}", HERE, f"fix thing {i}", stamp) for i in range(3000)]
    m = model(cands)
    m.set_query("fix")
    assert m.pending  # most rows not looked at yet, but the head is known
    m.move(5)
    assert m.selected_index == 5
    assert m.selected == m.window(10)[5]


def test_prepare_builds_every_scope_index_up_front() -> None:
    m = model()
    m.prepare()
    assert all(scope._index is not None for scope in m._scopes.values())
    m.toggle_scope()
    m.set_query("css")
    assert ids(m.visible) == ["b1"]


def test_matches_in_id_and_first_input_are_highlighted_in_the_preview() -> None:
    cands = [cand("zq7", HERE, "plain title", "2026-11-29T20:00:00Z", first_input="make deploy")]
    m = model(cands)
    m.set_query("zq7")
    preview_head = m.frame(80, 20)[-6]
    assert ("class:picker.match bold fg:ansiyellow", "zq7") in preview_head
    m.set_query("deploy")
    lines = m.frame(80, 20)
    assert any(("class:picker.match bold fg:ansiyellow", "deploy") in line for line in lines)


def test_a_prompt_holding_the_whole_phrase_leads_and_shows_in_its_row() -> None:
    cands = [
        cand("noise", HERE, "snow adder a testing targets", "2026-11-29T20:59:00.000Z"),
        cand("thread", HERE, "add a makefile", "2026-11-20T10:00:00.000Z"),
    ]
    m = model(cands)
    query = "now add a test target"
    m.set_query(query)
    assert ids(m.visible) == ["noise"]  # the title alone: every term a substring
    assert m.set_transcript_hits(query, {cands[1].owner: "now add a test target"})
    assert ids(m.visible) == ["thread", "noise"]  # the prompt holds the phrase word for word
    text = render_text(m.frame(100, 20))
    assert "add a makefile  › now add a test target" in text
    assert m.row_match(cands[0]) is None  # matched in its title: nothing beside it


def test_a_prompt_of_a_conversation_open_in_a_pane_finds_the_session_holding_it() -> None:
    # `/agent codex` in a dsh session: the conversation is that session's row, and its prompt finds it.
    holder = cand("s1", HERE, "untitled", "2026-11-29T20:00:00.000Z")._replace(agents=("codex:th-1",))
    other = cand("s2", HERE, "fix the login", "2026-11-29T21:00:00.000Z")
    m = model([holder, other])
    query = "health endpoint"
    m.set_query(query)
    assert m.visible == []
    assert "a:codex:th-1" in (m.search_owners() or ())  # the search may return the conversation's lines
    assert m.set_transcript_hits(query, {"a:codex:th-1": "add a /health endpoint to server.py returning ok"})
    assert ids(m.visible) == ["s1"]
    assert m.transcript_line(m.visible[0]) == "add a /health endpoint to server.py returning ok"
    assert "untitled  › add a /health endpoint to server.py returning ok" in render_text(m.frame(100, 20))


def test_a_session_archived_here_is_in_the_archived_view_and_comes_back_right() -> None:
    m = model()
    m.toggle_archived()
    m.set_archived([])  # loaded: none archived yet
    m.toggle_archived()
    m.archive("a1")
    m.toggle_archived()
    assert ids(m.visible) == ["a1"] and m.visible[0].archived
    m.toggle_archived()
    m.archive("b1")  # of another workspace: in the archived view of every workspace
    m.toggle_archived()
    m.toggle_scope()
    assert ids(m.visible) == ["b1", "a1"]
    m.unarchive(m.visible[1].key)  # C-d on the second row brings back that one, not another
    assert ids(m.visible) == ["b1"]
    m.toggle_archived()
    assert "a1" in ids(m.visible) and "b1" not in ids(m.visible)


def test_archived_rows_loaded_late_from_a_stale_index_still_show_this_pickers_archive() -> None:
    m = model()
    m.archive("a1")  # before the archived view was ever loaded
    m.toggle_archived()
    m.set_archived([cand("old", HERE, "an old one", "2026-01-01T00:00:00.000Z")._replace(archived=True)])
    assert ids(m.visible) == ["a1", "old"]


def test_crashed_rows_are_marked_as_detached_ones_are() -> None:
    crashed = cand("x1", HERE, "the one that died", "2026-11-29T20:00:00.000Z")._replace(state="crashed")
    closed = cand("x2", HERE, "ended cleanly", "2026-11-29T19:00:00.000Z")
    text = render_text(model([crashed, closed]).frame(100, 20))
    assert "the one that died  ✗ crashed" in text and "ended cleanly  ✗" not in text


def _every_row(title_of_9: str) -> AllRows:
    """2,000 rows of every workspace, newest first, one planted ("flamingo checkout race") and row 9 titled
    `title_of_9`: the rows a look at the disk brings again with one of them changed."""
    out = [cand(f"r{i:04d}", f"/w/ws{i % 7}", f"task number {i}", f"2026-11-{1 + i // 100:02d}T00:00:00.000Z")
           for i in range(2000)]  # fmt: skip
    out[1500] = out[1500]._replace(title="flamingo checkout race")
    out[9] = out[9]._replace(title=title_of_9)
    return prepare_all(sorted(out, key=lambda c: c.updated_at, reverse=True), current_cwd=HERE, current_workspace=None)


def test_rows_that_come_while_an_answer_is_final_show_only_once_ranked_whole() -> None:
    """Every row again (a look at the disk changed one) while a query's complete answer is on screen: the
    screen keeps that answer until the same query is ranked over the new rows, then shows that at once,
    never a partly ranked one (the planted row left the screen for a few hundred ms, then came back)."""
    m = PickerModel([], current_cwd=HERE, now=NOW, all_count=2000)
    m.add_all(_every_row("task number 9"))
    m.toggle_scope()
    m.set_query("flamingoc")
    while m.refine(1.0):
        pass
    before = render_text(m.frame(100, 20))
    assert [c.title for c in m.visible] == ["flamingo checkout race"]
    m.add_all(_every_row("flamingo cheek"))
    frames = [render_text(m.frame(100, 20))]
    while m.refine(0.0):  # a chunk of rows at a time
        frames.append(render_text(m.frame(100, 20)))
    frames.append(render_text(m.frame(100, 20)))
    assert len(frames) > 3  # ranked in steps, off screen
    assert [i for i, f in enumerate(frames) if f != before] == [len(frames) - 1], (before, frames[-2], frames[-1])
    assert [c.title for c in m.visible] == ["flamingo checkout race", "flamingo cheek"]
    # A key typed meanwhile shows the new rows at once, ranked for the new query.
    m.add_all(_every_row("flamingo chalk"))
    m.set_query("flamingoch")
    while m.refine(1.0):
        pass
    assert [c.title for c in m.visible] == ["flamingo checkout race", "flamingo chalk"]


def test_a_key_typed_while_new_rows_wait_off_screen_ranks_only_its_own_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows a refresh brought wait off screen while the query is answered; a key then takes them for the new
    query alone. Settling them first ranked the query being replaced over them again: 25-30 ms of a key at
    100,000 rows (the PTY bench's slowest first repaints)."""
    from dsh.resume.search import FuzzyIndex

    m = PickerModel([], current_cwd=HERE, now=NOW, all_count=2000)
    m.add_all(_every_row("task number 9"))
    m.toggle_scope()
    m.set_query("task numb")
    m.refine(0.0)  # still being ranked as the rows come
    asked: list[str] = []
    search = FuzzyIndex.search

    def counted(self: FuzzyIndex, text: str, want: int = 64) -> object:
        asked.append(text)
        return search(self, text, want)

    monkeypatch.setattr(FuzzyIndex, "search", counted)
    m.add_all(_every_row("task number nine"))
    del asked[:]  # the staged ranking of the query on screen, made as the rows came
    m.set_query("task numbe")
    assert asked == ["task numbe"]
    while m.refine(1.0):
        pass
    assert "task number nine" in [c.title for c in m.visible]


def test_rows_that_come_while_a_query_is_ranked_let_that_ranking_finish_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.resume import picker

    # The keystroke's own slice of ranking is cut to its least, so the ranking is still partial after
    # set_query however fast the machine is at that moment.
    monkeypatch.setattr(picker, "KEYSTROKE_BUDGET", 0.0)

    rows = [cand(f"r{i:04d}", f"/w/ws{i % 7}", f"task number {i}", f"2026-11-{1 + i // 2000:02d}T00:00:00.000Z")
            for i in range(40000)]  # fmt: skip
    rows[25000] = rows[25000]._replace(title="flamingo checkout race")
    m = PickerModel([], current_cwd=HERE, now=NOW, all_count=40000)
    m.add_all(prepare_all(rows, current_cwd=HERE, current_workspace=None))
    m.toggle_scope()
    m.set_query("flamingoc")
    on_screen = m._live[ALL].ranking
    assert on_screen is not None and m.counting and m.refine(0.0)  # ranked in part
    m.add_all(prepare_all([*rows[:10], *rows[11:]], current_cwd=HERE, current_workspace=None))
    assert m._live[ALL].ranking is on_screen  # not ranked again from scratch
    while m.refine(0.0):
        pass
    assert [c.title for c in m.visible] == ["flamingo checkout race"] and m.counts[0] == 39999


def test_the_owners_of_every_row_come_with_the_listing_not_on_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Transcript hits find their rows by owner: at 120,000 rows making that map on the loop, when the
    first hits came, held a key's frame off for 130-180 ms. The listing brings it, made off the loop."""
    from dsh.resume import picker
    from dsh.resume.picker import owner_rows

    holder = cand("s1", "/w/a", "untitled", "2026-11-29T20:00:00.000Z")._replace(agents=("codex:th-1",))
    rows = [
        cand("s2", "/w/b", "fix the login", "2026-11-29T21:00:00.000Z"),
        holder,
        cand("th-1", "/w/a", "its own row", "2026-11-29T19:00:00.000Z")._replace(kind="codex"),
        cand("s3", "/w/c", "another holder", "2026-11-29T18:00:00.000Z")._replace(agents=("codex:th-1", "claude:x")),
    ]
    # The conversation's own row wins over the sessions holding it, the newest holder over older ones.
    assert owner_rows(rows) == {"s:s2": 0, "s:s1": 1, "a:codex:th-1": 2, "s:s3": 3, "a:claude:x": 3}
    listed = prepare_all(rows, current_cwd=HERE, current_workspace=None)
    m = PickerModel([], current_cwd=HERE, now=NOW, all_count=len(rows))
    m.add_all(listed)
    m.toggle_scope()
    m.set_query("health endpoint")

    def on_the_loop(*args: object) -> dict[str, int]:
        raise AssertionError("the owners were made again on the loop")

    monkeypatch.setattr(picker, "owner_rows", on_the_loop)
    assert m.set_transcript_hits("health endpoint", {"a:claude:x": "add a /health endpoint"})
    assert ids(m.visible) == ["s3"]


def test_prepare_all_gives_way_between_slices_and_lists_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its passes over every row go a slice at a time with `between` called between them (each held the
    GIL for 60-120 ms at 120,000 rows), and the rows, workspace rows and search texts are as in one go."""
    from dsh.resume import picker

    rows = _many(50)
    whole = prepare_all(rows, current_cwd=HERE, current_workspace=None)
    monkeypatch.setattr(picker, "_PREPARE_SLICE", 7)
    calls: list[int] = []
    sliced = prepare_all(rows, current_cwd=HERE, current_workspace=None, between=lambda: calls.append(1))
    assert len(calls) >= 50 // 7  # at least once between every two slices of the rows
    assert ids(sliced.rows) == ids(whole.rows) and ids(sliced.here) == ids(whole.here)
    assert whole.search_index is not None and sliced.search_index is not None
    assert sliced.search_index.texts == whole.search_index.texts and sliced.owners == whole.owners
