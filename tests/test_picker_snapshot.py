"""Keyless screen snapshots of the picker in both scopes (set PICKER_UPDATE_SNAPSHOTS=1 to rewrite them)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dsh.resume.candidates import CURRENT_SESSION, NO_WORKSPACE, Candidate, clean, live_reason
from dsh.resume.picker import PickerModel, render_text

SNAPSHOTS = Path(__file__).parent / "snapshots"
NOW = datetime(2026, 11, 29, 21, 0, 0, tzinfo=UTC)
HERE = "/home/dev/src/dsh"


def _c(sid: str, cwd: str | None, title: str, updated: str, panes: int = 1, **kw: object) -> Candidate:
    label = (cwd or "(no workspace)").replace("/home/dev", "~")
    fields: dict[str, object] = {
        "id": sid,
        "cwd": cwd,
        "workspace_label": label,
        "title": clean(title),
        "first_input": "",
        "created_at": updated,
        "updated_at": updated,
        "pane_count": panes,
        "live_pid": None,
        "unresumable_reason": None,
        "preview": (),
    }
    fields.update(kw)
    return Candidate(**fields)  # type: ignore[arg-type]


CANDIDATES = [
    _c(
        "20261129-a1",
        HERE,
        "resume picker: scope toggle and row budget",
        "2026-11-29T20:57:00.000Z",
        3,
        first_input="make test",
        preview=("$ make test", "....................", "58 passed in 1.2s"),
        branch="resume-picker",
        input_count=14,
        state="crashed",
        agents=("claude:0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11",),
    ),
    _c(
        "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a12",
        "/home/dev/src/webshop",
        "Webshop: VAT rounding",
        "2026-11-29T20:58:00.000Z",
        0,
        kind="claude",
        first_input="why is the VAT total off by a cent?",
        preview=("why is the VAT total off by a cent?",),
        branch="main",
        input_count=8,
    ),
    _c(
        "01a22f14-1a44-7cb0-8c09-f36f4c9df367",
        HERE,
        "start http.server for me",
        "2026-11-26T11:00:00.000Z",
        0,
        kind="codex",
        first_input="start http.server for me",
        input_count=2,
    ),
    _c("20261129-a2", HERE, "store index refresh", "2026-11-29T18:40:00.000Z", 2, unresumable_reason=CURRENT_SESSION),
    _c(
        "20261128-b1",
        "/home/dev/src/webshop",
        "checkout: fix rounding of VAT totals",
        "2026-11-28T09:15:00.000Z",
        first_input="pytest tests/test_cart.py",
    ),
    _c(
        "20261129-c1",
        "/home/dev/src/infra",
        "terraform plan for staging",
        "2026-11-29T20:59:30.000Z",
        live_pid=4242,
        unresumable_reason=live_reason(4242),
    ),
    _c("20261120-d1", None, "imported from an old log", "2026-11-20T12:00:00.000Z", unresumable_reason=NO_WORKSPACE),
    _c("20261127-a3", HERE, "a title with \x1b[31mcolour\x1b[0m codes, escaped", "2026-11-27T10:00:00.000Z"),
    _c(
        "20261101-e1",
        "/srv/projects/a-very-long-workspace-name/with/many/levels/below/it",
        "a very long title that goes on and on well past the width of the picker so it must be cut somewhere",
        "2026-11-01T08:00:00.000Z",
        12,
    ),
]


@pytest.mark.parametrize("scope", ["workspace", "all"])
def test_picker_snapshot(scope: str) -> None:
    model = PickerModel(CANDIDATES, current_cwd=HERE, now=NOW, tz=UTC)
    if scope == "all":
        model.toggle_scope()
    text = render_text(model.frame(100, 20))
    path = SNAPSHOTS / f"picker_{scope}.txt"
    if os.environ.get("PICKER_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
