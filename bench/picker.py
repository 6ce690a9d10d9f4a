"""The /resume picker at scale: open time, per-keystroke time and time to a final ranking.

100,000 sessions across 2,000 workspaces, made in memory as store-like summaries. Measured:
- open: Candidate.from_summary for every summary + PickerModel + the first frame();
- the first Tab to `all` (builds the search index of every row);
- per keystroke, typing queries one character at a time in both scopes: set_query + frame(), p50/p95,
  for a fast typist (nothing runs between keys) and at 10 keys/s (ranking refined between keys, as
  the view does);
- time until the ranking is final after the last key;
- reference in the same run: a plain case-insensitive `str.find` substring scan of the same rows per
  keystroke (and `fzf --filter` over the same rows, if fzf is installed).

With `--store N`, /resume is also measured through the real store: N session logs are written to a
temporary DSH_HOME (closed logs, so no liveness probe), the index is built once, and then the app's
sequence is timed: `open_picker` + first frame (the open), `load_rest` on a worker thread while keys
are typed in the workspace scope, `add_all`, the first Tab; and the old open (every summary +
candidates + model + first frame) as the reference. `--home DIR` does the same on a store already in
DIR (e.g. kept from an earlier run), skipping the ~25 s of writing 100k logs.

    python bench/picker.py [--rows N] [--workspaces N] [--store N | --home DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from dsh.resume.candidates import Candidate
from dsh.resume.picker import PickerModel

TARGET_OPEN_MS = 300.0
TARGET_P95_MS = 30.0
WIDTH, HEIGHT = 120, 40

WORDS = (
    "fix add remove update refactor test flaky parser login auth token cache build deploy lint format "
    "resume picker store index layout split pane tab agent claude codex docs readme config toml json "
    "sqlite migrate schema api server client retry timeout memory leak render theme keyboard mouse "
    "scroll search history prompt session workspace release version bump changelog"
).split()
SYLLABLES = "ka lo mi ne ru sa ti vo ba de fi go hu ja ke li mo nu pa qe ri so tu va we xi yo zu".split()
COMMANDS = ["pytest -x tests/test_{w}.py", "make {w}", "git log --oneline {w}", "claude", "codex",
            "npm run {w}", "cargo test {w}", "vim src/{w}.py", "ls", "docker compose up {w}"]


@dataclass(frozen=True)
class FakeSummary:
    id: str
    cwd: str | None
    workspace: str
    workspace_label: str
    title: str
    first_input: str | None
    created_at: str
    updated_at: str
    pane_count: int
    live_pid: int | None = None
    unresumable_reason: str | None = None
    preview: tuple[str, ...] = field(default_factory=tuple)


def make_summaries(rows: int, workspaces: int, seed: int = 1) -> tuple[list[FakeSummary], str]:
    rng = random.Random(seed)
    names = set()
    while len(names) < workspaces:
        names.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    paths = [f"/home/dev/src/{n}" for n in sorted(names)]
    start = datetime(2026, 11, 29, 21, 0, tzinfo=UTC).timestamp()
    out = []
    for i in range(rows):
        cwd = paths[i % workspaces]
        t = start - i * 37.0
        stamp = datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        words = rng.sample(WORDS, rng.randint(2, 6))
        first = rng.choice(COMMANDS).format(w=rng.choice(WORDS))
        out.append(
            FakeSummary(
                id=datetime.fromtimestamp(t, UTC).strftime("%Y%m%dT%H%M%SZ") + f"-{rng.getrandbits(24):06x}",
                cwd=cwd,
                workspace=cwd.rsplit("/", 1)[1],
                workspace_label=cwd.replace("/home/dev", "~"),
                title=" ".join(words),
                first_input=first,
                created_at=stamp,
                updated_at=stamp,
                pane_count=rng.randint(1, 4),
                preview=(f"$ {first}", "ok"),
            )
        )
    return out, paths[0]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def ms(seconds: float) -> float:
    return seconds * 1000.0


def type_queries(model: PickerModel, queries: list[str], idle: float) -> tuple[list[float], list[float]]:
    """Type each query a key at a time: per-key times, and per query the time until its ranking is final."""
    keys: list[float] = []
    finals: list[float] = []
    for query in queries:
        model.set_query("")
        for k in range(1, len(query) + 1):
            t0 = time.perf_counter()
            model.set_query(query[:k])
            model.frame(WIDTH, HEIGHT)
            keys.append(time.perf_counter() - t0)
            if idle:
                deadline = time.perf_counter() + idle
                while time.perf_counter() < deadline and model.refine(0.015):
                    pass
        t0 = time.perf_counter()
        while model.refine(0.05):
            pass
        model.frame(WIDTH, HEIGHT)
        finals.append(time.perf_counter() - t0)
    return keys, finals


def reference_scan(texts: list[str], queries: list[str]) -> list[float]:
    lowered = [t.lower() for t in texts]
    times = []
    for query in queries:
        for k in range(1, len(query) + 1):
            needle = query[:k].lower()
            t0 = time.perf_counter()
            hits = [i for i, t in enumerate(lowered) if t.find(needle) >= 0]
            hits[:HEIGHT]
            times.append(time.perf_counter() - t0)
    return times


def fzf_reference(texts: list[str], queries: list[str]) -> list[float] | None:
    fzf = shutil.which("fzf")
    if fzf is None:
        return None
    times = []
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(texts))
        f.flush()
        for query in queries:
            for k in range(1, len(query) + 1):
                t0 = time.perf_counter()
                with open(f.name) as stdin:
                    subprocess.run(
                        [fzf, "--filter", query[:k]], stdin=stdin, capture_output=True, check=False
                    )
                times.append(time.perf_counter() - t0)
    return times


def report(name: str, values: list[float], target: float | None = None) -> None:
    p50, p95, worst = ms(pct(values, 50)), ms(pct(values, 95)), ms(max(values))
    verdict = "" if target is None else ("  OK" if p95 <= target else f"  OVER target {target:.0f} ms")
    print(f"  {name:<46} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  max {worst:6.1f} ms  n={len(values)}{verdict}")


def write_store(summaries: list[FakeSummary], home: str) -> tuple[float, float]:
    """Write the summaries as closed session logs under `home` and build the index: (write s, build s)."""
    os.environ["DSH_HOME"] = home
    from dsh.config import load_config
    from dsh.store.log import log_path
    from dsh.store.store import open_store

    store = open_store(load_config())
    t0 = time.perf_counter()
    for s in summaries:
        path = log_path(store.root, s.cwd or "/", s.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [
            {"type": "session", "version": 1, "id": s.id, "cwd": s.cwd, "created_at": s.created_at,
             "dsh": "bench"},
            {"type": "input", "at": s.created_at, "text": s.first_input},
            {"type": "title", "at": s.created_at, "title": s.title},
            {"type": "close", "at": s.updated_at},
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    written = time.perf_counter() - t0
    t0 = time.perf_counter()
    store.refresh()
    built = time.perf_counter() - t0
    store.close()
    return written, built


def store_open(here: str | None, now: datetime) -> None:
    """Time /resume through the real store in $DSH_HOME, the way the app calls it.

    open = open_picker (this workspace's rows + a count) + first frame; then load_rest on a worker
    thread while keys are typed in the workspace scope on this thread (the loop); add_all; the first Tab.
    Reference in the same run: the old open, every summary + candidates + model + first frame.
    """
    import threading

    from dsh.config import load_config
    from dsh.resume.loading import load_rest, open_picker
    from dsh.store.store import open_store
    from dsh.store.workspace import workspace_partition

    store = open_store(load_config())
    t0 = time.perf_counter()
    store.refresh()
    refreshed = time.perf_counter() - t0
    index = store.index
    if here is None:  # a store made elsewhere: open in the workspace of its newest session
        newest = index.summaries(cwd=None)[:1]
        here = newest[0].cwd if newest and newest[0].cwd else "/"
    own = os.getpid()
    opens: list[float] = []
    for _ in range(5):
        t0 = time.perf_counter()
        model = open_picker(index, cwd=here, current_session_id=None, own_pid=own, now=now.timestamp())
        model.frame(WIDTH, HEIGHT)
        opens.append(time.perf_counter() - t0)
    here_count, all_count = model.counts
    t0 = time.perf_counter()
    model.toggle_scope()
    model.frame(WIDTH, HEIGHT)
    tab_loading = time.perf_counter() - t0
    model.toggle_scope()

    got: list[object] = []
    loaded_in: list[float] = []

    def work() -> None:
        t = time.perf_counter()
        got.append(load_rest(index, cwd=here, current_session_id=None, own_pid=own))
        loaded_in.append(time.perf_counter() - t)

    worker = threading.Thread(target=work)
    worker.start()
    busy_keys: list[float] = []
    queries = ["test", "make", "fix login", "20261"]
    while worker.is_alive():
        for query in queries:
            for k in range(1, len(query) + 1):
                # A fast typist: the loop is idle between keys. Waking late (the worker holds the GIL)
                # is part of the key's latency.
                t0 = time.perf_counter()
                time.sleep(0.02)
                t1 = time.perf_counter()
                model.set_query(query[:k])
                model.frame(WIDTH, HEIGHT)
                busy_keys.append(time.perf_counter() - t1 + max(0.0, t1 - t0 - 0.02))
    worker.join()
    model.set_query("")
    t0 = time.perf_counter()
    model.add_all(got[0])  # type: ignore[arg-type]
    model.frame(WIDTH, HEIGHT)
    added = time.perf_counter() - t0
    t0 = time.perf_counter()
    model.toggle_scope()
    model.frame(WIDTH, HEIGHT)
    tab = time.perf_counter() - t0
    keys_all, _ = type_queries(model, ["resume picker", "flky", "sqlite migrate"], idle=0.0)

    t0 = time.perf_counter()
    listed = index.summaries(cwd=None)
    t1 = time.perf_counter()
    candidates = Candidate.from_summaries(listed, current_session_id=None, own_pid=own)
    old = PickerModel(candidates, current_cwd=here, now=now, current_workspace=workspace_partition(here))
    old.frame(WIDTH, HEIGHT)
    t2 = time.perf_counter()
    store.close()

    open_ms = ms(statistics.median(opens))
    verdict = "OK" if max(opens[1:]) * 1000 <= TARGET_OPEN_MS else f"OVER target {TARGET_OPEN_MS:.0f} ms"
    print(f"  through the store ({all_count:,} sessions, this workspace {here_count}; warm refresh "
          f"{ms(refreshed):.0f} ms):")
    print(f"    open (open_picker + first frame): first {ms(opens[0]):.1f} ms (new connection), "
          f"then median {open_ms:.1f} ms, max {ms(max(opens[1:])):.1f} ms  {verdict}")
    print(f"    Tab before every row arrives (loading line): {ms(tab_loading):.1f} ms")
    print(f"    load_rest on a worker thread: {ms(loaded_in[0]):.0f} ms; add_all + frame on the loop "
          f"{ms(added):.1f} ms; first Tab after: {ms(tab):.1f} ms")
    report("keystroke + wake, workspace, during load_rest", busy_keys, TARGET_P95_MS)
    report("keystroke, all, after the rows arrived", keys_all, TARGET_P95_MS)
    old_ms = ms(t2 - t0)
    print(f"    reference, the old open: {old_ms:.0f} ms (summaries {ms(t1 - t0):.0f} ms + candidates, model, "
          f"frame {ms(t2 - t1):.0f} ms); ratio open/old: {open_ms / old_ms:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--workspaces", type=int, default=2_000)
    parser.add_argument("--store", type=int, default=0, help="also open through the real store with N logs")
    parser.add_argument(
        "--home", help="open through the store already in this DSH_HOME (made by an earlier run) instead"
    )
    args = parser.parse_args()

    summaries, here = make_summaries(args.rows, args.workspaces)
    now = datetime(2026, 11, 29, 21, 0, tzinfo=UTC)
    project = here.rsplit("/", 1)[1]
    # Typical queries: words of a task, an abbreviation, a project name, an id prefix.
    workspace_queries = ["resume picker", "fix login", "flky", "20261129", "docs"]
    all_queries = [project, "resume picker", "fix login", "flky", "sqlite migrate"]

    print(f"picker bench: {args.rows:,} sessions, {args.workspaces:,} workspaces, frame {WIDTH}x{HEIGHT}")
    t0 = time.perf_counter()
    candidates = Candidate.from_summaries(summaries, current_session_id=None, own_pid=1)
    t1 = time.perf_counter()
    model = PickerModel(candidates, current_cwd=here, now=now)
    model.frame(WIDTH, HEIGHT)
    t2 = time.perf_counter()
    open_ms = ms(t2 - t0)
    verdict = "OK" if open_ms <= TARGET_OPEN_MS else f"OVER target {TARGET_OPEN_MS:.0f} ms"
    print(f"  open (candidates {ms(t1 - t0):.0f} ms + model and first frame {ms(t2 - t1):.0f} ms): "
          f"{open_ms:.0f} ms  {verdict}")
    print(f"  this workspace: {model.counts[0]} sessions; all: {model.counts[1]:,}")

    keys_ws, _finals_ws = type_queries(model, workspace_queries, idle=0.0)
    t0 = time.perf_counter()
    model.toggle_scope()
    model.set_query("x")
    model.set_query("")
    model.frame(WIDTH, HEIGHT)
    print(f"  first Tab to all workspaces (indexes every row): {ms(time.perf_counter() - t0):.0f} ms")

    keys_fast, finals_fast = type_queries(model, all_queries, idle=0.0)
    keys_paced, finals_paced = type_queries(model, all_queries, idle=0.085)
    report("keystroke, this workspace", keys_ws, TARGET_P95_MS)
    report("keystroke, all, fast typist", keys_fast, TARGET_P95_MS)
    report("keystroke, all, 10 keys/s", keys_paced, TARGET_P95_MS)
    report("ranking final after last key, all (fast)", finals_fast)
    report("ranking final after last key, all (10 keys/s)", finals_paced)

    model.set_query("")
    texts = [f"{c.title} {c.first_input} {c.id} {c.workspace_label}" for c in model.visible]
    ref = reference_scan(texts, all_queries)
    report("reference: str.find substring scan, all", ref)
    ratio = statistics.median(keys_fast) / statistics.median(ref)
    print(f"  ratio keystroke/reference (median, all, fast typist): {ratio:.2f}x")
    fzf = fzf_reference(texts, all_queries)
    if fzf is None:
        print("  fzf --filter: not installed, skipped")
    else:
        report("reference: fzf --filter (incl. start), all", fzf)
    if args.home:
        os.environ["DSH_HOME"] = args.home
        store_open(None, now)
    elif args.store:
        with tempfile.TemporaryDirectory(prefix="dsh-bench-") as home:
            written, built = write_store(summaries[: args.store], home)
            print(f"  store of {args.store:,} logs written in {written:.1f} s, index built in {built:.1f} s")
            store_open(here, now)


if __name__ == "__main__":
    main()
