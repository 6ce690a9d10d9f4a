"""The picker telling sessions apart: agent rows beside dsh rows, transcript matches with their line in
the preview, the archived view where C-d brings a session back, and every workspace's newest rows at once."""

from __future__ import annotations

from datetime import UTC, datetime

from dsh.resume.candidates import Candidate
from dsh.resume.picker import ALL, WORKSPACE, PickerModel, render_text

NOW = datetime(2026, 11, 29, 21, 0, 0, tzinfo=UTC)
HERE = "/home/u/dsh"


def cand(sid: str, cwd: str, title: str, minute: int, **kw: object) -> Candidate:
    stamp = f"2026-11-29T20:{minute:02d}:00.000Z"
    fields: dict[str, object] = {
        "id": sid,
        "cwd": cwd,
        "workspace_label": cwd.replace("/home/u", "~"),
        "title": title,
        "first_input": "",
        "created_at": stamp,
        "updated_at": stamp,
        "pane_count": 1,
        "live_pid": None,
        "unresumable_reason": None,
        "preview": (),
    }
    fields.update(kw)
    return Candidate(**fields)  # type: ignore[arg-type]


ROWS = [
    cand("s1", HERE, "fix the picker", 50, preview=("make test",)),
    cand("s2", HERE, "store work", 40),
    cand("0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11", HERE, "agent conversation", 45, kind="claude", input_count=3),
    cand("s3", "/home/u/web", "landing page", 55),
]


def model(**kw: object) -> PickerModel:
    return PickerModel(ROWS, current_cwd=HERE, now=NOW, tz=UTC, **kw)  # type: ignore[arg-type]


def test_agent_and_dsh_rows_share_the_list_and_are_told_apart_by_key() -> None:
    m = model()
    assert [c.key for c in m.visible] == ["s1", "claude:0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11", "s2"]
    assert "claude · 3 msgs" in render_text(m.frame(100, 12))
    m.move(1)
    assert m.enter() is ROWS[2]


def test_a_transcript_match_adds_its_row_and_shows_the_line() -> None:
    m = model()
    m.set_query("http.server")
    assert m.visible == []
    assert not m.set_transcript_hits("http.ser", {"s:s2": "python -m http.server 8000"})  # an older query
    assert m.set_transcript_hits("http.server", {"s:s2": "python -m http.server 8000", "s:s3": "elsewhere"})
    assert [c.id for c in m.visible] == ["s2"] and m.count() == 1  # s3 is not of this workspace
    frame = render_text(m.frame(100, 12))
    assert "matched: python -m http.server 8000" in frame
    m.set_query("http.server x")
    assert m.transcript_line(ROWS[1]) is None  # the hits answered another query


def test_a_fuzzy_match_that_the_transcript_also_found_is_listed_once() -> None:
    m = model()
    m.set_query("picker")
    m.set_transcript_hits("picker", {"s:s1": "vim dsh/resume/picker.py"})
    assert [c.id for c in m.visible] == ["s1"]
    assert m.transcript_line(ROWS[0]) == "vim dsh/resume/picker.py"


def test_the_archived_view_lists_archived_sessions_and_brings_one_back() -> None:
    m = model()
    m.toggle_archived()
    assert m.loading and m.empty_message() == "Loading archived sessions…"
    old = cand("s9", HERE, "old experiment", 10, archived=True)
    m.set_archived([old, cand("s8", "/home/u/web", "elsewhere", 11, archived=True)])
    assert [c.id for c in m.visible] == ["s9"] and m.scope_line().startswith("Archived · This workspace · 1")
    assert isinstance(m.enter(), str)  # an archived row is brought back first, then resumed
    m.unarchive("s9")
    assert m.visible == []
    m.toggle_archived()
    assert "s9" in [c.id for c in m.visible] and not next(c for c in m.visible if c.id == "s9").archived
    m.toggle_archived()
    m.set_archived([old])  # a reload that has not seen the change yet does not bring it back
    assert m.visible == []


def test_tab_shows_the_newest_rows_of_every_workspace_before_the_rest_arrive() -> None:
    here = [c for c in ROWS if c.cwd == HERE]
    m = PickerModel(here, current_cwd=HERE, now=NOW, all_count=1000, all_recent=[ROWS[3], ROWS[0]])
    m.toggle_scope()
    assert m.scope == ALL and not m.loading and m.partial
    assert [c.id for c in m.visible] == ["s3", "s1"]
    assert "newest 2 while the rest loads" in m.scope_line() and m.counts[0] == 1000
    assert "2…/1000" in render_text(m.frame(100, 12))
    m.add_all(ROWS)
    assert not m.partial and m.counts[0] == 4
    m.toggle_scope()
    assert m.scope == WORKSPACE
