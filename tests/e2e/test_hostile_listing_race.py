"""End to end: listings raced by hosts starting, stopping and dying, and by files half-written or removed
as they are read, never show a traceback (the CLI's verbs, `dsh attach`'s scan, the picker's rows)."""

from __future__ import annotations

import glob
import os
import random
import shutil
import signal
import subprocess
import threading
import time
import traceback
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

RACE_SECONDS = 10.0
LISTINGS = (
    ["sessions", "--all"],
    ["sessions", "--all", "--json"],
    ["agents", "--all"],
    ["agents", "--all", "--json"],
    ["list", "--all"],
    ["list", "--all", "--json"],
    ["attach", "no-such-session"],
)


def test_listings_raced_by_sessions_closing_and_files_changing_never_show_a_traceback(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    home = str(dsh_home)
    stop = time.monotonic() + RACE_SECONDS
    bad: list[object] = []
    counts = {"started": 0, "listed": 0, "in_process": 0}

    def dsh(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*dsh_cmd, *args],
            env=dsh_env,
            cwd=work,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )

    def churn(seed: int) -> None:
        rng = random.Random(seed)
        while time.monotonic() < stop:
            out = dsh("new", "-d")
            if "Traceback" in out.stdout + out.stderr:
                bad.append(("new", out.stderr))
            sid = out.stdout.strip()
            if not sid:
                continue
            counts["started"] += 1
            time.sleep(rng.random() * 0.3)
            if rng.random() < 0.3:  # a crash: no close, a stale socket and pid file left
                for pid_file in glob.glob(f"{home}/sessions/*/{sid}.pid"):
                    try:
                        os.kill(int(Path(pid_file).read_text()), signal.SIGKILL)
                    except (OSError, ValueError):
                        pass
            else:
                out = dsh("stop", sid)
                if "Traceback" in out.stdout + out.stderr:
                    bad.append(("stop", out.stderr))

    def vandal() -> None:
        """Snapshots cut short or removed mid-read, state folders removed, torn lines, half-made logs."""
        rng = random.Random(3)
        while time.monotonic() < stop:
            logs = glob.glob(f"{home}/sessions/*/*.jsonl")
            snapshots = glob.glob(f"{home}/state/*/snapshot.json")
            try:
                pick = rng.random()
                if snapshots and pick < 0.25:
                    path = rng.choice(snapshots)
                    data = Path(path).read_bytes()
                    Path(path + ".cut").write_bytes(data[: rng.randint(0, len(data))])
                    os.rename(path + ".cut", path)
                elif snapshots and pick < 0.4:
                    os.unlink(rng.choice(snapshots))
                elif logs and pick < 0.6:
                    with open(rng.choice(logs), "ab") as handle:
                        handle.write(b'{"type": "input", "te')
                elif pick < 0.7:
                    folders = glob.glob(f"{home}/state/*")
                    if folders:
                        shutil.rmtree(rng.choice(folders), ignore_errors=True)
                elif logs and pick < 0.8:
                    path = rng.choice(logs)
                    half = Path(path).with_name(f"20990101T000000Z-{rng.randint(0, 1 << 24):06x}.jsonl")
                    half.write_bytes(Path(path).read_bytes()[: rng.randint(0, 80)])
            except OSError:
                pass
            time.sleep(0.02)

    def in_process() -> None:
        """What `dsh attach` with no id scans, and the picker's rows, read in this process."""
        from dsh.client.live import running_hosts
        from dsh.config import load_config
        from dsh.resume.loading import load_rest_and_refresh, open_picker
        from dsh.store.store import Store

        while time.monotonic() < stop:
            try:
                running_hosts()
                store = Store(load_config(env={}))
                try:
                    store.refresh()
                    now = time.time()
                    open_picker(store.index, cwd=str(work), current_session_id=None, own_pid=0, now=now, agents=True)
                    load_rest_and_refresh(
                        store.index, cwd=str(work), current_session_id=None, own_pid=0, deliver=lambda _rows: None
                    )
                finally:
                    store.close()
                counts["in_process"] += 1
            except Exception:
                bad.append(("in process", traceback.format_exc()))

    monkeypatch.setenv("DSH_HOME", home)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    threads = [threading.Thread(target=churn, args=(seed,)) for seed in (1, 2)]
    threads += [threading.Thread(target=vandal), threading.Thread(target=in_process)]
    for thread in threads:
        thread.start()
    try:
        n = 0
        while time.monotonic() < stop:
            args = LISTINGS[n % len(LISTINGS)]
            n += 1
            out = dsh(*args)
            if "Traceback" in out.stdout + out.stderr or out.returncode not in (0, 1, 2):
                bad.append((args, out.returncode, out.stderr))
            counts["listed"] += 1
    finally:
        for thread in threads:
            thread.join(timeout=60)
    assert not bad, "\n\n".join(str(item) for item in bad[:3])
    assert not (dsh_home / "log" / "crash.log").exists(), (dsh_home / "log" / "crash.log").read_text()
    assert counts["started"] >= 2 and counts["listed"] >= 3 and counts["in_process"] >= 3, counts  # it raced
