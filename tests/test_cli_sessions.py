"""`dsh sessions` through the installed command: scope, columns, JSON keys, bad logs, no legacy scan."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from dsh.cli.json_rows import JsonRowsOut
from dsh.store.log import SessionLog
from dsh.store.summary import JSON_KEYS
from dsh.store.table import age, write_table
from dsh.store.workspace import workspace_partition


def run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=60)


def make(home: Path, cwd: Path | str, *inputs: str, title: str = "", close: bool = True) -> SessionLog:
    log = SessionLog.create(home / "sessions", str(cwd))
    for text in inputs:
        log.append("input", text=text)
    if title:
        log.set_title(title)
    if close:
        log.close()
    return log


def test_default_scope_is_the_current_workspace(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    mine = make(dsh_home, here, "make test", title="fix the build")
    make(dsh_home, there, "other work")
    got = run([*dsh_cmd, "sessions"], dsh_env, cwd=here)
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[0].split() == ["ID", "AGE", "STATE", "PANES", "TITLE"]
    assert len(lines) == 2 and lines[1].startswith(mine.id) and "fix the build" in lines[1]
    assert "closed" in lines[1]
    assert got.stderr == ""


def test_all_adds_a_workspace_column_newest_first(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    # The older one is dated by hand: two sessions made in the same millisecond have no order.
    part = dsh_home / "sessions" / workspace_partition("/w/one")
    part.mkdir(parents=True)
    (part / "older1.jsonl").write_text(
        json.dumps({"type": "session", "id": "older1", "cwd": "/w/one", "created_at": "2020-01-01T00:00:00Z"})
        + '\n{"type": "close", "at": "2020-01-01T00:00:01.000Z"}\n'
    )
    newer = make(dsh_home, "/w/two", "b", close=False)
    try:
        got = run([*dsh_cmd, "sessions", "--all"], dsh_env, cwd=tmp_path)
        lines = got.stdout.splitlines()
        assert lines[0].split() == ["ID", "AGE", "STATE", "PANES", "WORKSPACE", "TITLE"]
        assert [line.split()[0] for line in lines[1:]] == [newer.id, "older1"]
        assert lines[1].split()[2] == "attached" and "/w/two" in lines[1]
        assert lines[2].split()[2] == "closed"
        assert "closed" in lines[2] and "/w/one" in lines[2]
    finally:
        newer.close()


def test_json_has_every_summary_key(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    log = make(dsh_home, tmp_path, "one", "two", title="\x1b]0;evil\x07title")
    got = run([*dsh_cmd, "sessions", "--json"], dsh_env, cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert "\x1b" not in got.stdout and "\x07" not in got.stdout
    (row,) = json.loads(got.stdout)
    assert list(row) == [*JSON_KEYS, "panes"]
    assert row["panes"] == []  # no snapshot for a session made by hand
    assert row["id"] == log.id and row["cwd"] == str(tmp_path) and row["preview"] == ["one", "two"]
    assert row["title"] == "\x1b]0;evil\x07title" and row["input_count"] == 2 and row["live_pid"] is None
    assert row["workspace"] == workspace_partition(str(tmp_path))
    got = run([*dsh_cmd, "sessions", "--json"], dsh_env, cwd=tmp_path / "..")
    assert json.loads(got.stdout) == []


def test_titles_from_disk_are_sanitized_in_the_table(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    make(dsh_home, tmp_path, title="\x1b[2J\x1b]0;pwned\x07\x9bX")
    got = run([*dsh_cmd, "sessions"], dsh_env, cwd=tmp_path)
    assert "\x1b" not in got.stdout and "\x07" not in got.stdout and "\x9b" not in got.stdout
    assert "^[[2J^[]0;pwned^G\\x9bX" in got.stdout


def test_archived_only_with_flag(dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path) -> None:
    log = make(dsh_home, tmp_path, "x")
    from dsh.store.log import append_event

    append_event(log.path, "archive", archived=True)
    got = run([*dsh_cmd, "sessions", "--json"], dsh_env, cwd=tmp_path)
    assert json.loads(got.stdout) == []
    got = run([*dsh_cmd, "sessions", "--archived"], dsh_env, cwd=tmp_path)
    assert "closed,archived" in got.stdout


def test_bad_logs_warn_name_the_file_and_the_rest_is_listed(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    good = make(dsh_home, tmp_path, "fine")
    part = dsh_home / "sessions" / workspace_partition(str(tmp_path))
    torn = part / "torn1.jsonl"
    head = json.dumps({"type": "session", "id": "torn1", "cwd": str(tmp_path)}).encode()
    torn.write_bytes(head + b'\n{"ty')
    nocwd = part / "nocwd1.jsonl"
    nocwd.write_bytes(b'{"type": "session", "id": "nocwd1"}\n{"type": "input", "text": "hm"}\n')
    (part / "dir1.jsonl").mkdir()
    before = {p: p.read_bytes() for p in (torn, nocwd)}
    # Wide enough for the whole title, whatever width the test runner's environment gives.
    got = run([*dsh_cmd, "sessions"], {**dsh_env, "COLUMNS": "200"}, cwd=tmp_path)
    assert got.returncode == 0
    assert f"dsh: warning: {torn}:2: torn last line" in got.stderr
    assert f"dsh: warning: {part / 'dir1.jsonl'}: a directory where a session log should be" in got.stderr
    assert "Traceback" not in got.stderr
    ids = [line.split()[0] for line in got.stdout.splitlines()[1:]]
    assert sorted(ids) == sorted([good.id, "torn1", "nocwd1"])
    assert "cannot resume: session has no recorded workspace" in got.stdout
    assert {p: p.read_bytes() for p in (torn, nocwd)} == before


def test_corrupt_index_is_rebuilt_by_the_command(
    dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    log = make(dsh_home, tmp_path, "x")
    (dsh_home / "session-query.db").write_bytes(b"\0garbage" * 512)
    got = run([*dsh_cmd, "sessions"], dsh_env, cwd=tmp_path)
    assert got.returncode == 0 and log.id in got.stdout
    assert "session index unreadable" in got.stderr and "rebuilding it from the logs" in got.stderr
    got = run([*dsh_cmd, "sessions"], dsh_env, cwd=tmp_path)
    assert got.stderr == "" and log.id in got.stdout


def test_never_scans_the_launch_dirs_legacy_folder(dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path) -> None:
    legacy = tmp_path / ".sessions"
    legacy.mkdir()
    (legacy / "old1.jsonl").write_text(json.dumps({"type": "session", "id": "old1", "cwd": str(tmp_path)}))
    got = run([*dsh_cmd, "sessions", "--all", "--json"], dsh_env, cwd=tmp_path)
    assert json.loads(got.stdout) == []
    got = run([*dsh_cmd, "sessions"], dsh_env, cwd=tmp_path)
    assert got.stdout == "" and "no sessions in" in got.stderr


def test_config_root_and_flags_pick_the_store(dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    log = SessionLog.create(other, str(tmp_path))
    log.close()
    got = run([*dsh_cmd, "sessions", "--json"], {**dsh_env, "DSH_SESSION_ROOT": str(other)}, cwd=tmp_path)
    assert [r["id"] for r in json.loads(got.stdout)] == [log.id]
    got = run([*dsh_cmd, "-o", f"store.root={other}", "sessions", "--json"], dsh_env, cwd=tmp_path)
    assert [r["id"] for r in json.loads(got.stdout)] == [log.id]
    got = run([*dsh_cmd, "sessions", "--json"], dsh_env, cwd=tmp_path)
    assert json.loads(got.stdout) == []


def test_age_words() -> None:
    now = 1_800_000_000.0
    from dsh.store.timefmt import iso_from_epoch

    assert age(iso_from_epoch(now - 5), now) == "5s"
    assert age(iso_from_epoch(now - 300), now) == "5m"
    assert age(iso_from_epoch(now - 7200), now) == "2h"
    assert age(iso_from_epoch(now - 3 * 86400), now) == "3d"
    assert age(iso_from_epoch(now - 15 * 86400), now) == "2w"
    assert age(iso_from_epoch(now - 100 * 86400), now) == "2026-10-07"
    assert age("garbage", now) == "?"


def test_table_fits_the_width(dsh_home: Path) -> None:
    import io

    from dsh.config import load_config
    from dsh.store.store import Store

    make(dsh_home, "/w", title="t" * 300)
    store = Store(load_config(env={}))
    rows = store.summaries()
    out = io.StringIO()
    write_table(out, rows, with_workspace=True, width=100)
    assert all(len(line) <= 100 for line in out.getvalue().splitlines())
    assert out.getvalue().splitlines()[1].endswith("t…")
    store.close()


def test_deleted_current_directory(dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f'cd "{gone}" && rmdir "{gone}" && exec "$@"'
    got = subprocess.run(
        ["sh", "-c", script, "sh", *dsh_cmd, "sessions"],
        env=dsh_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert got.returncode == 1
    assert got.stderr.startswith("dsh: cannot tell the current directory") and "--all" in got.stderr
    assert "Traceback" not in got.stderr


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 5, 7, 12])
def test_json_rows_are_written_in_batches_as_one_array(count: int) -> None:
    rows = [json.dumps({"id": f"s{i}", "n": i}) for i in range(count)]
    out = io.StringIO()
    json_out = JsonRowsOut(out, first=3, batch=2)
    for row in rows:
        json_out.add(row)
    json_out.close()
    body = ",\n".join(rows)
    assert out.getvalue() == (f"[\n{body}\n]\n" if rows else "[]\n")
    assert json.loads(out.getvalue()) == [json.loads(row) for row in rows]


class _Flushes(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[str] = []

    def flush(self) -> None:
        self.flushed.append(self.getvalue())


def test_the_newest_rows_leave_before_the_listing_ends() -> None:
    # Another machine's picker shows rows as they come through ssh: the first screen of them is
    # written and flushed at once, not held until the last of 10,000 is made.
    out = _Flushes()
    json_out = JsonRowsOut(out, first=3, batch=100)
    for i in range(3):
        json_out.add(json.dumps({"id": f"s{i}"}))
    assert out.flushed and out.flushed[-1] == '[\n{"id": "s0"},\n{"id": "s1"},\n{"id": "s2"}'
    for i in range(3, 50):
        json_out.add(json.dumps({"id": f"s{i}"}))
    assert out.getvalue() == out.flushed[-1]  # the rest waits for its batch
    json_out.close()
    assert [row["id"] for row in json.loads(out.getvalue())] == [f"s{i}" for i in range(50)]
