"""Exact agent ids from process evidence: the CLI tables, /proc facts, Claude's sessions/<pid>.json, the
fallback that never gives two panes one id, the program and directory a resume runs with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dsh.agents.base import PROMPT_BEFORE, Sent, StoreCandidate, choose_candidate, moved_on, prompted_here
from dsh.agents.claude import ClaudeAdapter
from dsh.agents.cli_table import CLAUDE as CLAUDE_CLI
from dsh.agents.cli_table import CODEX as CODEX_CLI
from dsh.agents.cli_table import parse_args
from dsh.agents.codex import CodexAdapter
from dsh.agents.evidence import learn_session, program_of
from dsh.agents.opencode import OpencodeAdapter
from dsh.agents.probe import (
    BACKOFF_MAX,
    RELEARN_SECONDS,
    AgentProbe,
    Neighbour,
    make_request,
    process_facts,
    run_probe,
    typed_agent,
    updated_agent,
)
from dsh.agents.process import ProcessFacts, parse_environ, parse_stat_start, read_process, resolve_program
from dsh.persist.records import AgentInfo

FAKES = Path(__file__).resolve().parent / "fakes" / "bin"
CLAUDE, CODEX, OPENCODE = ClaudeAdapter(), CodexAdapter(), OpencodeAdapter()
A, B = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11", "1c8f5d2b-0b5a-4b5b-8e10-3020f2f4ab22"
C, D = "2d9a6e3c-1c6b-4c6c-9f21-4131a3a5bc33", "3eab7f4d-2d7c-4d7d-8a32-5242b4b6cd44"


# --- the CLI tables -----------------------------------------------------------------------------------------


def test_options_are_read_before_the_subcommand() -> None:
    parsed = parse_args(CLAUDE_CLI, ["--model", "opus", "mcp", "list"])
    assert parsed.subcommand == "mcp" and parsed.positionals == ["list"] and parsed.value("--model") == "opus"
    parsed = parse_args(CLAUDE_CLI, ["-r", A, "fix", "it"])
    assert parsed.subcommand is None and parsed.value("--resume") == A and parsed.positionals == ["fix", "it"]
    # An optional value is not taken when the next word is an option.
    parsed = parse_args(CLAUDE_CLI, ["--resume", "--model", "opus"])
    assert parsed.has("--resume") and parsed.value("--resume") is None and parsed.value("--model") == "opus"
    # Many-valued options take words up to the next option; `--` ends options.
    parsed = parse_args(CLAUDE_CLI, ["--add-dir", "a", "b", "--", "mcp"])
    assert parsed.options["--add-dir"] == ["a", "b"] and parsed.subcommand is None and parsed.positionals == ["mcp"]
    parsed = parse_args(CODEX_CLI, ["-mgpt-5", "exec", "-C", "/w", "do it"])
    assert (parsed.subcommand, parsed.value("--model"), parsed.value("--cd")) == ("exec", "gpt-5", "/w")


def test_each_table_names_the_version_it_was_checked_against() -> None:
    assert CLAUDE_CLI.checked == "claude 2.1.197" and CODEX_CLI.checked == "codex-cli 0.171.0"
    assert {"auto-mode", "gateway", "plugins", "project", "ultrareview"} <= CLAUDE_CLI.subcommands
    assert not {"config", "migrate-installer", "api-key"} & CLAUDE_CLI.subcommands


@pytest.mark.parametrize(
    ("adapter", "argv", "expected"),
    [
        (CODEX, ["codex", "exec", "-C", "../other", "task"], "/w/other"),
        (CODEX, ["codex", "--cd=/abs"], "/abs"),
        (OPENCODE, ["opencode", "sub/dir"], "/w/here/sub/dir"),
        (OPENCODE, ["opencode", "run", "hello"], "/w/here"),
        (CLAUDE, ["claude", "-w", "feature"], "/w/here"),
    ],
)
def test_the_directory_an_agent_is_started_for(adapter, argv: list[str], expected: str) -> None:
    assert adapter.work_dir(argv, "/w/here") == expected


def test_launch_ids_named_on_the_command_line() -> None:
    assert CODEX.launch_id(["codex", "resume", A]) == A
    assert CODEX.launch_id(["codex", "--model", "o3", "resume", A, "go on"]) == A
    assert CODEX.launch_id(["codex", "resume", "--last"]) is None
    assert OPENCODE.launch_id(["opencode", "-s", "ses_abc123"]) == "ses_abc123"
    assert OPENCODE.launch_id(["opencode", "-s", "ses_abc123", "--fork"]) is None
    assert CLAUDE.launch_id(["claude", "--session-id", A]) == A


# --- /proc ----------------------------------------------------------------------------------------------------


def test_proc_parsers() -> None:
    assert parse_environ(b"A=1\0B=x=y\0junk\0=z\0") == {"A": "1", "B": "x=y"}
    stat = b"42 (my (odd) name) S 1 42 42 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 51109 0 0"
    assert parse_stat_start(stat) == 51109
    assert parse_stat_start(b"garbage") is None


def test_read_process_sees_the_child_as_the_kernel_does(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    held = tmp_path / "held.jsonl"
    held.write_text("x\n")
    child = subprocess.Popen(
        [sys.executable, "-c", f"f = open({str(held)!r}); import time; time.sleep(30)"], cwd=tmp_path, env=env
    )
    try:
        deadline = time.time() + 10
        facts = read_process(child.pid)
        while facts is not None and str(held) not in facts.open_files and time.time() < deadline:
            time.sleep(0.05)
            facts = read_process(child.pid)
        assert facts is not None
        assert facts.cwd == str(tmp_path) and facts.env["CLAUDE_CONFIG_DIR"] == str(tmp_path / "cfg")
        assert str(held) in facts.open_files and facts.exe is not None and facts.start_ticks
        assert facts.started_at is not None and abs(facts.started_at - time.time()) < 30
        assert [f.pid for f in process_facts(child.pid)] == [child.pid]
    finally:
        child.kill()
        child.wait()
    assert read_process(child.pid) is None


def test_resolve_program_uses_the_process_path_and_cwd(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "claude"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert resolve_program("claude", path=f"/nonexistent:{bin_dir}", cwd="/") == str(tool)
    assert resolve_program("claude", path="bin", cwd=str(tmp_path)) == str(tool)
    assert resolve_program("./bin/claude", path=None, cwd=str(tmp_path)) == str(tool)
    assert resolve_program("claude", path="/nonexistent", cwd="/") is None


# --- Claude's own record of its process -------------------------------------------------------------------------


def claude_pid_file(config: Path, pid: int, sid: str, cwd: str, proc_start: int | None = 51109) -> None:
    """As Claude Code 2.1.197 writes it."""
    folder = config / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    record = {
        "pid": pid,
        "sessionId": sid,
        "cwd": cwd,
        "startedAt": 1796085920336,
        "version": "2.1.197",
        "peerProtocol": 1,
        "kind": "interactive",
        "entrypoint": "cli",
        "name": "proj-77",
        "nameSource": "derived",
        "status": "idle",
        "updatedAt": 1796085920279,
    }
    if proc_start is not None:
        record["procStart"] = str(proc_start)
    (folder / f"{pid}.json").write_text(json.dumps(record))


def test_claude_sessions_file_names_the_process_session(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    claude_pid_file(tmp_path, 4242, A, "/w")
    assert CLAUDE.id_from_process(4242, 51109, env) == (A, "/w")
    # A file left by a process whose pid was reused names another process.
    assert CLAUDE.id_from_process(4242, 99999, env) is None
    assert CLAUDE.id_from_process(4343, 51109, env) is None
    (tmp_path / "sessions" / "4242.json").write_text("{not json")
    assert CLAUDE.id_from_process(4242, 51109, env) is None


def facts(pid: int = 4242, **kw) -> ProcessFacts:
    base = {"argv": ("claude",), "cwd": "/w", "start_ticks": 51109, "started_at": time.time()}
    base.update(kw)
    return ProcessFacts(pid=pid, **base)


def test_process_evidence_wins_over_the_injected_id_and_follows_clear(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    claude_pid_file(tmp_path, 4242, A, "/w")
    seen = learn_session(
        CLAUDE, facts=[facts(env=env)], argv=["claude"], pane_env={}, pane_cwd="/w", started_at=0.0, known_id=A
    )
    assert (seen.session_id, seen.exact, seen.cwd) == (A, True, "/w")
    claude_pid_file(tmp_path, 4242, B, "/w")  # `/clear`
    seen = learn_session(
        CLAUDE, facts=[facts(env=env)], argv=["claude"], pane_env={}, pane_cwd="/w", started_at=0.0, known_id=A
    )
    assert seen.session_id == B and seen.exact


def test_the_store_is_read_where_the_process_keeps_it(tmp_path: Path) -> None:
    """`export CLAUDE_CONFIG_DIR=…; claude` in a shell pane: the pane's env does not have it, the agent's does."""
    mine = tmp_path / "exported"
    claude_pid_file(mine, 4242, A, "/w")
    seen = learn_session(
        CLAUDE,
        facts=[facts(env={"CLAUDE_CONFIG_DIR": str(mine)})],
        argv=["claude"],
        pane_env={"HOME": str(tmp_path / "home")},
        pane_cwd="/w",
        started_at=0.0,
    )
    assert seen.session_id == A and seen.env == {"CLAUDE_CONFIG_DIR": str(mine)}


def test_an_open_transcript_names_the_session(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    rollout = home / "sessions" / "2026" / "12" / "01" / f"rollout-2026-12-01T00-49-42-{A}.jsonl"
    env = {"CODEX_HOME": str(home)}
    seen = learn_session(
        CODEX,
        facts=[facts(env=env, open_files=("/etc/x", str(rollout)))],
        argv=["codex"],
        pane_env={},
        pane_cwd="/w",
        started_at=0.0,
        taken={A},
    )
    assert (seen.session_id, seen.exact, seen.transcript) == (A, True, None)


def test_an_injected_id_without_a_transcript_has_no_conversation(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    seen = learn_session(
        CLAUDE, facts=[], argv=["claude", "--session-id", A], pane_env=env, pane_cwd="/w", started_at=0.0, known_id=A
    )
    assert seen.session_id == A and seen.conversation is False
    transcript = tmp_path / "projects" / "-w" / f"{A}.jsonl"
    transcript.parent.mkdir(parents=True)
    # What Claude 2.1.197 leaves when a session with no prompt exits: opening records only.
    transcript.write_text(json.dumps({"type": "mode", "mode": "normal", "sessionId": A}) + "\n")
    seen = learn_session(CLAUDE, facts=[], argv=["claude"], pane_env=env, pane_cwd="/w", started_at=0.0, known_id=A)
    assert seen.transcript == str(transcript) and seen.conversation is False
    with transcript.open("a") as out:
        out.write(json.dumps({"type": "user", "cwd": "/w", "sessionId": A, "message": {"content": "hi"}}) + "\n")
    seen = learn_session(CLAUDE, facts=[], argv=["claude"], pane_env=env, pane_cwd="/w", started_at=0.0, known_id=A)
    assert seen.conversation is True


# --- the fallback: the store scan ----------------------------------------------------------------------------


def test_choose_candidate_never_takes_a_held_id_and_respects_rivals() -> None:
    found = [StoreCandidate(A, "/w", 100.0), StoreCandidate(B, "/w", 200.0), StoreCandidate("c", "/x", 150.0)]
    assert choose_candidate(found, cwd="/w", since=90.0).session_id == A
    assert choose_candidate(found, cwd="/w", since=90.0, taken={A}).session_id == B
    assert choose_candidate(found, cwd="/w", since=150.0).session_id == B
    # Another pane started this agent here at 180: what began after that is that pane's.
    assert choose_candidate(found, cwd="/w", since=150.0, rivals=[180.0]) is None
    assert choose_candidate(found, cwd="/w", since=90.0, rivals=[180.0]).session_id == A


def rollout(home: Path, sid: str, cwd: str, started: float) -> None:
    """A rollout as codex-cli 0.171.0 writes it (its session_meta line dated when the thread began)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(started)) + f".{int(started * 1000) % 1000:03d}Z"
    local = time.localtime(started)  # the folder and the name are the thread's local start
    name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', local)}-{sid}.jsonl"
    path = home / "sessions" / time.strftime("%Y/%m/%d", local) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "timestamp": stamp,
        "ordinal": 0,
        "type": "session_meta",
        "payload": {
            "session_id": sid,
            "id": sid,
            "timestamp": stamp,
            "cwd": cwd,
            "originator": "codex-tui",
            "cli_version": "0.171.0",
            "source": "vscode",
        },
    }
    path.write_text(json.dumps(meta) + "\n")


