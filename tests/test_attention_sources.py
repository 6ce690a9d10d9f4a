"""Where attention comes from: hook payloads (as the CLIs send them), terminal notifications, and what
goes out to the user's terminal; every payload untrusted."""

from __future__ import annotations

import json

from dsh.attention.hooks import PAYLOAD_MAX, event_for, parse_payload
from dsh.attention.outward import flavour, notification
from dsh.attention.rows import AgentRow, sort_rows
from dsh.attention.states import BLOCKED, DONE, EXITED, IDLE, WORKING
from dsh.attention.terminal import osc_notice, title_spins

SID = "b5f79a21-1b6a-4232-ac1c-328824bb21be"
BASE = {
    "session_id": SID,
    "transcript_path": f"/home/u/.claude/projects/-w/{SID}.jsonl",
    "cwd": "/w",
    "permission_mode": "default",
}


def claude(event: str, **fields: object):
    return event_for("claude", {**BASE, "hook_event_name": event, **fields})


def test_claude_s_events_map_to_states_with_their_line() -> None:
    # Payloads as Claude Code 2.1.197 sends them (UserPromptSubmit and SessionStart seen from the real CLI).
    started = claude("SessionStart", source="startup")
    assert (started.state, started.session_id, started.transcript) == (IDLE, SID, BASE["transcript_path"])
    assert claude("SessionStart", source="compact").state is None  # the id only
    prompt = claude("UserPromptSubmit", prompt="fix the\nflaky test", prompt_id="x")
    assert (prompt.state, prompt.message) == (WORKING, "fix the flaky test")
    ask = claude("PermissionRequest", tool_name="Bash", tool_input={"command": "rm -rf build"})
    assert (ask.state, ask.message) == (BLOCKED, "allow Bash: rm -rf build")
    question = claude(
        "PreToolUse", tool_name="AskUserQuestion", tool_input={"questions": [{"question": "Which DB?", "options": []}]}
    )
    assert (question.state, question.message) == (BLOCKED, "Which DB?")
    assert claude("PreToolUse", tool_name="Read", tool_input={}).state == WORKING
    note = claude("Notification", notification_type="permission_prompt", message="Claude needs your permission")
    assert (note.state, note.message) == (BLOCKED, "Claude needs your permission")
    assert claude("Notification", notification_type="elicitation_dialog", message="Pick").state == BLOCKED
    assert claude("Notification", notification_type="idle_prompt", message="waiting").state == IDLE
    assert claude("Notification", notification_type="auth_success", message="ok") is None
    stop = claude("Stop", stop_hook_active=False, last_assistant_message="All 12 tests pass.")
    assert (stop.state, stop.message) == (DONE, "All 12 tests pass.")
    assert claude("Stop", stop_hook_active=True, last_assistant_message="x") is None
    assert claude("SessionEnd", reason="prompt_input_exit").state == EXITED
    assert claude("SessionEnd", reason="clear").state is None
    assert claude("SubagentStop", agent_id="a1") is None


def test_a_subagent_s_event_is_marked_so() -> None:
    event = claude("PermissionRequest", agent_id="a1", agent_type="Explore", tool_name="Read", tool_input={})
    assert event.subagent is True and event.state == BLOCKED


def test_codex_s_notify_argument_is_a_turn_s_end() -> None:
    # codex 0.171.0's legacy notify: one JSON argument, only agent-turn-complete.
    payload = {
        "type": "agent-turn-complete",
        "thread-id": "01a23383-0d6b-7a30-9f3b-2e16f4f5ccfc",
        "turn-id": "t1",
        "cwd": "/w",
        "client": "codex-tui",
        "input-messages": ["hi"],
        "last-assistant-message": "Done: renamed 3 files.",
    }
    event = event_for("codex", payload)
    assert (event.state, event.message, event.session_id) == (DONE, "Done: renamed 3 files.", payload["thread-id"])
    assert event_for("codex", {"type": "something-else"}) is None


def test_opencode_s_events_through_dsh_s_plugin() -> None:
    assert (
        event_for("opencode", {"type": "session.status", "properties": {"status": {"type": "busy"}}}).state == WORKING
    )
    assert event_for("opencode", {"type": "session.idle", "properties": {"sessionID": "ses_1"}}).state == DONE
    asked = event_for("opencode", {"type": "permission.asked", "properties": {"title": "bash: ls"}})
    assert (asked.state, asked.message) == (BLOCKED, "allow bash: ls?")
    assert event_for("opencode", {"type": "question.asked", "properties": {"question": "Why?"}}).message == "Why?"
    assert event_for("opencode", {"type": "message.updated"}) is None


def test_hostile_payloads_are_bounded_sanitized_and_never_raise() -> None:
    assert parse_payload(b"{" * 100_000) is None
    assert parse_payload(b"x" * (PAYLOAD_MAX + 1)) is None
    assert parse_payload(b"not json") is None
    assert parse_payload(b"[1, 2]") is None
    assert parse_payload(b"\xff\xfe{}") is None
    for payload in (
        {},
        {"hook_event_name": 5},
        {"hook_event_name": "Stop", "last_assistant_message": {"a": 1}},
        {"hook_event_name": "PermissionRequest", "tool_input": [1], "tool_name": None},
        {"hook_event_name": "PreToolUse", "tool_name": "AskUserQuestion", "tool_input": {"questions": "x"}},
        {"type": "session.status", "properties": "nope"},
    ):
        for kind in ("claude", "codex", "opencode", "bogus"):
            event_for(kind, payload)  # no exception is the point; the values are checked below
    evil = claude(
        "Stop",
        session_id="../../etc",
        transcript_path="relative",
        last_assistant_message="\x1b]52;c;aGk=\x07ok \u202egnp.exe " + "y" * 5_000_000,
    )
    assert evil.session_id is None and evil.transcript is None
    assert "\x1b" not in evil.message and "\u202e" not in evil.message and len(evil.message) == 200
    empty = claude("PermissionRequest", tool_input={"command": 7})
    assert empty.message == "allow a tool?"


