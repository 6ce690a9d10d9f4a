"""A session's title, the same everywhere (status line, picker, `dsh sessions`): its rename, else its
agent conversation's title, else the first line typed that says what the session was for."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from dsh.values import Value

UNTITLED = "untitled"
# Lines that say nothing about the work: leaving, and dsh's own slash commands (`/resume`, `/agent claude`).
_NOT_TITLES = frozenset({"exit", "logout", "quit", "q", "clear", "ls", "cd", "pwd"})


def worth_a_title(line: str) -> bool:
    """Whether a typed line may name a session: not empty, not a slash command, not `exit` and the like."""
    text = line.strip()
    return bool(text) and not text.startswith("/") and text not in _NOT_TITLES


def session_title(explicit: str | None, agent_title: str | None, typed: str | None) -> str:
    """`/rename` first; else the agent conversation's title (its rename, summary or first prompt); else
    the first line typed worth a title; else `untitled`."""
    return explicit or agent_title or typed or UNTITLED


class TitleState(Value, fields=("explicit", "typed", "learned")):
    """What a live session's title comes from, kept as it happens, by the same rule the index uses."""

    explicit: str | None
    typed: str | None
    learned: list[str]  # `kind:id` of agents, in the order they were learned

    def __init__(self, explicit: str | None = None, typed: str | None = None, learned: list[str] | None = None) -> None:
        self.explicit = explicit
        self.typed = typed
        self.learned = [] if learned is None else learned

    def add_input(self, text: str) -> None:
        if self.typed is None and worth_a_title(text):
            self.typed = text.strip()

    def add_agent(self, key: str) -> None:
        if key not in self.learned:
            self.learned.append(key)

    def agent_key(self, open_keys: Collection[str]) -> str | None:
        """The session's agent: the first learned of those still in an open pane."""
        return next((key for key in self.learned if key in open_keys), None)

    def title(self, open_keys: Collection[str], agent_titles: Mapping[str, str]) -> str:
        key = self.agent_key(open_keys)
        return session_title(self.explicit, agent_titles.get(key) if key else None, self.typed)

    def add_events(self, events: Iterable[Mapping[str, object]]) -> None:
        """Fold in a log's events (a batch at a time, as dsh.store.log.scan_log hands them over)."""
        state = self
        for event in events:
            kind = event.get("type")
            if kind == "input" and isinstance(text := event.get("text"), str):
                state.add_input(text)
            elif kind == "title" and isinstance(title := event.get("title"), str):
                state.explicit = title or None
            elif kind == "agent" and isinstance(event.get("kind"), str) and isinstance(event.get("session_id"), str):
                state.add_agent(f"{event['kind']}:{event['session_id']}")