def test_two_codex_panes_in_one_folder_get_their_own_ids(tmp_path: Path) -> None:
    """The second pane's conversation is written first; the first pane must not take it."""
    env = {"CODEX_HOME": str(tmp_path)}
    now = time.time()
    first = Neighbour("codex", None, "/w", now - 100)
    second = Neighbour("codex", None, "/w", now - 50)
    rollout(tmp_path, B, "/w", now - 48)  # the second pane's, prompted first
    request = make_request(
        CODEX,
        agent=AgentInfo("codex"),
        pid=None,
        argv=["codex"],
        env=env,
        cwd="/w",
        started_at=first.started_at,
        others=[second],
    )
    assert run_probe(request).session_id is None
    request = make_request(
        CODEX,
        agent=AgentInfo("codex"),
        pid=None,
        argv=["codex"],
        env=env,
        cwd="/w",
        started_at=second.started_at,
        others=[first],
    )
    assert run_probe(request).session_id == B
    rollout(tmp_path, A, "/w", now - 98)
    held = Neighbour("codex", B, "/w", second.started_at)
    request = make_request(
        CODEX,
        agent=AgentInfo("codex"),
        pid=None,
        argv=["codex"],
        env=env,
        cwd="/w",
        started_at=first.started_at,
        others=[held],
    )
    assert run_probe(request).session_id == A


