"""Session logs: the writer, the live marker, and the tolerant reader."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dsh import __version__
from dsh.store.ids import InvalidSessionId
from dsh.store.log import (
    LogError,
    SessionBusy,
    SessionLog,
    append_event,
    live_pid,
    pid_path,
    read_header,
    read_log,
)
from dsh.store.workspace import workspace_partition


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_create_writes_exact_header_with_private_modes(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    log = SessionLog.create(root, "/work/proj")
    try:
        assert log.path == root / workspace_partition("/work/proj") / f"{log.id}.jsonl"
        header = lines(log.path)[0]
        assert list(header) == ["type", "version", "id", "cwd", "created_at", "dsh"]
        assert header["type"] == "session" and header["version"] == 1
        assert header["id"] == log.id and header["cwd"] == "/work/proj" and header["dsh"] == __version__
        assert len(header["created_at"]) == 24 and header["created_at"].endswith("Z")
        assert stat.S_IMODE(log.path.stat().st_mode) == 0o600
        assert stat.S_IMODE(log.path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(root.stat().st_mode) == 0o700
    finally:
        log.close()


def test_create_refuses_relative_cwd_and_bad_or_duplicate_id(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="absolute"):
        SessionLog.create(tmp_path, "rel/dir")
    with pytest.raises(InvalidSessionId):
        SessionLog.create(tmp_path, "/w", session_id="../x")
    SessionLog.create(tmp_path, "/w", session_id="same").close()
    with pytest.raises(LogError, match="already exists"):
        SessionLog.create(tmp_path, "/w", session_id="same")


def test_events_are_appended_one_json_line_each_and_close_is_idempotent(tmp_path: Path) -> None:
    log = SessionLog.create(tmp_path, "/w")
    log.append("input", text="ls -l")
    log.set_title("my task")
    log.append("pane_opened", pane_id="p1", argv=["bash"])
    log.append("input", text="bad \udcff bytes")
    log.close()
    log.close()
    events = lines(log.path)[1:]
    assert [e["type"] for e in events] == ["input", "title", "pane_opened", "input", "close"]
    assert events[0]["text"] == "ls -l" and events[1]["title"] == "my task"
    assert events[2]["argv"] == ["bash"]
    assert events[3]["text"] == "bad \udcff bytes"
    assert all(e["at"].endswith("Z") for e in events)
    with pytest.raises(LogError, match="closed"):
        log.append("input", text="late")
    with pytest.raises(ValueError, match="set by the log"):
        SessionLog.create(tmp_path, "/w2").append("x", at="now")


def test_live_marker_held_until_close(tmp_path: Path) -> None:
    log = SessionLog.create(tmp_path, "/w")
    assert live_pid(log.path) == os.getpid()
    assert pid_path(log.path).read_text().strip() == str(os.getpid())
    log.close()
    assert live_pid(log.path) is None
    assert not pid_path(log.path).exists()


def test_stale_pid_file_alone_is_not_live(tmp_path: Path) -> None:
    log = SessionLog.create(tmp_path, "/w")
    log.close()
    pid_path(log.path).write_text(f"{os.getpid()}\n")
    assert live_pid(log.path) is None
    assert live_pid(tmp_path / "missing.jsonl") is None


HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from dsh.store.log import SessionLog
    log = SessionLog.open_existing(Path(sys.argv[1]))
    print("held", flush=True)
    sys.stdin.readline()
    """
)


