"""A session's title, the same everywhere (status line, picker, `dsh sessions`): its rename, else its
agent conversation's title, else the first line typed that says what the session was for."""

from __future__ import annotations

UNTITLED = "untitled"
# Lines that say nothing about the work: leaving, and dsh's own slash commands (`/resume`, `/agent claude`).
_NOT_TITLES = frozenset({"exit", "logout", "quit", "q", "clear", "ls", "cd", "pwd"})


def worth_a_title(line: str) -> bool:
    """Whether a typed line may name a session: not empty, not a slash command, not `exit` and the like."""
    text = line.strip()
    return bool(text) and not text.startswith("/") and text not in _NOT_TITLES


def first_titled(lines: object) -> str | None:
    """The first line of `lines` worth a title, or None."""
    for line in lines:  # type: ignore[attr-defined]
        if isinstance(line, str) and worth_a_title(line):
            return line.strip()
    return None


def session_title(explicit: str | None, agent_title: str | None, typed: str | None) -> str:
    """`/rename` first; else the agent conversation's title (its rename, summary or first prompt); else
    the first line typed worth a title; else `untitled`."""
    return explicit or agent_title or typed or UNTITLED
