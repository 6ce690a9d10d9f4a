"""The five states of an agent pane, their order of urgency, and how each is drawn and counted."""

from __future__ import annotations

WORKING = "working"
BLOCKED = "blocked"  # it needs you: a permission, a question
DONE = "done"  # the turn ended and nobody has looked yet
IDLE = "idle"  # seen, or waiting for a first prompt
EXITED = "exited"
STATES = (BLOCKED, DONE, WORKING, IDLE, EXITED)

# Most urgent first: a tab shows its most urgent pane, /agents lists in this order.
URGENCY = {state: rank for rank, state in enumerate(STATES)}

# One narrow character each (never an emoji: those are two columns in some terminals and one in others).
GLYPHS = {BLOCKED: "!", DONE: "✓", WORKING: "◐", IDLE: "○", EXITED: "×"}
LABELS = {BLOCKED: "needs you", DONE: "done", WORKING: "working", IDLE: "idle", EXITED: "exited"}


def valid_state(state: object) -> bool:
    return isinstance(state, str) and state in URGENCY


def most_urgent(states: list[str | None]) -> str | None:
    """The state a tab (or a session) rolls up to: blocked > done > working > idle > exited."""
    known = [state for state in states if state in URGENCY]
    return min(known, key=URGENCY.__getitem__) if known else None


def counts_line(states: list[str | None]) -> str:
    """ "2 need you · 1 done · 3 working" (idle and exited are not counted); empty when nothing is."""
    parts = []
    for state, label in ((BLOCKED, "need you"), (DONE, "done"), (WORKING, "working")):
        count = sum(1 for s in states if s == state)
        if count:
            parts.append(f"{count} {'needs you' if state == BLOCKED and count == 1 else label}")
    return " · ".join(parts)


def session_line(states: list[str]) -> str:
    """A session's agents in a listing's row, every state counted, most urgent first:
    "1 needs you · 2 working · 1 idle"; empty when it has none."""
    parts = []
    for state in STATES:
        count = states.count(state)
        if count:
            label = "need you" if state == BLOCKED and count > 1 else LABELS[state]
            parts.append(f"{count} {label}")
    return " · ".join(parts)


def age(seconds: float) -> str:
    """A state's age as a person says it: 12s, 3m, 2h, 4d (a clock set back reads as 0s)."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"
