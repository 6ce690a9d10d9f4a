"""The four states a pane is shown in after a restart, and how a saved pane earns one."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from dsh.persist.records import AgentInfo, PaneRecord


class PaneState(Enum):
    """LIVE: a process runs. RESTORED: structure back, no process. RESUMABLE: restored, and its agent
    can be continued with an official resume argv. EXITED: the process had ended before the restart."""

    LIVE = "LIVE"
    RESTORED = "RESTORED"
    RESUMABLE = "RESUMABLE"
    EXITED = "EXITED"

    def __str__(self) -> str:
        return self.value


def restored_state(
    record: PaneRecord, resume_argv_for: Callable[[AgentInfo], list[str] | None] | None = None
) -> PaneState:
    """The state of a pane rebuilt from a snapshot (never LIVE: processes do not survive a restart).

    With `resume_argv_for` (dsh.agents.registry.resume_argv_for), a pane is RESUMABLE only when an
    adapter can rebuild its resume argv; the stored argv alone comes from disk and is not trusted.
    """
    return state_of(record.lifecycle, record.agent, resume_argv_for)


def state_of(
    lifecycle: str, agent: AgentInfo | None, resume_argv_for: Callable[[AgentInfo], list[str] | None] | None = None
) -> PaneState:
    """`restored_state` of a pane saved with this lifecycle and agent."""
    if lifecycle == "exited":
        return PaneState.EXITED
    if agent is None or not agent.session_id or not agent.resume_argv:
        return PaneState.RESTORED
    if resume_argv_for is not None and not resume_argv_for(agent):
        return PaneState.RESTORED
    return PaneState.RESUMABLE
