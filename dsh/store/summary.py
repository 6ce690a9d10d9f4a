"""What a listing knows about one session: the Summary record, and how a log's contents become one."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from dsh.store.log import LogContents
from dsh.store.timefmt import iso_from_epoch
from dsh.store.titles import session_title, worth_a_title

NO_WORKSPACE_REASON = "session has no recorded workspace"
NO_HEADER_REASON = "log has no readable session header"
PREVIEW_LINES = 5
# Titles and inputs are kept this long in the index; a 5 MB paste is not a title.
TEXT_MAX = 500

# The keys of Summary.to_json(), in order: a stable contract documented in dsh(1).
JSON_KEYS = (
    "id",
    "path",
    "cwd",
    "workspace",
    "workspace_label",
    "title",
    "explicit_title",
    "first_input",
    "created_at",
    "updated_at",
    "event_count",
    "input_count",
    "pane_count",
    "live_pid",
    "archived",
    "unresumable_reason",
    "preview",
    "branch",
    "state",
    "agents",
)
# A session's state in listings: open in a dsh now, closed by its dsh, or left without a close (killed).
LIVE, CLOSED, CRASHED = "live", "closed", "crashed"


class Summary(NamedTuple):
    """One session as a listing shows it. Immutable; a NamedTuple because listings build 100k of them
    and a frozen dataclass costs several times more per row."""

    id: str
    path: str
    cwd: str | None
    workspace: str
    workspace_label: str
    title: str
    explicit_title: str | None
    first_input: str | None
    created_at: str
    updated_at: str
    event_count: int
    input_count: int
    pane_count: int
    live_pid: int | None
    archived: bool
    unresumable_reason: str | None
    preview: tuple[str, ...]
    branch: str | None = None
    closed: bool = False
    agents: tuple[str, ...] = ()  # `kind:session_id` of the agents in its open panes, first learned first

    @property
    def state(self) -> str:
        if self.live_pid is not None:
            return LIVE
        return CLOSED if self.closed else CRASHED

    def to_json(self) -> dict[str, Any]:
        out = {key: getattr(self, key) for key in JSON_KEYS}
        out["preview"] = list(self.preview)
        out["agents"] = [agent_json(key) for key in self.agents]
        return out


def agent_json(key: str) -> dict[str, str]:
    kind, _, session_id = key.partition(":")
    return {"kind": kind, "session_id": session_id}


@dataclass(frozen=True)
class Digest:
    """What the index stores of a log: a Summary less its liveness, which is checked at query time."""

    id: str
    path: str
    cwd: str | None
    workspace: str
    title: str
    explicit_title: str | None
    first_input: str | None
    created_at: str
    updated_at: str
    event_count: int
    input_count: int
    pane_count: int
    closed: bool
    archived: bool
    unresumable_reason: str | None
    preview: tuple[str, ...]
    branch: str | None = None
    agents: tuple[str, ...] = ()
    auto_title: str | None = None  # the first line typed worth a title
    inputs: tuple[str, ...] = ()  # every line typed, for the transcript search


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_MAX else text[: TEXT_MAX - 1] + "…"


def _text(value: object) -> str | None:
    return _clip(value) if isinstance(value, str) else None


def unresumable_reason(header: dict[str, Any] | None) -> str | None:
    if header is None:
        return NO_HEADER_REASON
    cwd = header.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return NO_WORKSPACE_REASON
    if not os.path.isabs(cwd):
        return f"recorded workspace {_clip(cwd)!r} is not an absolute path"
    return None


def digest(session_id: str, path: Path, contents: LogContents, mtime: float) -> Digest:
    """Fold a log's events into a Digest. Events of unknown types count but change nothing else.

    Panes count while open: `pane_opened` adds one, `pane_exited` (its program ended) and `pane_closed`
    take it away. An `agent` event says which conversation a pane's agent holds (a null id: none now).
    """
    header = contents.header
    cwd = header.get("cwd") if header is not None else None
    cwd = cwd if isinstance(cwd, str) and cwd else None
    explicit_title: str | None = None
    first_input: str | None = None
    auto_title: str | None = None
    inputs: list[str] = []
    panes: dict[str, str | None] = {}  # open pane -> its agent's `kind:id`
    learned: list[str] = []  # agent keys in the order they were learned
    branch: str | None = None
    closed = False
    archived = False
    last_at: str | None = None
    first_at: str | None = None
    for event in contents.events:
        kind = event["type"]
        at = event.get("at")
        if isinstance(at, str):
            last_at = at
            first_at = first_at or at
        if kind == "input":
            text = _text(event.get("text"))
            if text is not None:
                inputs.append(text)
                if first_input is None:
                    first_input = text
                if auto_title is None and worth_a_title(text):
                    auto_title = text.strip()
        elif kind == "title":
            explicit_title = _text(event.get("title")) or None
        elif kind == "pane_opened":
            panes.setdefault(str(event.get("pane_id")), None)
        elif kind in ("pane_exited", "pane_closed"):
            panes.pop(str(event.get("pane_id")), None)
        elif kind == "agent":
            pane_id = str(event.get("pane_id"))
            agent_kind, agent_id = event.get("kind"), event.get("session_id")
            if isinstance(agent_kind, str) and isinstance(agent_id, str) and agent_kind and agent_id:
                key = _clip(f"{agent_kind}:{agent_id}")
                panes[pane_id] = key
                if key not in learned:
                    learned.append(key)
            elif pane_id in panes:
                panes[pane_id] = None
        elif kind == "git":
            branch = _text(event.get("branch")) or None
        elif kind == "close":
            closed = True
        elif kind == "resume":
            closed = False
        elif kind == "archive":
            archived = bool(event.get("archived", True))
    created = header.get("created_at") if header is not None else None
    created_at = created if isinstance(created, str) else first_at or iso_from_epoch(mtime)
    open_agents = {key for key in panes.values() if key is not None}
    return Digest(
        id=session_id,
        path=str(path),
        cwd=cwd,
        workspace=path.parent.name,
        title=session_title(explicit_title, None, auto_title),
        explicit_title=explicit_title,
        first_input=first_input,
        created_at=created_at,
        updated_at=last_at or created_at,
        event_count=len(contents.events),
        input_count=len(inputs),
        pane_count=len(panes),
        closed=closed,
        archived=archived,
        unresumable_reason=unresumable_reason(header),
        preview=tuple(inputs[-PREVIEW_LINES:]),
        branch=branch,
        agents=tuple(key for key in learned if key in open_agents),
        auto_title=auto_title,
        inputs=tuple(inputs),
    )