def test_terminal_notifications_osc_9_777_99_but_not_progress() -> None:
    pending: dict[str, list[str]] = {}
    assert osc_notice("9", "build done", pending) == "build done"
    assert osc_notice("9", "4;1;50", pending) is None  # ConEmu's progress
    assert osc_notice("9", "4", pending) is None
    assert osc_notice("777", "notify;Tests;3 failed", pending) == "Tests: 3 failed"
    assert osc_notice("777", "preexec", pending) is None
    assert osc_notice("99", "i=1:d=0;Title here", pending) is None  # more to come
    assert osc_notice("99", "i=1:p=body;the body", pending) == "Title here: the body"
    assert osc_notice("99", "e=1;aGVsbG8=", pending) == "hello"
    assert osc_notice("99", "i=2:p=close;", pending) is None
    for i in range(100):  # chunks never ended stay bounded
        osc_notice("99", f"i=x{i}:d=0;" + "z" * 10_000, pending)
    assert len(pending) <= 9 and all(sum(map(len, parts)) <= 8192 for parts in pending.values())
    assert osc_notice("9", "\x1b[31mred\u202e", pending) == "^[[31mred\\u202e"


def test_claude_s_spinner_title() -> None:
    assert title_spins("⠂ Fixing tests") and title_spins("⠐ x")
    assert not title_spins("✳ Claude Code") and not title_spins("")


def test_outward_notifications_by_terminal_and_inside_tmux() -> None:
    assert flavour({"TERM": "xterm-kitty"}) == "kitty"
    assert flavour({"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}) == "osc9"
    assert flavour({"TERM": "xterm-ghostty"}) == "osc9"
    assert flavour({"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}) == "osc9"
    assert flavour({"TERM": "xterm-256color", "VTE_VERSION": "7600"}) == "osc777"
    assert flavour({"TERM": "xterm"}) == "bell"
    assert notification("claude needs you", "allow Bash: ls", {"TERM_PROGRAM": "iTerm.app"}) == (
        b"\x1b]9;claude needs you: allow Bash: ls\x07"
    )
    assert notification("t", "b;c", {"VTE_VERSION": "1"}) == b"\x1b]777;notify;t;b,c\x07"
    kitty = notification("t", "body", {"TERM": "xterm-kitty"})
    assert kitty.startswith(b"\x1b]99;i=") and b"p=title;t\x1b\\" in kitty and b"e=1:p=body;Ym9keQ==" in kitty
    wrapped = notification("t", "b", {"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-1/default,1,0"})
    assert wrapped == b"\x1bPtmux;\x1b\x1b]9;t: b\x07\x1b\\"
    assert notification("t", "b", {"TERM": "xterm"}) == b"\x07"
    assert notification("t", "b", {"TERM_PROGRAM": "iTerm.app"}, mode="bell") == b"\x07"
    assert notification("t", "b", {"TERM_PROGRAM": "iTerm.app"}, mode="off") == b""
    # A message cannot end or steer the sequence.
    evil = notification("x\x07\x1b]0;pwn", "y\x1b\\z", {"TERM_PROGRAM": "iTerm.app"})
    assert evil.count(b"\x07") == 1 and evil.count(b"\x1b") == 1


def test_rows_from_another_host_are_checked_and_sorted_most_urgent_first() -> None:
    good = {"pane": "p1", "state": "done", "since": 5.0, "message": "ok\x1b[2J", "kind": "claude", "title": "t"}
    rows = [
        AgentRow.from_dict({**good, "state": "working", "pane": "p2"}, session="s1", cwd="/a"),
        AgentRow.from_dict(good, session="s1", cwd="/a"),
        AgentRow.from_dict({**good, "state": "blocked", "since": 9.0}, session="s2", cwd="/b"),
        AgentRow.from_dict({**good, "state": "blocked", "since": 1.0}, session="s3", cwd="/c"),
    ]
    assert all(row is not None for row in rows)
    ordered = sort_rows([row for row in rows if row is not None])
    assert [(r.session, r.state) for r in ordered] == [
        ("s3", "blocked"),
        ("s2", "blocked"),
        ("s1", "done"),
        ("s1", "working"),
    ]
    assert ordered[2].message == "ok^[[2J"
    for bad in ([], {"state": "sleeping"}, {"state": "done", "cwd": 5}, "x"):
        assert AgentRow.from_dict(bad) is None
    odd = AgentRow.from_dict({"state": "idle", "cwd": "/x", "since": "soon", "pid": True, "pane": "p" * 100})
    assert odd is not None and (odd.since, odd.pid, odd.pane) == (0.0, None, None)
    assert json.loads(json.dumps(odd.to_dict()))["state"] == "idle"
