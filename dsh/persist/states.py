"""The four states a pane is shown in after a restart, and how a saved pane earns one."""

from __future__ import annotations

from enum import Enum

from dsh.persist.records import PaneRecord


class PaneState(Enum):
    """LIVE: a process runs. RESTORED: structure back, no process. RESUMABLE: restored, and its agent
    can be continued with an official resume argv. EXITED: the process had ended before the restart."""

    LIVE = "LIVE"
    RESTORED = "RESTORED"
    RESUMABLE = "RESUMABLE"
    EXITED = "EXITED"

    def __str__(self) -> str:
        return self.value


def restored_state(record: PaneRecord) -> PaneState:
    """The state of a pane rebuilt from a snapshot (never LIVE: processes do not survive a restart)."""
    if record.lifecycle == "exited":
        return PaneState.EXITED
    agent = record.agent
    if agent is not None and agent.session_id and agent.resume_argv:
        return PaneState.RESUMABLE
    return PaneState.RESTORED
