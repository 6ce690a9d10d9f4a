"""What a listing knows about one session: the Summary record, and how a log's contents become one."""

from __future__ import annotations

import collections
import os
from pathlib import Path
from typing import Any, NamedTuple

from dsh.store.log import LogContents
from dsh.store.timefmt import iso_from_epoch
from dsh.store.titles import session_title, worth_a_title

NO_WORKSPACE_REASON = "session has no recorded workspace"
NO_HEADER_REASON = "log has no readable session header"
UNTITLED = "untitled"
PREVIEW_LINES = 5
# Lines typed kept per refresh of one log for the transcript search (a log is read in batches; a
# runaway one does not hold a million lines in memory).
TYPED_MAX = 20_000
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
    "branch",
    "agents",
)

# A session's state, as listings show it: its host runs with a client attached, or detached; or the
# session ended cleanly (closed), or its process died without closing it (crashed: kill -9, a reboot).
ATTACHED, DETACHED, CLOSED, CRASHED = "attached", "detached", "closed", "crashed"


# Events that change how a session is listed, not what was done in it: they move no session's age.
BOOKKEEPING = frozenset({"title", "archive"})


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
    branch: str | None = None
    agents: tuple[str, ...] = ()  # `kind:session_id` of the agents in its open panes, first learned first

    def to_json(self) -> dict[str, Any]:
        out = {key: getattr(self, key) for key in JSON_KEYS}
        out["preview"] = list(self.preview)
        out["agents"] = [agent_json(key) for key in self.agents]
        return out


def agent_json(key: str) -> dict[str, str]:
    kind, _, session_id = key.partition(":")
    return {"kind": kind, "session_id": session_id}


class Digest(NamedTuple):
    """What the index stores of a log: a Summary less its liveness, which is checked at query time.
    A NamedTuple, as Summary: a first build makes one per log, and a frozen dataclass of this many
    fields costs several times more to make."""

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
    branch: str | None = None
    agents: tuple[str, ...] = ()
    auto_title: str | None = None  # the first line typed worth a title
    # Lines typed, for the transcript search: (ordinal among all lines typed, text), the last TYPED_MAX.
    typed: tuple[tuple[int, str], ...] = ()


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
        self.panes: dict[str, str | None] = {}  # open pane -> its agent's `kind:id`
        self.learned: list[str] = []  # agent keys in the order they were learned
        self.branch: str | None = None
        self.auto_title: str | None = None
        self.typed: collections.deque[tuple[int, str]] = collections.deque(maxlen=TYPED_MAX)
        self.closed = False
        self.archived = False
        self.attached = True  # a session just made, or held by a dsh without a host, is attached
        self.last_at: str | None = None
        self.first_at: str | None = None

    def add(self, events: list[dict[str, Any]]) -> None:
        """Fold in the next events (each a dict with a str `type`). Unknown types count, nothing more."""
        # The hot loop of a first build (2,000,000 events at 100k sessions): locals, and typed lines first.
        self.event_count += len(events)
        inputs, typed = self.inputs.append, self.typed.append
        count = self.input_count
        for event in reversed(events):
            at = event.get("at")
            # A rename or an archive (often from another session's picker) is not work in the session:
            # its age, and its place in the listings, stay the session's own.
            if type(at) is str and event["type"] not in BOOKKEEPING:
                self.last_at = at
                break
        if self.first_at is None:
            for event in events:
                at = event.get("at")
                if type(at) is str:
                    self.first_at = at
                    break
        for event in events:
            kind = event["type"]
            if kind == "input":
                text = event.get("text")
                if type(text) is not str:
                    continue
                if len(text) > TEXT_MAX:
                    text = _clip(text)
                inputs(text)
                typed((count, text))
                count += 1
                if self.first_input is None:
                    self.first_input = text
                if self.auto_title is None and worth_a_title(text):
                    self.auto_title = text.strip()
            elif kind == "title":
                self.explicit_title = _text(event.get("title")) or None
            elif kind == "pane_opened":
                self.panes.setdefault(str(event.get("pane_id")), None)
            elif kind in ("pane_exited", "pane_closed"):
                # Panes count while open: one whose program ended, or that was closed, is gone.
                self.panes.pop(str(event.get("pane_id")), None)
            elif kind == "agent":
                self._agent(event)
            elif kind == "git":
                self.branch = _text(event.get("branch")) or None
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
        self.input_count = count

    def _agent(self, event: dict[str, Any]) -> None:
        """Which conversation a pane's agent holds now (a null id: none)."""
        pane_id = str(event.get("pane_id"))
        kind, session_id = event.get("kind"), event.get("session_id")
        if isinstance(kind, str) and isinstance(session_id, str) and kind and session_id:
            key = _clip(f"{kind}:{session_id}")
            self.panes[pane_id] = key
            if key not in self.learned:
                self.learned.append(key)
        elif pane_id in self.panes:
            self.panes[pane_id] = None

    def finish(
        self, session_id: str, path: str | os.PathLike[str], header: dict[str, Any] | None, mtime: float
    ) -> Digest:
        path = os.fspath(path)
        cwd = header.get("cwd") if header is not None else None
        cwd = cwd if isinstance(cwd, str) and cwd else None
        created = header.get("created_at") if header is not None else None
        created_at = created if isinstance(created, str) else self.first_at or iso_from_epoch(mtime)
        return Digest(
            id=session_id,
            path=path,
            cwd=cwd,
            workspace=os.path.basename(os.path.dirname(path)),
            title=session_title(self.explicit_title, None, self.auto_title),
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
            branch=self.branch,
            agents=tuple(key for key in self.learned if key in set(self.panes.values())),
            auto_title=self.auto_title,
            typed=tuple(self.typed),
        )


def digest(session_id: str, path: Path, contents: LogContents, mtime: float) -> Digest:
    """Fold a log's events into a Digest. Events of unknown types count but change nothing else."""
    folder = Digester()
    folder.add(contents.events)
    return folder.finish(session_id, path, contents.header, mtime)
