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

With `--store N`, /resume is also measured through the real store: N session logs (with `--typed`
lines typed in each, 20 by default: 2,000,000 lines at 100,000 sessions) and `--agents` agent
conversations (20,000 by default, half Claude Code transcripts, half Codex rollouts, in the formats the
real CLIs write) are written to a temporary DSH_HOME and HOME, the index is built once (sessions, agent
stores, full-text lines), and then the app's sequence is timed: `open_picker` + first frame (the open),
Tab at once (every workspace's newest rows, before the rest arrives), `load_rest` on a worker thread
while keys are typed in the workspace scope, `add_all`, Tab; the transcript search over every typed line;
and the old open (every summary + candidates + model + first frame) as the reference. `--home DIR` does
the same on a store already in DIR (e.g. kept from an earlier run with `--keep`).

    python bench/picker.py [--rows N] [--workspaces N] [--store N [--typed N] [--agents N] [--keep] | --home DIR]
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

TARGET_OPEN_MS = 300.0  # the in-memory open
TARGET_STORE_OPEN_MS = 100.0  # /resume through the store, at 100,000 sessions and 20,000 conversations
TARGET_TAB_MS = 300.0  # Tab to all workspaces shows rows, even right after the open
TARGET_P95_MS = 30.0
TARGET_SEARCH_MS = 50.0  # a transcript search over 2,000,000 typed lines
WIDTH, HEIGHT = 120, 40

WORDS = (
    "fix add remove update refactor test flaky parser login auth token cache build deploy lint format "
    "resume picker store index layout split pane tab agent claude codex docs readme config toml json "
    "sqlite migrate schema api server client retry timeout memory leak render theme keyboard mouse "
    "scroll search history prompt session workspace release version bump changelog"
).split()
SYLLABLES = "ka lo mi ne ru sa ti vo ba de fi go hu ja ke li mo nu pa qe ri so tu va we xi yo zu".split()
COMMANDS = [
    "pytest -x tests/test_{w}.py",
    "make {w}",
    "git log --oneline {w}",
    "claude",
    "codex",
    "npm run {w}",
    "cargo test {w}",
    "vim src/{w}.py",
    "ls",
    "docker compose up {w}",
]


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
                    subprocess.run([fzf, "--filter", query[:k]], stdin=stdin, capture_output=True, check=False)
                times.append(time.perf_counter() - t0)
    return times


def report(name: str, values: list[float], target: float | None = None) -> None:
    p50, p95, worst = ms(pct(values, 50)), ms(pct(values, 95)), ms(max(values))
    verdict = "" if target is None else ("  OK" if p95 <= target else f"  OVER target {target:.0f} ms")
    print(f"  {name:<46} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  max {worst:6.1f} ms  n={len(values)}{verdict}")


def write_store(summaries: list[FakeSummary], home: str, typed: int = 20) -> tuple[float, float]:
    """Write the summaries as closed session logs under `home` (with `typed` lines typed in each) and build
    the index: (write s, build s)."""
    os.environ["DSH_HOME"] = home
    from dsh.config import load_config
    from dsh.store.log import log_path
    from dsh.store.store import open_store

    store = open_store(load_config())
    rng = random.Random(7)
    t0 = time.perf_counter()
    for s in summaries:
        path = log_path(store.root, s.cwd or "/", s.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [
            {"type": "session", "version": 1, "id": s.id, "cwd": s.cwd, "created_at": s.created_at, "dsh": "bench"},
            {"type": "input", "at": s.created_at, "text": s.first_input},
        ]
        for _ in range(typed - 1):
            text = rng.choice(COMMANDS).format(w=rng.choice(WORDS)) + f" {rng.choice(SYLLABLES)}{rng.randint(1, 999)}"
            lines.append({"type": "input", "at": s.created_at, "text": text})
        lines += [{"type": "title", "at": s.created_at, "title": s.title}, {"type": "close", "at": s.updated_at}]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    written = time.perf_counter() - t0
    t0 = time.perf_counter()
    store.index.refresh(sync_search=False)
    built = time.perf_counter() - t0
    store.close()
    return written, built


def write_agent_stores(agent_home: str, count: int, paths: list[str]) -> float:
    """Half Claude Code transcripts, half Codex rollouts, as Claude 2.1.197 and codex 0.171.0 write them."""
    rng = random.Random(11)
    t0 = time.perf_counter()
    start = datetime(2026, 11, 29, 20, 0, tzinfo=UTC).timestamp()
    for n in range(count):
        cwd = paths[n % len(paths)]
        stamp = datetime.fromtimestamp(start - n * 53.0, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        sid = (
            f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}"
            f"-8{rng.getrandbits(12):03x}-{rng.getrandbits(48):012x}"
        )
        prompts = [" ".join(rng.sample(WORDS, rng.randint(3, 8))) for _ in range(rng.randint(1, 4))]
        if n % 2 == 0:
            folder = os.path.join(agent_home, ".claude", "projects", cwd.replace("/", "-"))
            os.makedirs(folder, exist_ok=True)
            records: list[dict[str, object]] = [{"type": "mode", "mode": "normal", "sessionId": sid}]
            for text in prompts:
                base = {
                    "isSidechain": False,
                    "timestamp": stamp,
                    "cwd": cwd,
                    "sessionId": sid,
                    "version": "2.1.197",
                    "gitBranch": "main",
                    "userType": "external",
                    "entrypoint": "cli",
                }
                records.append(
                    {
                        "parentUuid": None,
                        "promptId": sid,
                        "type": "user",
                        **base,
                        "promptSource": "typed",
                        "origin": {"kind": "human"},
                        "message": {"role": "user", "content": text},
                    }
                )
                records.append(
                    {
                        "parentUuid": sid,
                        "type": "assistant",
                        **base,
                        "message": {"role": "assistant", "content": [{"type": "text", "text": "x" * 400}]},
                    }
                )
            path = os.path.join(folder, f"{sid}.jsonl")
        else:
            day = stamp[:10].split("-")
            folder = os.path.join(agent_home, ".codex", "sessions", *day)
            os.makedirs(folder, exist_ok=True)
            records = [
                {
                    "timestamp": stamp,
                    "type": "session_meta",
                    "payload": {
                        "id": sid,
                        "session_id": sid,
                        "timestamp": stamp,
                        "cwd": cwd,
                        "originator": "codex-tui",
                        "cli_version": "0.171.0",
                        "source": "vscode",
                        "base_instructions": {"text": "You are Codex. " * 200},
                    },
                }
            ]
            for text in prompts:
                records.append(
                    {
                        "timestamp": stamp,
                        "type": "response_item",
                        "payload": {
                            "type": "message",
                            "role": "user",
                            "content": [{"type": "input_text", "text": text}],
                        },
                    }
                )
                records.append(
                    {
                        "timestamp": stamp,
                        "type": "response_item",
                        "payload": {
                            "type": "message",
                            "role": "assistant",
                            "content": [{"type": "output_text", "text": "y" * 400}],
                        },
                    }
                )
            path = os.path.join(folder, f"rollout-{stamp[:19].replace(':', '-')}-{sid}.jsonl")
        with open(path, "w", encoding="utf-8") as out:
            out.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return time.perf_counter() - t0


def store_open(here: str | None, now: datetime) -> None:
    """Time /resume through the real store in $DSH_HOME (agent stores under $HOME), the way the app calls it.

    open = open_picker (this workspace's rows, every workspace's newest, a count, the agent rows) + first
    frame; Tab at once; then load_rest on a worker thread while keys are typed in the workspace scope on
    this thread (the loop); add_all; Tab; the transcript search. Reference in the same run: the old open,
    every summary + candidates + model + first frame.
    """
    import threading

    from dsh.agents.conversations.refresh import refresh_agents, sources
    from dsh.config import load_config
    from dsh.resume.loading import load_rest, open_picker
    from dsh.store import textsearch
    from dsh.store.store import open_store
    from dsh.store.workspace import workspace_partition

    store = open_store(load_config())
    index = store.index
    t0 = time.perf_counter()
    index.refresh(sync_search=False)
    refreshed = time.perf_counter() - t0
    t0 = time.perf_counter()
    passes = 0
    while refresh_agents(index, sources({}, os.environ)).more:
        passes += 1
    agents_in = time.perf_counter() - t0
    t0 = time.perf_counter()
    index.sync_search()
    synced = time.perf_counter() - t0
    conversations = index.read(lambda conn: conn.execute("SELECT count(*) FROM agent_conversations").fetchone()[0])
    # A row of `lines` holds one or more lines (joined by newlines): count the lines.
    lines_sql = "SELECT coalesce(sum(length(text) - length(replace(text, char(10), '')) + 1), 0) FROM lines"
    typed_lines = index.read(lambda conn: conn.execute(lines_sql).fetchone()[0])
    t0 = time.perf_counter()
    while refresh_agents(index, sources({}, os.environ)).more:
        pass
    agents_warm = time.perf_counter() - t0
    if here is None:  # a store made elsewhere: open in the workspace of its newest session
        newest = index.recent(1)
        here = newest[0].cwd if newest and newest[0].cwd else "/"
    own = os.getpid()
    opens: list[float] = []
    tabs: list[float] = []
    for _ in range(5):
        t0 = time.perf_counter()
        model = open_picker(index, cwd=here, current_session_id=None, own_pid=own, now=now.timestamp(), agents=True)
        model.frame(WIDTH, HEIGHT)
        opens.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        model.toggle_scope()  # Tab right after the open: the newest rows of every workspace are there
        model.frame(WIDTH, HEIGHT)
        tabs.append(time.perf_counter() - t0)
        shown = len(model.visible)
        model.toggle_scope()
    here_count, all_count = model.counts

    got: list[object] = []
    loaded_in: list[float] = []

    def work() -> None:
        t = time.perf_counter()
        got.append(load_rest(index, cwd=here, current_session_id=None, own_pid=own, agents=True))
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
    rows_all = model.counts[0]

    searches: list[float] = []
    for query in ["http.server", "cargo test", "docker compose up", "pytest -x", "ka1", "zu99", "vim src/"]:
        for _ in range(3):
            t0 = time.perf_counter()
            found = index.read(lambda conn, q=query: textsearch.search(conn, q, limit=200))
            searches.append(time.perf_counter() - t0)
        model.set_query(query)
        model.set_transcript_hits(query, {hit.owner: hit.line for hit in found})
        model.frame(WIDTH, HEIGHT)

    t0 = time.perf_counter()
    listed = index.summaries(cwd=None)
    t1 = time.perf_counter()
    candidates = Candidate.from_summaries(listed, current_session_id=None, own_pid=own)
    old = PickerModel(candidates, current_cwd=here, now=now, current_workspace=workspace_partition(here))
    old.frame(WIDTH, HEIGHT)
    t2 = time.perf_counter()
    store.close()

    open_ms = ms(statistics.median(opens))
    verdict = "OK" if max(opens[1:]) * 1000 <= TARGET_STORE_OPEN_MS else f"OVER target {TARGET_STORE_OPEN_MS:.0f} ms"
    print(
        f"  through the store ({all_count:,} rows: sessions + {conversations:,} agent conversations;"
        f" {typed_lines:,} typed lines and prompts; this workspace {here_count}):"
    )
    print(
        f"    warm refresh of the logs {ms(refreshed):.0f} ms; agent stores read in {agents_in:.1f} s"
        f" ({passes + 1} passes), then warm in {ms(agents_warm):.0f} ms; full-text indexing {synced:.1f} s"
    )
    print(
        f"    open (open_picker + first frame): first {ms(opens[0]):.1f} ms (new connection), "
        f"then median {open_ms:.1f} ms, max {ms(max(opens[1:])):.1f} ms  {verdict}"
    )
    tab_verdict = "OK" if max(tabs) * 1000 <= TARGET_TAB_MS else f"OVER target {TARGET_TAB_MS:.0f} ms"
    print(
        f"    Tab right after the open ({shown} newest rows shown at once): "
        f"median {ms(statistics.median(tabs)):.1f} ms, max {ms(max(tabs)):.1f} ms  {tab_verdict}"
    )
    print(
        f"    load_rest on a worker thread: {ms(loaded_in[0]):.0f} ms; add_all + frame on the loop "
        f"{ms(added):.1f} ms; Tab after: {ms(tab):.1f} ms ({rows_all:,} rows)"
    )
    report("keystroke + wake, workspace, during load_rest", busy_keys, TARGET_P95_MS)
    report("keystroke, all, after the rows arrived", keys_all, TARGET_P95_MS)
    report(f"transcript search ({typed_lines:,} lines)", searches, TARGET_SEARCH_MS)
    old_ms = ms(t2 - t0)
    print(
        f"    reference, the old open: {old_ms:.0f} ms (summaries {ms(t1 - t0):.0f} ms + candidates, model, "
        f"frame {ms(t2 - t1):.0f} ms); ratio open/old: {open_ms / old_ms:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--workspaces", type=int, default=2_000)
    parser.add_argument("--store", type=int, default=0, help="also open through the real store with N logs")
    parser.add_argument("--typed", type=int, default=20, help="lines typed in each stored session")
    parser.add_argument("--agents", type=int, default=20_000, help="agent conversations in the stores")
    parser.add_argument("--keep", help="make the store in this folder and keep it (for --home later)")
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
    print(
        f"  open (candidates {ms(t1 - t0):.0f} ms + model and first frame {ms(t2 - t1):.0f} ms): "
        f"{open_ms:.0f} ms  {verdict}"
    )
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
        os.environ["HOME"] = os.path.join(args.home, "agent-home")
        store_open(None, now)
    elif args.store:
        with tempfile.TemporaryDirectory(prefix="dsh-bench-") as scratch:
            home = args.keep or scratch
            os.environ["HOME"] = os.path.join(home, "agent-home")
            os.environ.pop("CLAUDE_CONFIG_DIR", None)
            os.environ.pop("CODEX_HOME", None)
            written, built = write_store(summaries[: args.store], home, typed=args.typed)
            paths = sorted({s.cwd for s in summaries[: args.store] if s.cwd})
            agents_written = write_agent_stores(os.environ["HOME"], args.agents, paths)
            print(
                f"  store of {args.store:,} logs ({args.typed} lines typed in each) written in {written:.1f} s, "
                f"indexed in {built:.1f} s; {args.agents:,} agent conversations written in {agents_written:.1f} s"
            )
            store_open(here, now)


if __name__ == "__main__":
    main()
