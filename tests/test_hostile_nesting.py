"""Deep nesting in a log line or a config: a malformed line (skipped with a warning naming file and line)
or a config layer skipped with its path; never a RecursionError through a listing or `dsh config`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.config import load_config
from dsh.store.log import MAX_DEPTH, LogError, read_header, read_log
from dsh.store.store import Store
from tests.hostile import assert_clean, make_sessions, run_dsh


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _log_of(sid: str) -> Path:
    store = Store(load_config(env={}))
    path = store.find_log(sid)
    store.close()
    assert path is not None
    return path


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 300, 100_000])
def test_a_deeply_nested_log_line_is_skipped_and_the_lines_around_it_kept(
    depth: int, dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    sid, other = make_sessions(tmp_path, "first input", "another session")
    path = _log_of(sid)
    with path.open("a") as handle:
        handle.write(f'{{"type": "input", "text": "deep", "v": {nested(depth)}}}\n')
        handle.write('{"type": "input", "text": "after the deep line"}\n')
    contents = read_log(path)
    assert [e["text"] for e in contents.events if e["type"] == "input"] == ["first input", "after the deep line"]
    assert contents.warnings == [f"{path}:4: malformed line skipped (nested deeper than {MAX_DEPTH} levels)"]
    got = run_dsh(dsh_cmd, dsh_env, "sessions", "--all")
    assert got.returncode == 0
    assert_clean(got)
    assert sid in got.stdout and other in got.stdout
    assert f"{path}:4: malformed line skipped (nested deeper than {MAX_DEPTH} levels)" in got.stderr
    rows = json.loads(run_dsh(dsh_cmd, dsh_env, "sessions", "--all", "--json").stdout)
    assert {row["id"]: row["input_count"] for row in rows}[sid] == 2


def test_nesting_dsh_writes_and_brackets_in_text_are_fine(tmp_path: Path) -> None:
    [sid] = make_sessions(tmp_path, "for i in {1..3}; do [ -f x ] && echo [[[[ {{{{ ; done" * 20)
    path = _log_of(sid)
    with path.open("a") as handle:
        handle.write(json.dumps({"type": "meta", "v": json.loads(nested(MAX_DEPTH - 1))}) + "\n")
    contents = read_log(path)
    assert contents.warnings == [] and [e["type"] for e in contents.events] == ["input", "close", "meta"]


def test_a_deeply_nested_header_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "20260101T000000Z-aaaaaa.jsonl"
    path.write_text(f'{{"type": "session", "cwd": "/w", "x": {nested(5000)}}}\n')
    with pytest.raises(LogError, match=f"{path}:1: header is nested deeper than {MAX_DEPTH} levels"):
        read_header(path)
    assert read_log(path).header is None


@pytest.mark.parametrize("depth", [40, 400])
def test_a_deeply_nested_config_is_skipped_with_its_path_and_dsh_carries_on(
    depth: int, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    [sid] = make_sessions(tmp_path, "listed")
    path = dsh_home / "config.toml"
    path.write_text(f'a = {nested(depth)}\n[ui]\nprefix = "c-a"\n')
    config = load_config(env={"DSH_SCROLLBACK": "2000"})
    assert config.get("ui.prefix") == "c-b" and config.get("term.scrollback") == 2000
    [warning] = config.warnings
    assert warning.startswith(f"{path}: ") and warning.endswith("; using the other layers")
    for args in (["config"], ["config", "get", "ui.prefix"], ["sessions", "--all"]):
        got = run_dsh(dsh_cmd, dsh_env, *args)
        assert got.returncode == 0, got.stderr
        assert_clean(got)
        assert f"dsh: warning: {path}: " in got.stderr
    assert sid in run_dsh(dsh_cmd, dsh_env, "sessions", "--all").stdout


def test_deeply_nested_tables_are_skipped_too(dsh_home: Path) -> None:
    path = dsh_home / "config.toml"
    path.write_text("[" + ".".join(f"t{n}" for n in range(300)) + "]\nx = 1\n")
    config = load_config(env={})
    assert config.warnings == [
        f"{path}: tables and arrays nested deeper than 16 levels; not a config file; using the other layers"
    ]
