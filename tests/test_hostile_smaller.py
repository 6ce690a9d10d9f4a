"""The smaller holes: bidi and format controls in a title never reach the outer terminal, and listing a
big log takes memory bounded by a chunk, not by the log."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

from dsh.store.index import SessionIndex
from dsh.store.workspace import workspace_partition
from dsh.term.screen import TermScreen
from dsh.ui import chrome
from tests.test_app_harness import plain_shell, run, running_app  # noqa: F401  (plain_shell: autouse)

BIDI = "\u202e\u2066\u200b\ufeff"


def test_bidi_and_format_controls_are_stripped_from_a_child_title() -> None:
    screen = TermScreen(80, 24)
    screen.feed_text(f"\x1b]2;evil{BIDI}txt.exe\x07")
    assert screen.title == "eviltxt.exe"
    screen.feed_text("\x1b]0;\U0001f468\u200d\U0001f469 family\x07")
    assert screen.title == "\U0001f468\u200d\U0001f469 family"  # joiners stay: emoji and scripts need them


def test_no_title_fragment_carries_a_format_control(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line(f"printf '\\033]2;tab{BIDI}name\\007'")
            await h.wait(lambda: h.pane.title == "tabname", "the child's title")
            h.pane.saved_title = f"saved{BIDI}"
            h.session.set_title(f"session{BIDI}")
            shown = "".join(t for _s, t, *_ in chrome.tabbar_fragments(h.app))
            shown += "".join(t for _s, t, *_ in chrome.status_fragments(h.app))
            shown += "".join(t for _s, t, *_ in chrome.pane_header(h.app, h.pane.id)())
            assert "tabname" in shown
            assert not any(ch in shown for ch in BIDI)

    run(body)


def test_listing_a_big_log_takes_memory_bounded_by_a_chunk(dsh_home: Path) -> None:
    root = dsh_home / "sessions"
    part = root / workspace_partition("/w")
    part.mkdir(parents=True, mode=0o700)
    os.chmod(root, 0o700)
    path = part / "20260101T000000Z-abcdef.jsonl"
    header = {"type": "session", "version": 1, "id": "20260101T000000Z-abcdef", "cwd": "/w"}
    event = json.dumps({"type": "input", "at": "2026-01-01T00:00:00.000Z", "text": "echo " + "x" * 90}) + "\n"
    with path.open("w") as handle:
        handle.write(json.dumps(header) + "\n")
        handle.write(event * (24 * 1024 * 1024 // len(event)))
    size = path.stat().st_size
    index = SessionIndex(dsh_home / "session-query.db", root)
    tracemalloc.start()
    try:
        assert index.refresh() == []
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    [row] = index.summaries()
    assert row.input_count == row.event_count == (size - len(json.dumps(header)) - 1) // len(event)
    # Before, the whole log and every record were held at once: 4 to 6 times its size.
    assert peak < size / 2, f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.1f} MB log"
    index.close()
