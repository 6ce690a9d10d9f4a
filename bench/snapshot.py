"""Cost of one snapshot write and load, next to a plain non-atomic write of the same bytes.

Writes a session of 4 tabs x 3 panes, each with a 64 KiB scrollback tail, through `write_snapshot`
(temp file, fsync, rename, fsync the folder; unchanged tails skipped) and loads it back. The reference,
measured in the same run, writes the same JSON and tails with plain `open().write()` and no fsync:
what the bytes alone cost. This runs on the scheduler's worker thread, never on the keystroke path.

    python bench/snapshot.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def build(n_tabs: int, per_tab: int, round_no: int) -> tuple[object, dict[str, bytes]]:
    from dsh.persist.snapshot import PaneRecord, Snapshot, TabRecord

    tabs, panes, tails = [], [], {}
    for t in range(n_tabs):
        ids = [f"p{t}-{i}" for i in range(per_tab)]
        tabs.append(TabRecord(id=f"t{t}", title=f"tab {t}", layout={"split": "v", "children": ids}))
        for pane_id in ids:
            panes.append(
                PaneRecord(
                    id=pane_id,
                    tab=f"t{t}",
                    title=f"pane {pane_id}",
                    cwd="/tmp",
                    argv=["/bin/sh"],
                    env={"TERM": "xterm-256color"},
                    rows=40,
                    cols=120,
                    agent=None,
                    lifecycle="running",
                    exit_status=None,
                    attention=False,
                    last_message=None,
                    created_at="2026-11-29T20:00:00Z",
                )
            )
            tails[pane_id] = (f"round {round_no} {pane_id} ".encode() * 4000)[-64 * 1024 :]
    return Snapshot(session_id="bench", tabs=tabs, panes=panes), tails


def timed(fn: Callable[[], None], rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["DSH_HOME"] = home
        from dsh.persist.snapshot import load_snapshot, write_snapshot

        counter = iter(range(10**9))

        def changed() -> None:
            snap, tails = build(4, 3, next(counter))
            write_snapshot(snap, tails)  # type: ignore[arg-type]

        snap, tails = build(4, 3, 0)

        def unchanged() -> None:
            write_snapshot(snap, tails)  # type: ignore[arg-type]

        ref_dir = Path(home) / "ref"
        ref_dir.mkdir()

        def reference() -> None:
            s, t = build(4, 3, next(counter))
            (ref_dir / "snapshot.json").write_text(json.dumps(s.to_dict()))  # type: ignore[attr-defined]
            for pane_id, data in t.items():
                (ref_dir / f"{pane_id}.tail").write_bytes(data)

        ref = statistics.median(timed(reference, args.rounds))
        rows = [
            ("write, every tail changed", statistics.median(timed(changed, args.rounds))),
            ("write, tails unchanged", statistics.median(timed(unchanged, args.rounds))),
            ("load", statistics.median(timed(lambda: load_snapshot("bench") and None, args.rounds))),
        ]
        print(f"snapshot of 12 panes x 64 KiB, median of {args.rounds} rounds")
        print(f"  reference (plain write, no fsync): {ref:7.2f} ms")
        for name, ms in rows:
            print(f"  {name:<32} {ms:7.2f} ms   {ms / ref:5.1f}x reference")


if __name__ == "__main__":
    main()
