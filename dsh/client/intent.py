"""What the user asked this client for (start, attach, resume, continue, open an agent), apart from the words typed."""

from __future__ import annotations

from enum import StrEnum


class Action(StrEnum):
    START = "start"  # a new session in the launch directory (`dsh`, or `dsh --resume` with the picker open)
    ATTACH = "attach"  # a running session: the id given, or the newest detached one here; never restores
    RESUME = "resume"  # the session with this id: its running host, or a host restoring it
    CONTINUE = "continue"  # the newest session of the launch directory, as RESUME
    OPEN_AGENT = "open-agent"  # a new session whose first pane resumes an agent conversation (KIND:ID)


class Intent:
    """One run's request. `session_id` for ATTACH (None: the newest detached) and RESUME; `agent` the
    KIND:ID of OPEN_AGENT; `open_picker` opens /resume in a new session; `options` the `-o` flags, which
    every store and host this client opens is given. (A plain class: a dataclass costs the client ~1 ms.)"""

    __slots__ = ("action", "agent", "attach_mode", "open_picker", "options", "session_id")

    def __init__(
        self,
        action: Action,
        session_id: str | None = None,
        *,
        agent: str | None = None,
        open_picker: bool = False,
        options: list[str] | None = None,
        attach_mode: str = "share",
    ) -> None:
        self.action = action
        self.attach_mode = attach_mode  # share, takeover (-d) or readonly (-r): protocol.ATTACH_MODES
        self.session_id = session_id
        self.agent = agent
        self.open_picker = open_picker
        self.options = list(options or ())

    def __repr__(self) -> str:
        return (
            f"Intent({self.action.value!r}, {self.session_id!r}, agent={self.agent!r}, "
            f"open_picker={self.open_picker!r}, options={self.options!r}, attach_mode={self.attach_mode!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Intent):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by its fields
