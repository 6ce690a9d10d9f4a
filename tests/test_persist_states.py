"""Restore states: which saved pane comes back as EXITED, RESUMABLE or RESTORED."""

from __future__ import annotations

from dsh.persist.records import AgentInfo, PaneRecord
from dsh.persist.states import PaneState, restored_state

SID = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"


def record(lifecycle: str = "running", agent: AgentInfo | None = None) -> PaneRecord:
    return PaneRecord(
        id="p1",
        tab="t1",
        title="x",
        cwd="/tmp",
        argv=["claude"],
        env={},
        rows=24,
        cols=80,
        agent=agent,
        lifecycle=lifecycle,
        exit_status=0 if lifecycle == "exited" else None,
        attention=False,
        last_message=None,
        created_at="2026-11-29T20:00:00Z",
    )


def resumable_agent() -> AgentInfo:
    return AgentInfo(kind="claude", session_id=SID, resume_argv=["claude", "--resume", SID], model=None)


def test_a_plain_shell_is_restored() -> None:
    assert restored_state(record()) is PaneState.RESTORED


def test_an_agent_with_session_and_resume_argv_is_resumable() -> None:
    assert restored_state(record(agent=resumable_agent())) is PaneState.RESUMABLE


def test_an_agent_whose_session_was_never_learned_is_only_restored() -> None:
    agent = AgentInfo(kind="claude", session_id=None, resume_argv=None, model=None)
    assert restored_state(record(agent=agent)) is PaneState.RESTORED
    agent = AgentInfo(kind="claude", session_id=SID, resume_argv=None, model=None)
    assert restored_state(record(agent=agent)) is PaneState.RESTORED


def test_a_pane_that_had_exited_stays_exited_even_with_an_agent() -> None:
    assert restored_state(record("exited")) is PaneState.EXITED
    assert restored_state(record("exited", resumable_agent())) is PaneState.EXITED


def test_states_print_as_their_names() -> None:
    assert [str(s) for s in PaneState] == ["LIVE", "RESTORED", "RESUMABLE", "EXITED"]


def test_with_an_adapter_check_a_forged_agent_is_only_restored() -> None:
    from dsh.agents.registry import resume_argv_for

    forged = AgentInfo(kind="claude", session_id="x; rm -rf ~", resume_argv=["rm", "-rf", "/"], model=None)
    unknown = AgentInfo(kind="vim", session_id=SID, resume_argv=["vim", SID], model=None)
    assert restored_state(record(agent=forged), resume_argv_for) is PaneState.RESTORED
    assert restored_state(record(agent=unknown), resume_argv_for) is PaneState.RESTORED
    assert restored_state(record(agent=resumable_agent()), resume_argv_for) is PaneState.RESUMABLE