def test_other_process_holds_session_then_dies(tmp_path: Path) -> None:
    log = SessionLog.create(tmp_path, "/w")
    log.close()
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(log.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        assert live_pid(log.path) == proc.pid
        with pytest.raises(SessionBusy) as info:
            SessionLog.open_existing(log.path)
        assert info.value.pid == proc.pid
        assert str(proc.pid) in str(info.value)
    finally:
        proc.kill()
        proc.wait()
    # Killed without closing: the kernel dropped the lock; the stale pid file is not trusted.
    assert pid_path(log.path).exists()
    assert live_pid(log.path) is None
    again = SessionLog.open_existing(log.path)
    assert again.cwd == "/w" and again.id == log.id
    again.close()
    types = [e["type"] for e in lines(log.path)[1:]]
    assert types == ["close", "resume", "resume", "close"]
    assert lines(log.path)[3]["pid"] == os.getpid()


def test_open_existing_closes_off_a_torn_tail(tmp_path: Path) -> None:
    log = SessionLog.create(tmp_path, "/w")
    log.append("input", text="kept")
    log.close()
    with open(log.path, "ab") as fh:
        fh.write(b'{"type": "input", "te')
    resumed = SessionLog.open_existing(log.path)
    resumed.close()
    contents = read_log(log.path)
    assert [e["type"] for e in contents.events] == ["input", "close", "resume", "close"]
    assert any(":4: malformed line" in w for w in contents.warnings)
    assert b'{"type": "input", "te\n' in log.path.read_bytes()


def test_append_event_from_a_non_owner(tmp_path: Path) -> None:
    log = SessionLog.create(tmp_path, "/w")
    append_event(log.path, "archive", archived=True)
    log.close()
    assert [e["type"] for e in read_log(log.path).events] == ["archive", "close"]
    with pytest.raises(LogError, match="not a session log"):
        append_event(tmp_path / "x.txt", "title", title="t")
    with pytest.raises(LogError, match="cannot open"):
        append_event(tmp_path / "nope.jsonl", "title", title="t")


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


HEADER = b'{"type": "session", "version": 1, "id": "s1", "cwd": "/w", "created_at": "2026-01-01T00:00:00.000Z"}\n'
EV = b'{"type": "input", "at": "2026-01-01T00:00:01.000Z", "text": "hi"}\n'


def test_read_log_tolerates_torn_last_line(tmp_path: Path) -> None:
    path = write(tmp_path / "s1.jsonl", HEADER + EV + b'{"type": "inp')
    before = path.read_bytes()
    got = read_log(path)
    assert got.header is not None and got.header["id"] == "s1"
    assert len(got.events) == 1
    assert got.warnings == [f"{path}:3: torn last line (incomplete write) ignored"]
    assert path.read_bytes() == before


def test_read_log_skips_malformed_middle_line_keeping_neighbours(tmp_path: Path) -> None:
    path = write(tmp_path / "s1.jsonl", HEADER + EV + b"not json at all\n" + b"[1, 2]\n" + EV)
    got = read_log(path)
    assert len(got.events) == 2
    assert any(w.startswith(f"{path}:3: malformed line skipped") for w in got.warnings)
    assert any(w.startswith(f"{path}:4: line is not an event object") for w in got.warnings)


def test_read_log_keeps_lines_with_non_utf8_bytes(tmp_path: Path) -> None:
    path = write(tmp_path / "s1.jsonl", HEADER + b'{"type": "input", "text": "caf\xe9"}\n' + EV)
    got = read_log(path)
    assert [e.get("text") for e in got.events] == ["caf\ufffd", "hi"]
    assert got.warnings == [f"{path}:2: invalid UTF-8 bytes shown as U+FFFD"]


def test_read_log_handles_a_5mb_line(tmp_path: Path) -> None:
    big = json.dumps({"type": "input", "text": "x" * (5 << 20)}).encode() + b"\n"
    path = write(tmp_path / "s1.jsonl", HEADER + big + EV)
    got = read_log(path)
    assert len(got.events) == 2 and len(got.events[0]["text"]) == 5 << 20
    assert got.warnings == []


def test_read_log_empty_file_and_missing_header(tmp_path: Path) -> None:
    empty = write(tmp_path / "e.jsonl", b"")
    got = read_log(empty)
    assert got.header is None and got.warnings == [f"{empty}: empty log (no header line)"]
    headless = write(tmp_path / "h.jsonl", EV)
    got = read_log(headless)
    assert got.header is None and len(got.events) == 1
    assert got.warnings == [f"{headless}:1: no session header"]


def test_header_without_cwd_is_a_header(tmp_path: Path) -> None:
    path = write(tmp_path / "s1.jsonl", b'{"type": "session", "version": 1, "id": "s1"}\n' + EV)
    assert read_header(path).get("cwd") is None
    assert read_log(path).header == {"type": "session", "version": 1, "id": "s1"}


def test_header_with_bad_id_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "s1.jsonl", b'{"type": "session", "id": "../../etc", "cwd": "/w"}\n')
    with pytest.raises(LogError, match="never a path"):
        read_header(path)
    got = read_log(path)
    assert got.header is None and "never a path" in got.warnings[0]


def test_read_header_errors_name_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "d.jsonl"
    folder.mkdir()
    with pytest.raises(LogError, match=f"{folder}: cannot read: is a directory"):
        read_header(folder)
    with pytest.raises(LogError, match=f"{folder}: cannot read: is a directory"):
        read_log(folder)
    with pytest.raises(LogError, match="empty log"):
        read_header(write(tmp_path / "e.jsonl", b"\n"))
    with pytest.raises(LogError, match=":1: header is not valid JSON"):
        read_header(write(tmp_path / "j.jsonl", b"{nope\n"))
    with pytest.raises(LogError, match="not a session header"):
        read_header(write(tmp_path / "t.jsonl", EV))
    with pytest.raises(LogError, match="cwd is not a path"):
        read_header(write(tmp_path / "c.jsonl", b'{"type": "session", "cwd": 5}\n'))