def test_a_session_begun_by_a_prompt_belongs_to_the_pane_that_sent_it() -> None:
    """Codex 0.171 begins a TUI's thread seconds after it starts and writes it at the first prompt: with two
    panes started a second apart, the first pane's thread begins after the second pane started."""
    first, second = 100.0, 101.0
    thread = StoreCandidate(A, "/w", 106.0, prompted=120.03)
    # By start times alone the first pane's thread looks like the second pane's.
    assert choose_candidate([thread], cwd="/w", since=first, rivals=[second]) is None
    assert choose_candidate([thread], cwd="/w", since=second, rivals=[first]).session_id == A
    # The first pane sent the line that began it.
    sent = Sent(mine=(99.0, 120.0), theirs=(100.5,))
    assert choose_candidate([thread], cwd="/w", since=first, rivals=[second], sent=sent).session_id == A
    theirs = Sent(mine=(100.5,), theirs=(99.0, 120.0))
    assert choose_candidate([thread], cwd="/w", since=second, rivals=[first], sent=theirs) is None
    # Both sent a line in that second: the record followed the first pane's Enter by 30 ms, the second
    # pane's by 230 ms, and the two Enters were 200 ms apart: the first pane's began it.
    both = Sent(mine=(120.0,), theirs=(119.8,))
    assert choose_candidate([thread], cwd="/w", since=first, rivals=[second], sent=both).session_id == A
    assert choose_candidate([thread], cwd="/w", since=second, rivals=[first], sent=Sent(both.theirs, both.mine)) is None
    # Two Enters 10 ms apart, the record 30 ms after the first: no telling, and the start times decide.
    close = Sent(mine=(120.0,), theirs=(120.01,))
    assert choose_candidate([thread], cwd="/w", since=first, rivals=[second], sent=close) is None
    # Of the sessions this pane began, the latest is the one it runs now.
    later = StoreCandidate(B, "/w", 130.0, prompted=140.01)
    sent = Sent(mine=(120.0, 140.0))
    assert choose_candidate([thread, later], cwd="/w", since=first, sent=sent).session_id == B


