"""How a saved agent comes back: the same program in its own directory with its own store, a fresh start
for a session without a conversation, and a pane that waits when the agent's directory is gone."""

from __future__ import annotations

import json
from pathlib import Path

from dsh.agents.resumable import plan_pane_start, recheck, restart_hint, resume_argv
from dsh.persist.records import AgentInfo, PaneRecord
from dsh.persist.states import PaneState, restored_state

SID = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"
SHELL = ["/bin/sh", "-l"]


def nowhere(_: str) -> None:
    return None


def program(folder: Path, name: str = "claude") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_resume_runs_the_program_that_ran_with_its_store(tmp_path: Path) -> None:
    ran = program(tmp_path / "old-bin")
    agent = AgentInfo("claude", SID, program=ran, cwd="/w", env={"CLAUDE_CONFIG_DIR": "/cfg"})
    assert resume_argv(agent, nowhere) == ["env", "CLAUDE_CONFIG_DIR=/cfg", ran, "--resume", SID]


def test_a_saved_program_or_env_is_not_trusted_beyond_its_name_and_variable(tmp_path: Path) -> None:
    evil = program(tmp_path, "sh")
    agent = AgentInfo("claude", SID, program=evil, env={"LD_PRELOAD": "/x.so", "CLAUDE_CONFIG_DIR": "relative"})
    assert resume_argv(agent, lambda name: f"/usr/bin/{name}") == ["/usr/bin/claude", "--resume", SID]
    gone = AgentInfo("claude", SID, program=str(tmp_path / "missing" / "claude"))
    assert resume_argv(gone, nowhere) == ["claude", "--resume", SID]


def test_no_conversation_means_not_resumable_but_a_fresh_start(tmp_path: Path) -> None:
    agent = AgentInfo("claude", SID, resume_argv=["claude", "--resume", SID], cwd=str(tmp_path), conversation=False)
    assert resume_argv(agent, nowhere) is None
    record = PaneRecord(
        id="p1",
        tab="t1",
        title="claude",
        cwd=str(tmp_path),
        argv=["claude"],
        env={},
        rows=24,
        cols=80,
        agent=agent,
        lifecycle="running",
        exit_status=None,
        attention=False,
        last_message=None,
        created_at="2026-12-01T00:00:00.000Z",
    )
    from dsh.agents.registry import resume_argv_for

    assert restored_state(record, resume_argv_for) is PaneState.RESTORED
    plan = plan_pane_start(
        pane_id="p1",
        state=PaneState.RESTORED,
        agent=agent,
        saved_cwd=str(tmp_path),
        session_cwd="/s",
        shell_argv=SHELL,
        which=nowhere,
    )
    assert plan.argv == ["claude"] and plan.cwd == str(tmp_path)
    assert plan.message is not None and "no conversation" in plan.message and "afresh" in plan.message
    assert plan.agent is not None and plan.agent.session_id is None and plan.agent.kind == "claude"
    assert restart_hint(PaneState.RESTORED, agent) == "Enter: start claude afresh (its session had no conversation)"


def test_resume_runs_in_the_agents_directory_and_waits_when_it_is_gone(tmp_path: Path) -> None:
    agent = AgentInfo("codex", SID, cwd=str(tmp_path / "agent-dir"))
    (tmp_path / "agent-dir").mkdir()
    plan = plan_pane_start(
        pane_id="p2",
        state=PaneState.RESUMABLE,
        agent=agent,
        saved_cwd=str(tmp_path),
        session_cwd="/s",
        shell_argv=SHELL,
        which=nowhere,
    )
    assert plan.argv == ["codex", "resume", SID] and plan.cwd == str(tmp_path / "agent-dir") and plan.agent is agent
    (tmp_path / "agent-dir").rmdir()
    plan = plan_pane_start(
        pane_id="p2",
        state=PaneState.RESUMABLE,
        agent=agent,
        saved_cwd=str(tmp_path),
        session_cwd="/s",
        shell_argv=SHELL,
        which=nowhere,
    )
    assert plan.argv is None and plan.error and "is gone" in (plan.message or "")


def test_a_shell_start_drops_the_agent_and_falls_back_to_the_session_directory(tmp_path: Path) -> None:
    plan = plan_pane_start(
        pane_id="p3",
        state=PaneState.EXITED,
        agent=AgentInfo("claude", SID),
        saved_cwd=str(tmp_path / "gone"),
        session_cwd=str(tmp_path),
        shell_argv=SHELL,
    )
    assert plan.argv == SHELL and plan.cwd == str(tmp_path) and plan.agent is None and plan.error


def test_recheck_reads_the_store_now(tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    agent = AgentInfo("claude", SID, cwd="/w", env={"CLAUDE_CONFIG_DIR": str(config)}, conversation=True)
    assert recheck(agent).conversation is False  # the transcript is gone (Claude deletes old ones)
    transcript = config / "projects" / "-w" / f"{SID}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(json.dumps({"type": "user", "cwd": "/w", "sessionId": SID}) + "\n")
    checked = recheck(AgentInfo("claude", SID, cwd="/w", env={"CLAUDE_CONFIG_DIR": str(config)}))
    assert checked.conversation is True and checked.transcript == str(transcript)
    # opencode keeps its store in SQLite behind its CLI: nothing to check here, nothing changed.
    other = AgentInfo("opencode", "ses_abc123")
    assert recheck(other) is other