def test_unreadable_log_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    path = write(tmp_path / "s1.jsonl", HEADER)
    real_open = os.open

    def deny(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(file) == path:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("dsh.safefile.os.open", deny)
    with pytest.raises(LogError, match=f"{path}: cannot read: Permission denied"):
        read_log(path)
    with pytest.raises(LogError, match="Permission denied"):
        read_header(path)


def test_open_existing_refuses_bad_names_and_bad_headers(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="never a path"):
        SessionLog.open_existing(write(tmp_path / "..x.jsonl", HEADER))
    with pytest.raises(LogError, match="empty log"):
        SessionLog.open_existing(write(tmp_path / "s2.jsonl", b""))


def test_fast_and_careful_parsers_agree_on_clean_logs(tmp_path: Path) -> None:
    from dsh.store.log import LogScan, _parse_clean, _parse_lines, parse_log

    log = SessionLog.create(tmp_path, "/w/ünï cödé")
    log.append("input", text='quote " backslash \\ tab \t newline \n end')
    log.append("input", text="\x1b[31m \u2028 \udcff")
    log.set_title("τίτλος")
    log.close()
    data = log.path.read_bytes()
    fast = _parse_clean(data)
    assert fast is not None
    careful = LogScan()
    events = _parse_lines(log.path, data, 0, careful, complete=True)
    whole = parse_log(log.path, data)
    assert fast == [careful.header, *events] == [whole.header, *whole.events]
    assert careful.warnings == whole.warnings == []


def test_two_records_on_one_line_are_not_split(tmp_path: Path) -> None:
    data = HEADER + b'{"type": "input", "text": "a"}, {"type": "input", "text": "b"}\n' + EV
    path = write(tmp_path / "s1.jsonl", data)
    got = read_log(path)
    assert [e.get("text") for e in got.events] == ["hi"]
    assert any(w.startswith(f"{path}:2: malformed line skipped") for w in got.warnings)


def test_failed_create_leaves_no_headerless_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(path: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("dsh.store.log._write_pid", full)
    with pytest.raises(LogError, match="cannot start session log: No space left on device"):
        SessionLog.create(tmp_path, "/w", session_id="s1")
    assert list(tmp_path.rglob("*.jsonl")) == []


def test_events_past_what_a_full_disk_lets_it_hold_are_counted_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import dsh.store.log as log_module

    monkeypatch.setattr(log_module, "MAX_PENDING", 3)
    log = SessionLog.create(tmp_path, "/work/proj")
    real = log_module.append_all
    full = [True]

    def append_all(fd: int, data: bytes) -> None:
        if full[0]:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(log_module, "append_all", append_all)
    for n in range(6):
        with pytest.raises(LogError):
            log.append("input", text=f"line {n}")
    full[0] = False
    log.append("input", text="after")
    events = read_log(log.path).events
    kept = [e.get("text") for e in events if e["type"] == "input"]
    lost = [e for e in events if e["type"] == "events_lost"]
    # Every event is either in the log or counted as lost: nothing vanishes without a trace.
    (note,) = lost
    assert kept[-1] == "after" and note["count"] + len(kept) - 1 == 6 and note["count"] > 0
    log.close()


@pytest.mark.parametrize(("version", "words"), [(99, "newer dsh"), ("2", "not a number"), (True, "not a number")])
def test_a_log_of_a_newer_or_unknown_version_is_read_but_never_written(
    tmp_path: Path, version: object, words: str
) -> None:
    header = {"type": "session", "version": version, "id": "20260101T000000Z-abcdef", "cwd": "/w"}
    path = write(tmp_path / "20260101T000000Z-abcdef.jsonl", json.dumps(header).encode() + b"\n" + EV)
    before = path.read_bytes()
    assert [e["type"] for e in read_log(path).events] == ["input"]  # still listed
    with pytest.raises(LogError, match=words):
        SessionLog.open_existing(path)
    with pytest.raises(LogError, match=words):
        append_event(path, "archive", archived=True)
    assert path.read_bytes() == before
    assert not pid_path(path).exists()


def test_a_log_without_a_version_is_this_versions(tmp_path: Path) -> None:
    header = {"type": "session", "id": "20260101T000000Z-abcdef", "cwd": "/w"}
    path = write(tmp_path / "20260101T000000Z-abcdef.jsonl", json.dumps(header).encode() + b"\n")
    append_event(path, "archive", archived=True)
    SessionLog.open_existing(path).close()
    assert [e["type"] for e in read_log(path).events] == ["archive", "resume", "close"]