def test_a_fresh_codex_s_first_thread_written_seconds_after_the_enter_is_the_pane_s() -> None:
    """Codex 0.171 wrote the rollout of a TUI's first prompt 1.4-2.6 s after its Enter (three runs; 30-50
    ms after `/new`): that Enter still began it, for this pane and not the other one in the folder."""
    thread = StoreCandidate(A, "/w", 101.0, prompted=122.6)
    sent = Sent(mine=(120.0,), theirs=(110.0,))
    assert prompted_here(thread, sent) is True
    assert prompted_here(thread, Sent(mine=sent.theirs, theirs=sent.mine)) is False


def test_two_panes_whose_prompts_began_threads_in_the_same_second_each_get_their_own() -> None:
    """Two Codex panes in one folder, Enter pressed in each 400 ms apart: each rollout was written 30 ms
    after its own pane's Enter (Codex 0.171), both within a second of both Enters."""
    left, right = 100.0, 100.2  # the TUIs started together: their threads' start times tell nothing
    first = StoreCandidate(A, "/w", 104.0, prompted=120.03)
    second = StoreCandidate(B, "/w", 104.1, prompted=120.43)
    sent_left, sent_right = (120.0,), (120.4,)
    mine_left, mine_right = Sent(sent_left, sent_right), Sent(sent_right, sent_left)
    assert [prompted_here(c, mine_left) for c in (first, second)] == [True, False]
    assert [prompted_here(c, mine_right) for c in (first, second)] == [False, True]
    both = [first, second]
    assert choose_candidate(both, cwd="/w", since=left, rivals=[right], sent=mine_left).session_id == A
    assert choose_candidate(both, cwd="/w", since=right, rivals=[left], sent=mine_right).session_id == B
    # And after `/new` in each, Enter in each in the same second: each pane follows its own new thread.
    newer = [StoreCandidate(C, "/w", 150.0, prompted=160.03), StoreCandidate(D, "/w", 150.1, prompted=160.33)]
    later_left, later_right = Sent((120.0, 160.0), (120.4, 160.3)), Sent((120.4, 160.3), (120.0, 160.0))
    assert moved_on([*both, *newer], current=A, cwd="/w", since=left, taken={B}, sent=later_left).session_id == C
    assert moved_on([*both, *newer], current=B, cwd="/w", since=right, taken={A}, sent=later_right).session_id == D


def test_a_new_session_is_followed_only_when_this_pane_began_it() -> None:
    old = StoreCandidate(A, "/w", 100.0, prompted=110.0)
    new = StoreCandidate(B, "/w", 200.0, prompted=210.0)
    both = [old, new]
    assert moved_on(both, current=A, cwd="/w", since=90.0, sent=Sent(mine=(110.0, 209.97))).session_id == B
    # Another pane's prompt began it; no pane's did (an agent outside dsh); another pane holds it; or it
    # is another folder's: it is not this pane's.
    assert moved_on(both, current=A, cwd="/w", since=90.0, sent=Sent(mine=(110.0,), theirs=(209.97,))) is None
    assert moved_on(both, current=A, cwd="/w", since=90.0, sent=Sent(mine=(110.0,))) is None
    assert moved_on(both, current=A, cwd="/w", since=90.0, taken={B}, sent=Sent(mine=(209.97,))) is None
    assert moved_on(both, current=A, cwd="/x", since=90.0, sent=Sent(mine=(209.97,))) is None
    # Never back to a session begun before the one held, nor to one begun before the pane started.
    assert moved_on(both, current=B, cwd="/w", since=90.0, sent=Sent(mine=(110.0,))) is None
    assert moved_on(both, current=A, cwd="/w", since=205.0, sent=Sent(mine=(209.97,))) is None


