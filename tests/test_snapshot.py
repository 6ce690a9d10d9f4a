"""The snapshot writer and loader: round trip, tails, corrupt and future files, secrets, crash safety."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dsh.persist.env import filter_env
from dsh.persist.snapshot import (
    SNAPSHOT_VERSION,
    TAIL_BYTES,
    AgentInfo,
    Notification,
    PaneRecord,
    Snapshot,
    SnapshotError,
    SnapshotVersionError,
    TabRecord,
    load_snapshot,
    state_dir,
    tail_path,
    write_snapshot,
)

SID = "sess-1"


def pane(pane_id: str = "p1", tab: str = "t1", **overrides: object) -> PaneRecord:
    values: dict[str, object] = {
        "id": pane_id,
        "tab": tab,
        "title": "shell",
        "cwd": "/tmp/project",
        "argv": ["/bin/sh"],
        "env": {"TERM": "xterm-256color"},
        "rows": 24,
        "cols": 80,
        "agent": None,
        "lifecycle": "running",
        "exit_status": None,
        "attention": False,
        "last_message": None,
        "created_at": "2026-11-29T20:00:00Z",
    }
    values.update(overrides)
    return PaneRecord(**values)  # type: ignore[arg-type]


def snapshot(panes: list[PaneRecord] | None = None, **overrides: object) -> Snapshot:
    panes = [pane()] if panes is None else panes
    tabs = [TabRecord(id="t1", title="main", layout={"pane": "p1"}, active_pane="p1", zoomed=False)]
    values: dict[str, object] = {"session_id": SID, "tabs": tabs, "active_tab": 0, "panes": panes}
    values.update(overrides)
    return Snapshot(**values)  # type: ignore[arg-type]


def save_as_its_host(saved: Snapshot) -> None:
    """Write a closed session's snapshot as its host does: it takes the session first (its log gets a
    `resume`) and lets it go after its last write (a `close`). A listing of many sessions trusts the
    log's key for the snapshot (persist/listing.py): a snapshot written behind the log's back is not
    what dsh does."""
    from dsh.home import dsh_home_path
    from dsh.store.log import SessionLog

    log = SessionLog.open_existing(next(dsh_home_path("sessions").rglob(f"{saved.session_id}.jsonl")))
    try:
        write_snapshot(saved, {})
    finally:
        log.close()


def agent_pane() -> PaneRecord:
    info = AgentInfo(
        kind="claude",
        session_id="0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11",
        resume_argv=["claude", "--resume", "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"],
        model="opus",
    )
    return pane("p2", title="claude", argv=["claude"], agent=info, attention=True, last_message="done")


def test_round_trip_keeps_every_field_and_the_tails() -> None:
    tabs = [
        TabRecord(
            id="t1",
            title="main",
            layout={"split": "h", "children": [{"pane": "p1"}, {"pane": "p2"}]},
            active_pane="p2",
            zoomed=True,
        ),
        TabRecord(id="t2", title="logs", layout={"pane": "p3"}),
    ]
    panes = [pane(), agent_pane(), pane("p3", tab="t2", lifecycle="exited", exit_status=2)]
    notes = [Notification(at="2026-11-29T20:01:00Z", pane_id="p2", text="agent finished", read_at=None)]
    snap = Snapshot(session_id=SID, tabs=tabs, active_tab=1, panes=panes, notifications=notes)
    tails = {"p1": b"$ echo hi\r\nhi\r\n", "p2": "claude ✓\r\n".encode(), "p3": b""}

    write_snapshot(snap, tails)
    loaded = load_snapshot(SID)

    assert loaded.error is None and loaded.notes == []
    assert loaded.snapshot == snap
    assert loaded.snapshot.version == SNAPSHOT_VERSION
    assert loaded.tails == tails
    assert (state_dir(SID) / "snapshot.json").exists()
    assert tail_path(SID, "p1").read_bytes() == tails["p1"]


def test_to_dict_is_plain_json() -> None:
    snap = snapshot([pane(), agent_pane()])
    text = json.dumps(snap.to_dict())
    assert Snapshot.from_dict(json.loads(text)) == snap


def test_missing_snapshot_starts_fresh_without_error() -> None:
    loaded = load_snapshot("never-saved")
    assert loaded.snapshot is None and loaded.error is None and loaded.backup is None


def test_tail_keeps_only_the_last_64_kib() -> None:
    big = bytes(range(256)) * (TAIL_BYTES // 256 + 10)
    write_snapshot(snapshot(), {"p1": big})
    assert load_snapshot(SID).tails["p1"] == big[-TAIL_BYTES:]


def test_tails_of_panes_no_longer_in_the_snapshot_are_removed() -> None:
    write_snapshot(snapshot([pane(), agent_pane()]), {"p1": b"one", "p2": b"two"})
    assert tail_path(SID, "p2").exists()
    write_snapshot(snapshot([pane()]), {"p1": b"one"})
    assert not tail_path(SID, "p2").exists()
    assert tail_path(SID, "p1").read_bytes() == b"one"


def test_a_pane_without_a_new_tail_keeps_its_saved_one() -> None:
    write_snapshot(snapshot(), {"p1": b"before restart"})
    write_snapshot(snapshot(), {})
    assert load_snapshot(SID).tails["p1"] == b"before restart"


def test_missing_tail_loads_empty_with_a_note() -> None:
    write_snapshot(snapshot([pane(), agent_pane()]), {"p1": b"x", "p2": b"y"})
    tail_path(SID, "p2").unlink()
    loaded = load_snapshot(SID)
    assert loaded.snapshot is not None and loaded.error is None
    assert loaded.tails == {"p1": b"x", "p2": b""}
    assert any("p2" in note for note in loaded.notes)


def test_unreadable_tail_loads_empty_with_a_note() -> None:
    write_snapshot(snapshot(), {"p1": b"x"})
    path = tail_path(SID, "p1")
    path.unlink()
    path.mkdir()  # reading a folder fails even as root
    loaded = load_snapshot(SID)
    assert loaded.snapshot is not None
    assert loaded.tails == {"p1": b""}
    assert loaded.notes and "p1" in loaded.notes[0]


def test_tail_for_an_unknown_pane_is_refused() -> None:
    with pytest.raises(SnapshotError, match="not in the snapshot"):
        write_snapshot(snapshot(), {"p9": b"x"})


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"",
        b"\xff\xfe garbage",
        b"[1, 2, 3]",
        b'{"version": 1}',
        b'{"version": "1", "saved_at": "", "session_id": "sess-1"}',
    ],
    ids=["bad-json", "empty", "not-utf8", "list", "missing-fields", "string-version"],
)
def test_corrupt_snapshot_is_backed_up_and_reported(content: bytes, dsh_home: Path) -> None:
    folder = state_dir(SID)
    folder.mkdir(parents=True)
    (folder / "snapshot.json").write_bytes(content)

    loaded = load_snapshot(SID)

    assert loaded.snapshot is None
    assert loaded.backup is not None and loaded.backup.name.startswith("snapshot.json.corrupt-")
    assert loaded.backup.read_bytes() == content
    assert not (folder / "snapshot.json").exists()
    assert loaded.error is not None and str(loaded.backup) in loaded.error
    log = (dsh_home / "log" / "dsh.log").read_text()
    assert "corrupt" in log and str(loaded.backup) in log


def test_two_corrupt_loads_keep_both_backups() -> None:
    folder = state_dir(SID)
    folder.mkdir(parents=True)
    (folder / "snapshot.json").write_bytes(b"first")
    first = load_snapshot(SID).backup
    (folder / "snapshot.json").write_bytes(b"second")
    second = load_snapshot(SID).backup
    assert first is not None and second is not None and first != second
    assert first.read_bytes() == b"first" and second.read_bytes() == b"second"


def test_newer_version_is_refused_naming_both_versions_and_nothing_moves() -> None:
    write_snapshot(snapshot(), {"p1": b"x"})
    path = state_dir(SID) / "snapshot.json"
    data = json.loads(path.read_text())
    data["version"] = SNAPSHOT_VERSION + 6
    data["panes"] = "a future shape this dsh cannot read"
    path.write_text(json.dumps(data))
    before = sorted(p.name for p in state_dir(SID).iterdir())

    with pytest.raises(SnapshotVersionError) as info:
        load_snapshot(SID)

    message = str(info.value)
    assert f"version {SNAPSHOT_VERSION + 6}" in message and f"version {SNAPSHOT_VERSION}" in message
    assert sorted(p.name for p in state_dir(SID).iterdir()) == before
    assert json.loads(path.read_text())["version"] == SNAPSHOT_VERSION + 6


def test_snapshot_of_another_session_is_treated_as_corrupt() -> None:
    write_snapshot(snapshot(), {})
    other = state_dir("other")
    other.mkdir(parents=True)
    (other / "snapshot.json").write_bytes((state_dir(SID) / "snapshot.json").read_bytes())
    loaded = load_snapshot("other")
    assert loaded.snapshot is None and loaded.error is not None and "sess-1" in loaded.error


def good_dict() -> dict:
    return snapshot([pane(), agent_pane()]).to_dict()


def _set(path: list, value: object) -> dict:
    data = good_dict()
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


HOSTILE = {
    "pane-id-dotdot": (["panes", 0, "id"], "../../etc/passwd"),
    "pane-id-slash": (["panes", 0, "id"], "a/b"),
    "pane-id-int": (["panes", 0, "id"], 7),
    "pane-id-long": (["panes", 0, "id"], "a" * 65),
    "session-id-path": (["session_id"], "../x"),
    "rows-string": (["panes", 0, "rows"], "24"),
    "rows-zero": (["panes", 0, "rows"], 0),
    "cols-bool": (["panes", 0, "cols"], True),
    "argv-not-list": (["panes", 0, "argv"], "rm -rf /"),
    "argv-items": (["panes", 0, "argv"], ["sh", 3]),
    "env-values": (["panes", 0, "env"], {"TERM": 1}),
    "cwd-relative": (["panes", 0, "cwd"], "relative/dir"),
    "cwd-null": (["panes", 0, "cwd"], None),
    "lifecycle": (["panes", 0, "lifecycle"], "zombie"),
    "attention": (["panes", 0, "attention"], "yes"),
    "agent-kind": (["panes", 1, "agent", "kind"], None),
    "agent-resume-string": (["panes", 1, "agent", "resume_argv"], "claude --resume x; rm -rf /"),
    "agent-shape": (["panes", 1, "agent"], ["claude"]),
    "tabs-shape": (["tabs"], {"t1": {}}),
    "layout-shape": (["tabs", 0, "layout"], "pane"),
    "active-tab-range": (["active_tab"], 5),
    "active-tab-negative": (["active_tab"], -1),
    "pane-unknown-tab": (["panes", 0, "tab"], "t9"),
    "pane-duplicate-id": (["panes", 1, "id"], "p1"),
    "notifications-shape": (["notifications"], [1, 2]),
    "version-zero": (["version"], 0),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_content_raises_snapshot_error(case: str) -> None:
    path, value = HOSTILE[case]
    with pytest.raises(SnapshotError):
        Snapshot.from_dict(_set(path, value))


def test_missing_field_is_named() -> None:
    data = good_dict()
    del data["panes"][0]["cwd"]
    with pytest.raises(SnapshotError, match="missing field 'cwd'"):
        Snapshot.from_dict(data)


def test_deeply_nested_layout_is_refused() -> None:
    layout: dict = {}
    inner = layout
    for _ in range(200):
        inner["c"] = {}
        inner = inner["c"]
    with pytest.raises(SnapshotError, match="nested deeper"):
        TabRecord(id="t1", title="x", layout=layout)


def test_hostile_file_on_disk_loads_as_corrupt_not_a_traceback() -> None:
    folder = state_dir(SID)
    folder.mkdir(parents=True)
    (folder / "snapshot.json").write_text(json.dumps(_set(["panes", 0, "id"], "../../evil")))
    loaded = load_snapshot(SID)
    assert loaded.snapshot is None and loaded.backup is not None
    assert not (folder.parent.parent / "evil.tail").exists()


def test_control_characters_in_the_reason_are_escaped() -> None:
    folder = state_dir(SID)
    folder.mkdir(parents=True)
    (folder / "snapshot.json").write_text(json.dumps(_set(["panes", 0, "lifecycle"], "\x1b]0;pwned\x07")))
    loaded = load_snapshot(SID)
    assert loaded.error is not None and "\x1b" not in loaded.error and "\x07" not in loaded.error


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "/abs", ".hidden", "x" * 65, "a b", "-lead"])
def test_state_dir_refuses_ids_that_are_not_plain(bad: str) -> None:
    with pytest.raises(SnapshotError):
        state_dir(bad)


def test_only_the_last_200_notifications_are_kept() -> None:
    notes = [Notification(at=f"t{i}", pane_id=None, text=f"n{i}") for i in range(250)]
    snap = snapshot(notifications=notes)
    assert len(snap.notifications) == 200 and snap.notifications[0].text == "n50"
    write_snapshot(snap, {})
    loaded = load_snapshot(SID).snapshot
    assert loaded is not None and [n.text for n in loaded.notifications] == [f"n{i}" for i in range(50, 250)]


SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value-123",
    "GITHUB_TOKEN": "ghp_githubtokenvalue456",
    "ANTHROPIC_API_KEY": "sk-ant-anthropic-789",
    "DSH_API_TOKEN": "dsh-token-value-000",
    "LC_PASSWORD": "lc-password-value-111",
    "HOME": "/home/someone-private",
}


def test_secrets_in_a_pane_env_never_reach_disk() -> None:
    env = {
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "COLORTERM": "truecolor",
        "DSH_PANE": "p1",
        "CODEX_HOME": "/tmp/codex",
        **SECRETS,
    }
    write_snapshot(snapshot([pane(env=env)]), {"p1": b"output"})

    for path in state_dir(SID).rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for name, value in SECRETS.items():
                assert f'"{name}"'.encode() not in data and value.encode() not in data, (path, name)
    saved = load_snapshot(SID).snapshot
    assert saved is not None
    assert saved.panes[0].env == {
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "COLORTERM": "truecolor",
        "DSH_PANE": "p1",
        "CODEX_HOME": "/tmp/codex",
    }


def test_filter_env_allowlist() -> None:
    env = {
        "TERM": "x",
        "LC_CTYPE": "C",
        "DSH_X": "1",
        "CLAUDE_CONFIG_DIR": "/c",
        "PATH": "/bin",
        "SSH_AUTH_SOCK": "/s",
        "DSH_SECRET": "s",
        "CODEX_API_KEY": "k",
        "LANG": "C\x00x",
        "OPENAI_API_KEY": "k",
    }
    assert filter_env(env) == {"TERM": "x", "LC_CTYPE": "C", "DSH_X": "1", "CLAUDE_CONFIG_DIR": "/c"}


WRITER = r"""
import sys
from dsh.persist.snapshot import PaneRecord, Snapshot, TabRecord, write_snapshot
n = 0
while True:
    n += 1
    count = 1 + n % 4
    panes = [PaneRecord(id=f"p{i}", tab="t1", title=f"pane {i} write {n}" * (1 + n % 7), cwd="/tmp",
                        argv=["sh"], env={}, rows=24, cols=80, agent=None, lifecycle="running",
                        exit_status=None, attention=False, last_message=None, created_at="x")
             for i in range(count)]
    tabs = [TabRecord(id="t1", title="t", layout={"n": n, "panes": [p.id for p in panes]})]
    snap = Snapshot(session_id="crash", tabs=tabs, panes=panes)
    write_snapshot(snap, {p.id: (f"{n}:" * (50 + n % 3000)).encode() for p in panes})
    if n == 1:
        sys.stdout.write("first\n")
        sys.stdout.flush()
