"""The agents of the live sessions a listing shows, asked of every host at once and waited for a bound."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from dsh.attention.rows import AgentRow
    from dsh.hostquery import Asking

# How long a listing waits, at most and after its own work, for the hosts that have not answered yet (a
# host answers a query in about a millisecond; one stopped or stuck is listed without its agents).
ANSWER_SECONDS = 0.3


class LiveAgents:
    """Sent when made (the hosts answer while the listing reads the index), read once by `by_session`."""

    def __init__(self, paths: list[Path]) -> None:
        from dsh.hostquery import Asking

        self._asking: Asking | None = Asking(paths) if paths else None
        self._rows: dict[str, list[AgentRow]] | None = None

    def by_session(self) -> dict[str, list[AgentRow]]:
        """Each answering host's agent rows, by its session id ([] for a host with no agent pane)."""
        if self._rows is None:
            self._rows = {}
            if self._asking is not None:
                from dsh.attention.rows import rows_of

                for path, answer in self._asking.answers(ANSWER_SECONDS).items():
                    session = answer.get("session")
                    if isinstance(session, str) and path.name == f"{session}.sock":  # its own socket only
                        self._rows[session] = rows_of(answer)
        return self._rows

    def line(self, session_id: str) -> str | None:
        """ "1 needs you · 2 working" for a session whose host answered; None when it did not."""
        rows = self.by_session().get(session_id)
        if rows is None:
            return None
        from dsh.attention.states import session_line

        return session_line([row.state for row in rows])

    def states(self, session_id: str) -> list[dict[str, object]] | None:
        """The JSON listing's `agent_states` of a live session: each agent pane's {pane, kind, state,
        since, message}; None when its host did not answer in time."""
        rows = self.by_session().get(session_id)
        if rows is None:
            return None
        return [
            {"pane": row.pane, "kind": row.kind, "state": row.state, "since": row.since, "message": row.message}
            for row in rows
        ]

    def stopped(self) -> dict[str, int]:
        """The live sessions whose hosts are stopped (SIGSTOP), with their pids: seen so when asked, and
        never waited for."""
        rows = self._asking.stopped if self._asking is not None else []
        return {str(row["session"]): int(row["pid"]) for row in rows}

    def add_states(self, session_id: str, data: dict[str, object]) -> None:
        """A live session's JSON object gets its `agent_states` and `host_stopped` (dsh.store.json_listing's
        `live`)."""
        data["agent_states"] = self.states(session_id)
        data["host_stopped"] = session_id in self.stopped()

    def close(self) -> None:
        if self._asking is not None:
            self._asking.close()