def test_only_a_pane_that_sent_a_line_lately_is_looked_for_a_new_session(tmp_path: Path) -> None:
    """The store is scanned every few seconds while an agent runs, but only for a pane whose prompt can have
    begun a session since its last looks."""
    home, now = tmp_path / "codex", time.time()
    env = {"CODEX_HOME": str(home)}
    rollout(home, A, "/w", now - 300)
    rollout(home, B, "/w", now - 100)
    assert CODEX.follow_session_id(A, "/w", now - 400, env, sent=Sent(mine=(now - 100,))) is None
    later = "2d9a6e3c-1c6b-4c6c-9f21-4131a3f5bc33"
    rollout(home, later, "/w", now - 10)
    assert CODEX.follow_session_id(A, "/w", now - 400, env, sent=Sent(mine=(now - 100, now - 10))) == later


def rollout_path(home: Path, sid: str) -> str:
    return str(next((home / "sessions").glob(f"*/*/*/rollout-*-{sid}.jsonl")))


def test_the_codex_daemon_holds_every_thread_open_so_its_files_name_no_pane(tmp_path: Path) -> None:
    """Codex 0.171's app-server daemon, a child of the TUI that started it, holds other TUIs' rollouts open."""
    home, now = tmp_path / "codex", time.time()
    env = {"CODEX_HOME": str(home)}
    rollout(home, A, "/w", now - 50)
    rollout(home, B, "/w", now - 20)  # another pane's codex
    tui = facts(argv=("/usr/lib/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/bin/codex",), env=env)
    daemon = facts(
        pid=4343,
        argv=(str(home / "packages/app-server-daemon/releases/0.171.0/bin/codex"), "app-server", "--listen", "unix://"),
        env=env,
        open_files=(rollout_path(home, B), rollout_path(home, A)),
    )
    seen = learn_session(
        CODEX, facts=[tui, daemon], argv=["codex"], pane_env={}, pane_cwd="/w", started_at=now - 60, known_id=A
    )
    assert (seen.session_id, seen.exact) == (A, False)


def test_a_codex_holding_its_own_rollouts_runs_the_one_begun_last(tmp_path: Path) -> None:
    """Without the daemon (`--disable daemon_auto_start`) the TUI holds its rollouts itself: after `/new`,
    the one before it as well."""
    home, now = tmp_path / "codex", time.time()
    env = {"CODEX_HOME": str(home)}
    rollout(home, A, "/w", now - 50)
    rollout(home, B, "/w", now - 20)
    tui = facts(argv=("codex",), env=env, open_files=(rollout_path(home, A), rollout_path(home, B)))
    seen = learn_session(CODEX, facts=[tui], argv=["codex"], pane_env={}, pane_cwd="/w", started_at=now - 60)
    assert (seen.session_id, seen.exact, seen.transcript) == (B, True, rollout_path(home, B))


def prompt_in(home: Path, sid: str, when: float, text: str = "go on") -> None:
    """A prompt sent in thread `sid` at `when`, as codex-cli 0.171.0 records it: a user message appended to
    the thread's own rollout (dated then) and a line in history.jsonl (dated by the second)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when)) + f".{int(when * 1000) % 1000:03d}Z"
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    with open(rollout_path(home, sid), "a") as handle:
        handle.write(json.dumps({"timestamp": stamp, "type": "event_msg", "payload": {"type": "task_started"}}) + "\n")
        handle.write(json.dumps({"timestamp": stamp, "type": "response_item", "payload": message}) + "\n")
        handle.write(json.dumps({"timestamp": stamp, "type": "event_msg", "payload": {"type": "turn_aborted"}}) + "\n")
    with open(home / "history.jsonl", "a") as handle:
        handle.write(json.dumps({"session_id": sid, "ts": int(when), "text": text}) + "\n")


def test_a_codex_pane_follows_its_prompt_back_into_an_older_thread(tmp_path: Path) -> None:
    """Codex's `/resume` picker goes back to a thread begun before the pane started (thread A, a day ago);
    the prompt sent then is appended to A's own rollout: the pane is on A now, not on B."""
    home, now = tmp_path / "codex", time.time()
    env = {"CODEX_HOME": str(home)}
    rollout(home, A, "/w", now - 86400 * 3)
    rollout(home, B, "/w", now - 40)  # this pane's thread until the switch
    prompt_in(home, B, now - 38)
    prompt_in(home, A, now - 5.0)
    started = now - 45

    def follow(current: str, sent: Sent, taken: frozenset[str] = frozenset(), cwd: str = "/w") -> str | None:
        return CODEX.follow_session_id(current, cwd, started, env, taken=taken, sent=sent)

    assert follow(B, Sent(mine=(now - 38.05, now - 5.05))) == A
    # The prompt was another pane's (an Enter there, none here just then): this pane stays on B.
    assert follow(B, Sent(mine=(now - 38.05,), theirs=(now - 5.05,))) is None
    assert follow(B, Sent(mine=(now - 38.05, now - 12.0))) is None
    # Another pane holds A, or A is another folder's: never two panes on one id, nor one from elsewhere.
    assert follow(B, Sent(mine=(now - 38.05, now - 5.05)), taken=frozenset({A})) is None
    assert follow(B, Sent(mine=(now - 5.05,)), cwd="/x") is None
    # Back to B, and a prompt there: the latest prompt this pane sent went to B.
    prompt_in(home, B, now - 1.0)
    assert follow(A, Sent(mine=(now - 38.05, now - 5.05, now - 1.05))) == B
    assert follow(B, Sent(mine=(now - 38.05, now - 5.05, now - 1.05))) is None