"""


@pytest.mark.slow
def test_sigkill_mid_write_always_leaves_a_loadable_snapshot() -> None:
    rng = random.Random(6)
    env = dict(os.environ)
    for _ in range(20):
        proc = subprocess.Popen([sys.executable, "-c", WRITER], env=env, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"first\n"
        time.sleep(rng.uniform(0.0, 0.08))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()

        loaded = load_snapshot("crash")

        assert loaded.error is None, loaded.error
        assert loaded.snapshot is not None
        assert loaded.notes == []  # every pane the snapshot names has its tail on disk
        assert loaded.tails.keys() == {p.id for p in loaded.snapshot.panes}


def test_an_unchanged_tail_is_not_rewritten() -> None:
    write_snapshot(snapshot([pane(), agent_pane()]), {"p1": b"same", "p2": b"old"})
    before = {p: tail_path(SID, p).stat().st_ino for p in ("p1", "p2")}
    write_snapshot(snapshot([pane(), agent_pane()]), {"p1": b"same", "p2": b"new"})
    assert tail_path(SID, "p1").stat().st_ino == before["p1"]
    assert tail_path(SID, "p2").stat().st_ino != before["p2"]
    assert tail_path(SID, "p2").read_bytes() == b"new"


def test_temp_files_left_by_a_dead_writer_are_cleaned_up_later() -> None:
    write_snapshot(snapshot(), {"p1": b"x"})
    folder = state_dir(SID)
    old = folder / ".tmp-snapshot.json.dead"
    fresh = folder / ".tmp-snapshot.json.busy"
    old_tail = folder / "history" / ".tmp-p1.tail.dead"
    for path in (old, fresh, old_tail):
        path.write_bytes(b"partial")
    for path in (old, old_tail):
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    write_snapshot(snapshot(), {"p1": b"y"})
    assert not old.exists() and not old_tail.exists()
    assert fresh.exists()  # it may belong to a writer still running


def test_runaway_titles_and_messages_are_capped() -> None:
    record = pane(title="t" * 100_000, last_message="m" * 100_000)
    assert len(record.title) == 4096 and len(record.last_message or "") == 4096
    assert len(Notification(at="x", pane_id=None, text="n" * 10_000).text) == 4096


def test_a_tail_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "private.txt"
    secret.write_bytes(b"private data")
    write_snapshot(snapshot(), {"p1": b"x"})
    path = tail_path(SID, "p1")
    path.unlink()
    path.symlink_to(secret)
    loaded = load_snapshot(SID)
    assert loaded.tails == {"p1": b""} and loaded.notes
    write_snapshot(snapshot(), {"p1": b"private data"})  # same bytes as the target: still replaced
    assert not path.is_symlink()
    write_snapshot(snapshot(), {"p1": b"fresh"})
    assert secret.read_bytes() == b"private data"  # never written through the link
    assert path.read_bytes() == b"fresh"


def test_a_fifo_in_place_of_the_snapshot_does_not_hang_the_load() -> None:
    folder = state_dir(SID)
    folder.mkdir(parents=True)
    os.mkfifo(folder / "snapshot.json")
    loaded = load_snapshot(SID)
    assert loaded.snapshot is None and loaded.backup is not None and loaded.error
