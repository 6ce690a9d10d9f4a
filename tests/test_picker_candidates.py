"""Candidate.from_summary: display-safe text and the refusal reason of each row."""

from __future__ import annotations

from dataclasses import dataclass, field

from dsh.resume.candidates import CURRENT_SESSION, NO_WORKSPACE, Candidate


@dataclass(frozen=True)
class FakeSummary:
    id: str = "s1"
    path: str = "/h/sessions/x/s1.jsonl"
    cwd: str | None = "/home/u/proj"
    workspace: str = "proj-abc"
    workspace_label: str = "~/proj"
    title: str = "fix the parser"
    explicit_title: str | None = None
    first_input: str | None = "make test"
    created_at: str = "2026-11-29T20:00:00.000Z"
    updated_at: str = "2026-11-29T20:30:00.123Z"
    event_count: int = 3
    input_count: int = 1
    pane_count: int = 2
    live_pid: int | None = None
    archived: bool = False
    unresumable_reason: str | None = None
    preview: tuple[str, ...] = field(default_factory=tuple)


def _cand(**kw: object) -> Candidate:
    return Candidate.from_summary(FakeSummary(**kw), current_session_id="me", own_pid=100)  # type: ignore[arg-type]


def test_plain_row_is_resumable() -> None:
    c = _cand()
    assert c.unresumable_reason is None and not c.disabled
    assert (c.id, c.cwd, c.title) == ("s1", "/home/u/proj", "fix the parser")
    assert (c.first_input, c.pane_count) == ("make test", 2)
    assert c.workspace == "proj-abc"


def test_reasons_in_order_of_precedence() -> None:
    assert _cand(cwd=None, unresumable_reason=NO_WORKSPACE).unresumable_reason == NO_WORKSPACE
    # A summary without a cwd is refused even if the store did not say so.
    assert _cand(cwd=None).unresumable_reason == NO_WORKSPACE
    assert _cand(id="me").unresumable_reason == CURRENT_SESSION
    # A live session elsewhere is attached through its host, so it is not refused.
    assert _cand(live_pid=4242).unresumable_reason is None
    assert _cand(live_pid=100).unresumable_reason is None
    assert _cand(id="me", cwd=None).unresumable_reason == NO_WORKSPACE


def test_text_from_disk_is_escaped() -> None:
    c = _cand(
        title="evil\x1b]0;pwned\x07title",
        first_input="ls\r\n\x1b[2J",
        workspace_label="~/a\x1bb",
        preview=("out\x1b[31mred",),
        unresumable_reason="bad\x1b[0m",
    )
    for text in (c.title, c.first_input, c.workspace_label, c.preview[0], c.unresumable_reason or ""):
        assert "\x1b" not in text and "\x07" not in text and "\r" not in text and "\n" not in text
    assert c.title == "evil^[]0;pwned^Gtitle"


def test_title_falls_back_to_first_input_then_untitled() -> None:
    assert _cand(title="").title == "make test"
    assert _cand(title="", first_input=None).title == "untitled"


def test_label_derived_when_missing() -> None:
    c = _cand(workspace_label="", cwd="/srv/x")
    assert c.workspace_label == "/srv/x"


def test_odd_field_types_from_disk_do_not_break_a_row() -> None:
    c = _cand(preview=("ok", 3, None), title=42, live_pid="77", pane_count="x", id="s9")  # type: ignore[arg-type]
    assert c.preview == ("ok", "3", "")
    assert c.title == "42"
    assert c.live_pid is None and c.pane_count == 0
    assert _cand(preview="not a tuple").preview == ()