def test_a_codex_pane_follows_a_switch_back_while_it_runs(tmp_path: Path) -> None:
    """Through the probe: the pane's AgentInfo changes to the older thread, and its resume names it."""
    home, now = tmp_path / "codex", time.time()
    env = {"CODEX_HOME": str(home)}
    rollout(home, A, "/w", now - 86400)
    rollout(home, B, "/w", now - 40)
    prompt_in(home, B, now - 38)
    prompt_in(home, A, now - 3.0)
    agent = CODEX.agent_info(["codex"], B, cwd="/w", conversation=True, transcript=rollout_path(home, B))
    request = make_request(
        CODEX,
        agent=agent,
        pid=None,
        argv=["codex"],
        env=env,
        cwd="/w",
        started_at=now - 45,
        others=[],
        sent=(now - 38.05, now - 3.05),
    )
    fresh = updated_agent(CODEX, ["codex"], agent, run_probe(request))
    assert fresh is not None
    assert (fresh.session_id, fresh.resume_argv, fresh.transcript) == (A, ["codex", "resume", A], rollout_path(home, A))


def test_a_codex_holding_its_rollouts_runs_the_thread_it_loaded_last(tmp_path: Path) -> None:
    """Without the daemon the TUI holds every thread it loaded: going back to A (begun first) re-creates A's
    lock, and going on to B again re-creates B's."""
    home, now = tmp_path / "codex", time.time()
    env = {"CODEX_HOME": str(home)}
    rollout(home, A, "/w", now - 50)
    rollout(home, B, "/w", now - 20)
    locks = home / "thread-writer-locks"
    locks.mkdir()
    for sid, when in ((A, now - 50), (B, now - 20)):
        (locks / f"{sid}.lock").touch()
        os.utime(locks / f"{sid}.lock", (when, when))
    tui = facts(argv=("codex",), env=env, open_files=(rollout_path(home, A), rollout_path(home, B)))

    def seen() -> str | None:
        return learn_session(
            CODEX, facts=[tui], argv=["codex"], pane_env={}, pane_cwd="/w", started_at=now - 60
        ).session_id

    assert seen() == B
    os.utime(locks / f"{A}.lock", (now - 5, now - 5))  # `/resume` back to A
    assert seen() == A
    os.utime(locks / f"{B}.lock", (now - 1, now - 1))  # and on to B again
    assert seen() == B


# --- the program a resume runs ---------------------------------------------------------------------------------


