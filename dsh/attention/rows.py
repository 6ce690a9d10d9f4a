"""One row per agent pane on the machine, as hosts answer for their sessions and `/agents` and
`dsh agents` list them: made from a host's answer (untrusted: checked field by field), sorted most
urgent first."""

from __future__ import annotations

from dsh.attention.model import one_line
from dsh.attention.states import URGENCY, valid_state
from dsh.machines.config import MACHINE_NAME_RE
from dsh.values import Value

# A host answers for at most this many panes (its answer is one handshake line, HELLO_MAX bytes).
MAX_ROWS_PER_HOST = 64


class AgentRow(
    Value,
    fields=(
        "session",
        "cwd",
        "session_title",
        "pane",
        "title",
        "kind",
        "state",
        "since",
        "message",
        "outside",
        "pid",
        "machine",
    ),
):
    """An agent pane (or an agent outside dsh, `outside`): where, what, its state since when, its line;
    `machine` the configured machine it runs on (None: this one)."""

    session: str | None
    cwd: str
    session_title: str
    pane: str | None
    title: str
    kind: str
    state: str
    since: float
    message: str | None
    outside: bool
    pid: int | None
    machine: str | None

    def __init__(
        self,
        *,
        session: str | None,
        cwd: str,
        session_title: str = "",
        pane: str | None,
        title: str = "",
        kind: str = "",
        state: str,
        since: float = 0.0,
        message: str | None = None,
        outside: bool = False,
        pid: int | None = None,
        machine: str | None = None,
    ) -> None:
        self.session = session
        self.cwd = cwd
        self.session_title = session_title
        self.pane = pane
        self.title = title
        self.kind = kind
        self.state = state
        self.since = since
        self.message = message
        self.outside = outside
        self.pid = pid
        self.machine = machine

    def to_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self._fields}

    @classmethod
    def from_dict(cls, data: object, *, session: str | None = None, cwd: str | None = None) -> AgentRow | None:
        """A row from another process's answer, or None when it is not one; text made safe to show."""
        if not isinstance(data, dict):
            return None
        state = data.get("state")
        if not valid_state(state):
            return None
        sid = session if session is not None else data.get("session")
        where = cwd if cwd is not None else data.get("cwd")
        pane = data.get("pane")
        since = data.get("since")
        pid = data.get("pid")
        machine = data.get("machine")
        if not isinstance(where, str) or (sid is not None and not isinstance(sid, str)):
            return None
        return cls(
            session=sid,
            cwd=one_line(where, 300) or "",
            session_title=one_line(data.get("session_title"), 60) or "",
            pane=pane if isinstance(pane, str) and len(pane) <= 64 else None,
            title=one_line(data.get("title"), 60) or "",
            kind=one_line(data.get("kind"), 20) or "",
            state=str(state),
            since=float(since) if isinstance(since, (int, float)) and not isinstance(since, bool) else 0.0,
            message=one_line(data.get("message")),
            outside=data.get("outside") is True,
            pid=pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
            machine=machine if isinstance(machine, str) and MACHINE_NAME_RE.fullmatch(machine) else None,
        )


def sort_rows(rows: list[AgentRow]) -> list[AgentRow]:
    """Blocked, done, working, idle, exited; within a state the one waiting longest first."""
    return sorted(rows, key=lambda row: (URGENCY.get(row.state, 99), row.since, row.session or "", row.pane or ""))


def rows_of(answer: dict[str, object]) -> list[AgentRow]:
    """The agent rows in a host's query answer (checked: another process wrote them)."""
    session, cwd, agents = answer.get("session"), answer.get("cwd"), answer.get("agents")
    if not answer.get("ok") or not isinstance(session, str) or not isinstance(cwd, str) or not isinstance(agents, list):
        return []
    rows = []
    for item in agents[:MAX_ROWS_PER_HOST]:
        row = AgentRow.from_dict(item, session=session, cwd=cwd)
        if row is not None:
            rows.append(row)
    return rows
