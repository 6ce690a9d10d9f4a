"""What a listing knows about one session: the Summary record, and how a log's contents become one."""

from __future__ import annotations

import collections
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from dsh.store.log import LogContents
from dsh.store.timefmt import iso_from_epoch

NO_WORKSPACE_REASON = "session has no recorded workspace"
NO_HEADER_REASON = "log has no readable session header"
UNTITLED = "untitled"
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
    "state",
)

# A session's state, as listings show it: its host runs with a client attached, or detached; or the
# session ended cleanly (closed), or its process died without closing it (crashed: kill -9, a reboot).
ATTACHED, DETACHED, CLOSED, CRASHED = "attached", "detached", "closed", "crashed"


def session_state(live_pid: int | None, closed: bool, attached: bool) -> str:
    if live_pid is not None:
        return ATTACHED if attached else DETACHED
    return CLOSED if closed else CRASHED


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
    state: str = CLOSED

    def to_json(self) -> dict[str, Any]:
        out = {key: getattr(self, key) for key in JSON_KEYS}
        out["preview"] = list(self.preview)
        return out


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
    # Whether a client was attached at the last attach/detach event (a session held in the
    # foreground by a dsh without a host, or just started, counts as attached).
    attached: bool = True


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


class Digester:
    """Folds a log's events into a Digest a batch at a time, so a reader never holds them all."""

    def __init__(self) -> None:
        self.explicit_title: str | None = None
        self.first_input: str | None = None
        self.inputs: collections.deque[str] = collections.deque(maxlen=PREVIEW_LINES)
        self.input_count = 0
        self.event_count = 0
        self.panes: set[str] = set()
        self.closed = False
        self.archived = False
        self.attached = True  # a session just made, or held by a dsh without a host, is attached
        self.last_at: str | None = None
        self.first_at: str | None = None

    def add(self, events: list[dict[str, Any]]) -> None:
        """Fold in the next events (each a dict with a str `type`). Unknown types count, nothing more."""
        self.event_count += len(events)
        for event in events:
            kind = event["type"]
            at = event.get("at")
            if isinstance(at, str):
                self.last_at = at
                self.first_at = self.first_at or at
            if kind == "input":
                text = _text(event.get("text"))
                if text is not None:
                    self.inputs.append(text)
                    self.input_count += 1
                    if self.first_input is None:
                        self.first_input = text
            elif kind == "title":
                self.explicit_title = _text(event.get("title")) or None
            elif kind == "pane_opened":
                self.panes.add(str(event.get("pane_id")))
            elif kind == "pane_exited":
                self.panes.discard(str(event.get("pane_id")))
            elif kind == "close":
                self.closed = True
            elif kind == "resume":
                self.closed = False
                self.attached = True
            elif kind == "attach":
                self.attached = True
            elif kind == "detach":
                self.attached = False
            elif kind == "archive":
                self.archived = bool(event.get("archived", True))

    def finish(self, session_id: str, path: Path, header: dict[str, Any] | None, mtime: float) -> Digest:
        cwd = header.get("cwd") if header is not None else None
        cwd = cwd if isinstance(cwd, str) and cwd else None
        created = header.get("created_at") if header is not None else None
        created_at = created if isinstance(created, str) else self.first_at or iso_from_epoch(mtime)
        return Digest(
            id=session_id,
            path=str(path),
            cwd=cwd,
            workspace=path.parent.name,
            title=self.explicit_title or self.first_input or UNTITLED,
            explicit_title=self.explicit_title,
            first_input=self.first_input,
            created_at=created_at,
            updated_at=self.last_at or created_at,
            event_count=self.event_count,
            input_count=self.input_count,
            pane_count=len(self.panes),
            closed=self.closed,
            archived=self.archived,
            unresumable_reason=unresumable_reason(header),
            preview=tuple(self.inputs),
            attached=self.attached,
        )


def digest(session_id: str, path: Path, contents: LogContents, mtime: float) -> Digest:
    """Fold a log's events into a Digest. Events of unknown types count but change nothing else."""
    folder = Digester()
    folder.add(contents.events)
    return folder.finish(session_id, path, contents.header, mtime)