def test_program_is_argv0_on_the_agents_own_path(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for folder in (old, new):
        folder.mkdir()
        (folder / "claude").write_text("#!/bin/sh\n")
        (folder / "claude").chmod(0o755)
    assert program_of(CLAUDE, ["claude", "--model", "x"], path=f"{old}:{new}", cwd="/") == str(old / "claude")
    # An interpreter running the CLI's script (codex's npm launcher is `node …/bin/codex`).
    script = tmp_path / "codex"
    script.write_text("#!/usr/bin/env node\n")
    script.chmod(0o755)
    assert program_of(CODEX, ["node", str(script)], path="", cwd="/") == str(script)
    # Something not named like the CLI is never the program.
    assert program_of(CLAUDE, ["claude"], path="", cwd="/", exe="/usr/bin/node") is None


def test_the_real_cli_fakes_are_found_by_their_own_path() -> None:
    assert program_of(CLAUDE, ["claude"], path=str(FAKES), cwd="/") == str(FAKES / "claude")


def test_updated_agent_keeps_what_is_known_and_reports_no_change() -> None:
    agent = CLAUDE.agent_info(["claude", "--model", "opus"], A, cwd="/w", conversation=True)
    from dsh.agents.evidence import Learned

    same = Learned(A, "/w", True, None, {}, None, True)
    assert updated_agent(CLAUDE, ["claude", "--model", "opus"], agent, same) is None
    moved = updated_agent(CLAUDE, ["claude", "--model", "opus"], agent, Learned(B, "/w", True, None, {}, None, False))
    assert moved is not None and moved.session_id == B and moved.model == "opus" and moved.conversation is False


def test_typed_agent_skips_subcommands_and_reads_interpreters() -> None:
    assert typed_agent(["claude", "mcp", "list"], "/w") is None
    seen = typed_agent(["node", "/x/bin/codex", "-C", "sub"], "/w")
    assert seen is not None and seen.kind == "codex" and seen.cwd == "/w/sub"
    seen = typed_agent(["claude", "--resume", A], "/w")
    assert seen is not None and seen.session_id == A


# --- against the fake CLIs (which write what the real versions write) ------------------------------------------


def wait_for(check, what: str, timeout: float = 10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_fake_claude_records_its_process_and_switches_ids_on_clear(tmp_path: Path) -> None:
    config, work = tmp_path / "cfg", tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{FAKES}:/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(config)}
    child = subprocess.Popen(["claude"], cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None
    try:
        pid_file = config / "sessions" / f"{child.pid}.json"
        wait_for(pid_file.exists, "sessions/<pid>.json")

        def learned():
            return learn_session(
                CLAUDE,
                facts=process_facts(child.pid),
                argv=["claude"],
                pane_env={},
                pane_cwd=str(work),
                started_at=time.time() - 60,
            )

        first = learned()
        assert first.exact and first.cwd == str(work) and first.env == {"CLAUDE_CONFIG_DIR": str(config)}
        assert first.conversation is False  # nothing typed yet: no transcript
        assert first.program == str(FAKES / "claude")
        child.stdin.write("hello\n")
        child.stdin.flush()
        wait_for(lambda: learned().conversation, "a conversation")
        child.stdin.write("/clear\n")
        child.stdin.flush()
        second = wait_for(lambda: (s := learned()).session_id != first.session_id and s, "the id after /clear")
        assert second.exact and second.session_id == json.loads(pid_file.read_text())["sessionId"]
        child.stdin.close()
        child.wait(timeout=10)
        assert not pid_file.exists()  # removed when the CLI exits, as the real one does
    finally:
        child.kill()
        child.wait()


def test_the_fake_codex_begins_a_new_thread_on_new_and_it_is_followed(tmp_path: Path) -> None:
    home, work = tmp_path / "codex-home", tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{FAKES}:/usr/bin:/bin", "HOME": str(tmp_path), "CODEX_HOME": str(home)}
    started = time.time()
    child = subprocess.Popen(["codex"], cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    sent: list[float] = []

    def send(line: str) -> str:
        assert child.stdin is not None and child.stdout is not None
        sent.append(time.time())
        child.stdin.write(line + "\n")
        child.stdin.flush()
        return child.stdout.readline()

    def learned(known: str | None, theirs: tuple[float, ...] = ()):
        return learn_session(
            CODEX,
            facts=process_facts(child.pid),
            argv=["codex"],
            pane_env=env,
            pane_cwd=str(work),
            started_at=started - 1,
            known_id=known,
            sent=Sent(tuple(sent), theirs),
            scan=known is None,
        )

    try:
        first = child.stdout.readline().split()[2]  # "fake-codex session <id> in <cwd>"
        assert learned(None).session_id is None  # no prompt yet: no rollout
        send("the first conversation")
        assert learned(None).session_id == first
        second = send("/new").split()[-1]  # "codex: new thread <id>"
        assert learned(first).session_id == first  # the new thread has no rollout before its prompt
        send("the second conversation")
        # Had another pane sent a line just then, the thread might be that pane's.
        assert learned(first, theirs=(sent[-1],)).session_id == first
        now = learned(first)
        assert (now.session_id, now.exact, now.conversation) == (second, False, True)
        rollouts = sorted((home / "sessions").glob("*/*/*/rollout-*.jsonl"))
        assert sorted(p.name[-42:-6] for p in rollouts) == sorted([first, second])  # the old one stays
    finally:
        child.kill()
        child.wait()


class FakeAgent:
    """A fake agent CLI run as a pane runs it, remembering when lines were sent to it."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.env, self.cwd, self.started = env, cwd, time.time()
        self.child = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.sent: list[float] = []
        self.banner = self.read()

    def read(self) -> str:
        assert self.child.stdout is not None
        return self.child.stdout.readline()

    def send(self, line: str) -> str:
        assert self.child.stdin is not None
        self.sent.append(time.time())
        self.child.stdin.write(line + "\n")
        self.child.stdin.flush()
        return self.read()

    def learn(self, adapter, known: str | None, *others: FakeAgent, taken: frozenset[str] = frozenset()):
        return learn_session(
            adapter,
            facts=process_facts(self.child.pid),
            argv=[adapter.binary],
            pane_env=self.env,
            pane_cwd=str(self.cwd),
            started_at=self.started - 1,
            known_id=known,
            taken=taken,
            sent=Sent(tuple(self.sent), tuple(t for o in others for t in o.sent)),
            scan=known is None,
        ).session_id

    def close(self) -> None:
        self.child.kill()
        self.child.wait()


def test_the_fake_codex_goes_back_to_an_older_thread_and_it_is_followed(tmp_path: Path) -> None:
    """`/new`, then back to the first thread with `/resume`, then a prompt: the pane is on the first thread
    again (the real TUI names it on exit), and a second codex in the folder keeps its own."""
    home, work = tmp_path / "codex-home", tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{FAKES}:/usr/bin:/bin", "HOME": str(tmp_path), "CODEX_HOME": str(home)}
    left = FakeAgent(["codex"], work, env)
    right = FakeAgent(["codex"], work, env)
    try:
        left.send("the first conversation")
        first = left.learn(CODEX, None, right)
        right.send("the other pane's conversation")
        theirs = right.learn(CODEX, None, left, taken=frozenset({first}))
        assert first is not None and theirs not in (None, first)
        second = left.send("/new").split()[-1]
        left.send("the second conversation")
        assert left.learn(CODEX, first, right, taken=frozenset({theirs})) == second
        assert left.send(f"/resume {first}").split()[-1] == first
        assert left.learn(CODEX, second, right, taken=frozenset({theirs})) == second  # no prompt yet
        left.send("back in the first")
        assert left.learn(CODEX, second, right, taken=frozenset({theirs})) == first
        assert right.learn(CODEX, theirs, left, taken=frozenset({first})) == theirs
        # The other pane goes back to the first thread too: the left pane holds it, so it keeps its own.
        right.send(f"/resume {first}")
        right.send("the other pane in the first")
        assert right.learn(CODEX, theirs, left, taken=frozenset({first})) == theirs
    finally:
        left.close()
        right.close()


def test_two_opencode_panes_in_one_folder_get_their_own_ids_and_follow_new(tmp_path: Path) -> None:
    """opencode 1.18 ties no file to its process and creates a session at its first prompt: the pane that
    sent that prompt holds it, whichever pane looks first; `/new` then a prompt moves that pane on."""
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{FAKES}:/usr/bin:/bin", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    first = FakeAgent(["opencode"], work, env)
    second = FakeAgent(["opencode"], work, env)
    try:
        second.send("the second pane asks first")
        second_id = second.banner.split()[2]
        assert first.learn(OPENCODE, None, second) is None  # the only session is the second pane's
        assert second.learn(OPENCODE, None, first) == second_id
        time.sleep(PROMPT_BEFORE + 0.1)  # a person's prompts in two panes: not within the same moment
        first.send("then the first pane")
        first_id = first.banner.split()[2]
        assert first.learn(OPENCODE, None, second) == first_id
        newer = first.send("/new").split()[-1]
        first.send("a new session in the first pane")
        assert first.learn(OPENCODE, first_id, second, taken=frozenset({second_id})) == newer
        assert second.learn(OPENCODE, second_id, first, taken=frozenset({newer})) == second_id
        # The CLI lists all three in this folder; the old session stays a conversation of its own.
        listed = subprocess.run(
            ["opencode", "session", "list", "--format", "json"],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert {row["id"] for row in json.loads(listed.stdout)} == {first_id, second_id, newer}
    finally:
        first.close()
        second.close()


def test_once_an_id_is_found_it_is_looked_at_again_soon() -> None:
    """A `/new` right after the first prompt is followed within seconds, not after the search's backoff."""
    probe = AgentProbe()
    for _ in range(6):
        probe.schedule(1000.0, known=False)
    assert probe.next_try == 1000.0 + BACKOFF_MAX
    probe.learned(1001.0)
    assert probe.next_try == 1001.0 + RELEARN_SECONDS
    probe.schedule(1004.0, known=True)
    assert probe.next_try == 1004.0 + RELEARN_SECONDS


def test_a_clock_set_back_does_not_put_the_next_look_off_by_as_long() -> None:
    """The wall clock set back an hour (NTP, a suspended laptop, by hand) after a look: the next look is
    not an hour and some seconds away."""
    probe = AgentProbe()
    probe.schedule(10_000.0, known=True)
    assert not probe.due(10_001.0)
    assert probe.due(10_001.0 - 3600)  # set back: due now
    probe.schedule(10_001.0 - 3600, known=True)
    assert not probe.due(10_002.0 - 3600) and probe.due(10_001.0 - 3600 + RELEARN_SECONDS)


def test_a_line_sent_to_the_pane_brings_the_next_look_forward() -> None:
    """An agent begins its session at a prompt: a look a moment after it learns the id in a second or two,
    not after the backoff (up to 30 s) of the search."""
    probe = AgentProbe()
    for _ in range(6):
        probe.schedule(1000.0, known=False)
    assert not probe.due(1001.0) and not probe.due(1001.0, sent_at=999.0)  # sent before the last look
    assert not probe.due(1001.2, sent_at=1001.0)  # the store is written a moment after the Enter
    assert probe.due(1001.5, sent_at=1001.0)
    probe.busy = True
    assert not probe.due(1001.5, sent_at=1001.0)
    probe.busy = False
    probe.schedule(1001.5, known=False)
    assert not probe.due(1002.5, sent_at=1001.0)  # looked since
