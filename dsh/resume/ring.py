"""The running sessions as tmux's session list: the previous and next one around the current one."""

from __future__ import annotations


def step_session(ids: list[str], current: str, step: int) -> str | None:
    """The session `step` places after `current` (-1: before) among `ids` in order, wrapping around; None
    when there is no other. Ids start with their creation time, so the order is the order they began."""
    ordered = sorted({*ids, current})
    if len(ordered) < 2:
        return None
    return ordered[(ordered.index(current) + step) % len(ordered)]
