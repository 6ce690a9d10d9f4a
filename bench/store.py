"""Benchmark the session store: 10,000 sessions across 500 workspaces (20 events each) in a temp home.

Prints the cold index build, a warm refresh with nothing changed, a refresh after 10 logs grew (each
appended by `append_event`, as a rename from another host's picker is), the full-text indexing of the
lines typed (which a listing leaves to the app's workers), and the whole-process time of
`dsh sessions --all --json`, then the same once every session has a real snapshot (see add_snapshots),
each with its target and a ratio against a reference measured in the same run on the same files. The
listing runs with a HOME whose only agent store holds the transcripts of the snapshots' agent panes
(written before anything is timed) unless `--agents-home` names one.
Run: `.venv/bin/python bench/store.py [--sessions N] [--agents-home DIR]`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from dsh.store.index import SessionIndex
from dsh.store.log import append_event
from dsh.store.scan import RACY_NS
from dsh.store.timefmt import iso_from_epoch
from dsh.store.workspace import workspace_partition

EVENTS_PER_SESSION = 20


def make_logs(root: Path, sessions: int, workspaces: int) -> list[Path]:
    """Write logs in the exact on-disk format (header + 20 events), without the cost of live markers."""
    paths = []
    start = time.time() - sessions * 60
    for n in range(sessions):
        cwd = f"/home/dev/src/project-{n % workspaces:04d}"
        sid = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(start + n * 60)) + f"-{n:06x}"
        part = root / workspace_partition(cwd)
        part.mkdir(parents=True, exist_ok=True, mode=0o700)
        at = start + n * 60
        header = {"type": "session", "version": 1, "id": sid, "cwd": cwd, "created_at": iso_from_epoch(at)}
        lines = [{**header, "dsh": "0.1.0"}]
        lines.append({"type": "pane_opened", "at": iso_from_epoch(at), "pane_id": "p1", "argv": ["bash"]})
        for i in range(EVENTS_PER_SESSION - 3):
            text = f"make test TARGET=unit-{i} # {n}"
            lines.append({"type": "input", "at": iso_from_epoch(at + i), "text": text})
        lines.append({"type": "title", "at": iso_from_epoch(at + 30), "title": f"task {n}"})
        lines.append({"type": "close", "at": iso_from_epoch(at + 40)})
        path = part / f"{sid}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        os.chmod(path, 0o600)
        paths.append(path)
    return paths


def agent_transcripts(paths: list[Path], agent_home: Path) -> dict[int, tuple[str, str | None]]:
    """The Claude panes add_snapshots gives the sessions, by the session's number: (agent session id, its
    transcript). Every 10th has a transcript, written into `agent_home` as Claude 2.1.197 writes one; every
    100th has an id dsh gave that was never prompted (no transcript: a listing searches the store).
    Written before any listing is timed, so that the listings with and without snapshots read the same
    agent stores."""
    cwd = json.loads((Path(__file__).parent / "real_snapshot.json").read_text())["panes"][1]["cwd"]
    panes: dict[int, tuple[str, str | None]] = {}
    for n in range(len(paths)):
        if n % 10 != 5 and n % 100 != 7:
            continue
        agent_sid = str(uuid.UUID(int=n + 1, version=4))
        transcript = None
        if n % 10 == 5:
            transcript = agent_home / ".claude" / "projects" / cwd.replace("/", "-") / f"{agent_sid}.jsonl"
            transcript.parent.mkdir(parents=True, exist_ok=True)
            base = {"cwd": cwd, "sessionId": agent_sid, "timestamp": "2026-12-01T07:46:50.000Z"}
            records = [
                {"type": "mode", "mode": "normal", "sessionId": agent_sid},
                {"type": "user", **base, "message": {"role": "user", "content": "fix the flaky test"}},
                {"type": "assistant", **base, "message": {"role": "assistant", "content": "done"}},
            ]
            transcript.write_text("".join(json.dumps(r) + "\n" for r in records))
        panes[n] = (agent_sid, str(transcript) if transcript else None)
    return panes


def add_snapshots(paths: list[Path], dsh_home: Path, agent_panes: dict[int, tuple[str, str | None]]) -> dict[str, int]:
    """Give every session the snapshot a real two-shell-pane session saved (bench/real_snapshot.json, from
    a `dsh` run), as every session that ever ran has one; in the sessions `agent_panes` names, the
    second pane is that Claude pane."""
    real = json.loads((Path(__file__).parent / "real_snapshot.json").read_text())
    counts = {"shell": 0, "agent": 0, "unprompted": 0}
    for n, path in enumerate(paths):
        sid = path.name[: -len(".jsonl")]
        snap = json.loads(json.dumps(real))
        snap["session_id"] = sid
        if n in agent_panes:
            agent_sid, transcript = agent_panes[n]
            counts["agent" if transcript else "unprompted"] += 1
            snap["panes"][1].update(
                title="claude",
                argv=["claude"],
                agent={
                    "kind": "claude",
                    "session_id": agent_sid,
                    "resume_argv": ["claude", "--resume", agent_sid],
                    "model": None,
                    "program": None,
                    "cwd": snap["panes"][1]["cwd"],
                    "env": {},
                    "transcript": transcript,
                    "conversation": transcript is not None,
                },
            )
        else:
            counts["shell"] += 1
        folder = dsh_home / "state" / sid
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        (folder / "snapshot.json").write_text(json.dumps(snap, indent=1))
        os.chmod(folder / "snapshot.json", 0o600)
    return counts


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    """Median wall time of `repeat` runs, in seconds."""
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def scan_read(root: Path) -> None:
    for part in os.scandir(root):
        for entry in os.scandir(part.path):
            with open(entry.path, "rb") as fh:
                fh.read()


def scan_stat(root: Path) -> None:
    for part in os.scandir(root):
        for entry in os.scandir(part.path):
            entry.stat()


def dsh_argv() -> list[str]:
    script = Path(sys.executable).parent / "dsh"
    return [str(script)] if script.exists() else [sys.executable, "-m", "dsh"]


def run_quiet(argv: list[str], env: dict[str, str]) -> None:
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)


def report(name: str, seconds: float, target: float, ref_name: str, ref: float) -> None:
    verdict = "ok" if seconds <= target else "OVER TARGET"
    print(
        f"{name:<34} {seconds * 1000:8.1f} ms   target <= {target * 1000:6.0f} ms  {verdict:<11}"
        f"  {seconds / ref:6.1f}x {ref_name} ({ref * 1000:.1f} ms)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--workspaces", type=int, default=500)
    parser.add_argument("--agents-home", help="a HOME with agent stores for the listing to read")
    opts = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="dsh-bench-"))
    try:
        root = home / "sessions"
        t0 = time.perf_counter()
        paths = make_logs(root, opts.sessions, opts.workspaces)
        print(
            f"made {len(paths)} sessions in {opts.workspaces} workspaces, {EVENTS_PER_SESSION} events each, "
            f"in {time.perf_counter() - t0:.1f} s (cpus: {os.cpu_count()})"
        )
        # A store in use was written more than RACY_NS ago: the index trusts a folder's mtime only then.
        time.sleep(RACY_NS / 1e9)
        ref_read = timed(lambda: scan_read(root), repeat=3)
        ref_stat = timed(lambda: scan_stat(root), repeat=5)

        # The cold build: the median of three, each into an index file of its own (one sample on this
        # shared machine varied by a second from run to run).
        db = home / "session-query.db"
        colds = []
        for name in ("cold-1.db", "cold-2.db", db.name):
            scratch = SessionIndex(home / name, root)
            colds.append(timed(lambda scratch=scratch: scratch.refresh(sync_search=False)))
            scratch.close()
        cold = statistics.median(colds)
        index = SessionIndex(db, root)
        search_build = timed(index.sync_search)
        rows = index.summaries()
        assert len(rows) == len(paths), (len(rows), len(paths))
        warm = timed(index.refresh, repeat=5)

        def grow_ten() -> None:
            for path in paths[:10]:
                append_event(path, "input", text="one more")

        grow_ten()
        after10 = timed(index.refresh)
        assert sum(s.input_count for s in index.summaries()[-10:]) > 0
        index.close()

        agent_home = opts.agents_home or str(home / "agent-home")
        agent_panes = agent_transcripts(paths, Path(agent_home))
        time.sleep(RACY_NS / 1e9)  # as in a store in use, the agent store's folders changed a while ago
        env = {**os.environ, "DSH_HOME": str(home), "HOME": agent_home}
        for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME"):
            env.pop(name, None)
        argv = [*dsh_argv(), "sessions", "--all", "--json"]
        run_quiet(argv, env)  # the index is already warm; this run only loads the page cache
        whole = timed(lambda: run_quiet(argv, env), repeat=5)
        ref_python = timed(lambda: run_quiet([sys.executable, "-c", "pass"], env), repeat=5)
        out = subprocess.run(argv, env=env, capture_output=True, check=True).stdout
        assert len(json.loads(out)) == len(paths)

        # The same listing when every session has the snapshot a real session saved: in a second home with
        # the same logs (hard links) and an index of its own, so that the two listings are timed in turns
        # (this machine's speed drifts within minutes).
        snap_home = home / "with-snapshots"
        snap_paths = []
        for path in paths:
            linked = snap_home / "sessions" / path.parent.name / path.name
            linked.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.link(path, linked)
            snap_paths.append(linked)
        snap_env = {**env, "DSH_HOME": str(snap_home)}
        run_quiet(argv, snap_env)  # builds its index
        counts = add_snapshots(snap_paths, snap_home, agent_panes)
        first_snapshots = timed(lambda: run_quiet(argv, snap_env))
        run_quiet(argv, snap_env)
        turns: list[tuple[float, float]] = []
        for _ in range(5):
            turns.append((timed(lambda: run_quiet(argv, env)), timed(lambda: run_quiet(argv, snap_env))))
        plain = statistics.median(t[0] for t in turns)
        snapshots = statistics.median(t[1] for t in turns)
        rows = json.loads(subprocess.run(argv, env=snap_env, capture_output=True, check=True).stdout)
        states = [pane["state"] for row in rows for pane in row["panes"]]
        assert len(states) == 2 * len(paths), len(states)

        print()
        report("cold index build (median of 3)", cold, 2.0 * opts.sessions / 10_000, "scandir+read", ref_read)
        print(f"    the three cold builds: {', '.join(f'{c * 1000:.0f}' for c in colds)} ms")
        report(
            "full-text indexing of typed lines", search_build, 2.0 * opts.sessions / 10_000, "scandir+read", ref_read
        )
        report("warm refresh, nothing changed", warm, 0.100, "scandir+stat", ref_stat)
        report("refresh after 10 appended logs", after10, 0.150, "scandir+stat", ref_stat)
        target = 0.600 if opts.sessions <= 10_000 else 1.5 * opts.sessions / 100_000
        report("dsh sessions --all --json (process)", whole, target, "python -c pass", ref_python)
        report("  the same, with real snapshots", snapshots, target, "no snapshots, in turns", plain)
        print(
            f"    ({counts['shell']:,} sessions with two shell panes, {counts['agent']:,} with a Claude pane whose"
            f" transcript the snapshot names, {counts['unprompted']:,} with one never prompted; pane states:"
            f" {', '.join(f'{states.count(s):,} {s}' for s in sorted(set(states)))})"
        )
        print(f"    the first listing after the snapshots appeared (parses each): {first_snapshots * 1000:.0f} ms")
        snap_db = snap_home / db.name
        print(
            f"\nindex size: {db.stat().st_size / 1e6:.1f} MB, {snap_db.stat().st_size / 1e6:.1f} MB with the snapshots'"
            f" kept rows; JSON output: {len(out) / 1e6:.1f} MB"
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
