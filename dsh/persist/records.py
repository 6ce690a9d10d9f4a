"""Snapshot records: validated, JSON-safe dataclasses for tabs, panes, agents and notifications."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dsh.persist.env import filter_env
from dsh.store.ids import ID_PATTERN
from dsh.text import sanitize

SNAPSHOT_VERSION = 1
MAX_NOTIFICATIONS = 200
MAX_LAYOUT_DEPTH = 64
LIFECYCLES = ("running", "waiting", "exited")  # waiting: restored, its process not started yet
# An agent pane's attention state as saved (dsh.attention.states; None: the pane has none).
AGENT_STATES = (None, "working", "blocked", "done", "idle", "exited")
# Titles and messages come from children (escape sequences); a runaway one must not bloat every write.
MAX_TEXT = 4096


class SnapshotError(Exception):
    """A snapshot (or a value meant for one) is malformed; the message says what and where."""


class SnapshotVersionError(SnapshotError):
    """The snapshot was written by a newer dsh whose format this one does not understand."""


def validate_id(value: object, what: str = "session id") -> str:
    """`value` if it is a safe id (`dsh.store.ids.ID_PATTERN`), else SnapshotError; never a path."""
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise SnapshotError(f"invalid {what} {sanitize(repr(value), 80)}: expected letters, digits, _ or -")
    return value


# --- field checks: each raises SnapshotError naming the field ---------------------------------------------


def _type_name(value: object) -> str:
    return type(value).__name__


def _str(value: object, where: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise SnapshotError(f"{where}: expected a string, got {_type_name(value)}")
    return value


def _int(value: object, where: str, *, optional: bool = False, minimum: int | None = None) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SnapshotError(f"{where}: expected an integer, got {_type_name(value)}")
    if minimum is not None and value < minimum:
        raise SnapshotError(f"{where}: expected at least {minimum}, got {value}")
    return value


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise SnapshotError(f"{where}: expected true or false, got {_type_name(value)}")
    return value


def _str_list(value: object, where: str, *, optional: bool = False) -> list[str] | None:
    if value is None and optional:
        return None
    if not isinstance(value, list):
        raise SnapshotError(f"{where}: expected a list of strings, got {_type_name(value)}")
    for i, item in enumerate(value):
        _str(item, f"{where}[{i}]")
    return list(value)


def _str_dict(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise SnapshotError(f"{where}: expected an object of strings, got {_type_name(value)}")
    for key, item in value.items():
        _str(key, f"{where} key")
        _str(item, f"{where}[{key!r}]")
    return dict(value)


def _json_value(value: object, where: str, depth: int = 0) -> None:
    if depth > MAX_LAYOUT_DEPTH:
        raise SnapshotError(f"{where}: nested deeper than {MAX_LAYOUT_DEPTH} levels")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise SnapshotError(f"{where}: not a finite number")
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _json_value(item, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise SnapshotError(f"{where}: object key {_type_name(key)} is not a string")
            _json_value(item, f"{where}.{key}", depth + 1)
        return
    raise SnapshotError(f"{where}: {_type_name(value)} is not JSON data")


def _object(data: object, where: str) -> Mapping[str, Any]:
    if not isinstance(data, dict):
        raise SnapshotError(f"{where}: expected an object, got {_type_name(data)}")
    return data


def _field(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise SnapshotError(f"{where}: missing field {key!r}")
    return data[key]


def _list_of(data: object, where: str) -> list[Any]:
    if not isinstance(data, list):
        raise SnapshotError(f"{where}: expected a list, got {_type_name(data)}")
    return data


# --- records ------------------------------------------------------------------------------------------------


@dataclass
class AgentInfo:
    """What an agent adapter learned about the agent in a pane.

    `program` is the absolute path of the CLI that ran (a resume runs the same one), `cwd` the
    directory the agent worked in (a resume runs there), `env` its store override (`CLAUDE_CONFIG_DIR`),
    `transcript` where its conversation is kept, and `conversation` whether that transcript held a
    conversation when last looked at (an id dsh gave the agent has none until a prompt is sent).
    """

    kind: str
    session_id: str | None = None
    resume_argv: list[str] | None = None
    model: str | None = None
    program: str | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    transcript: str | None = None
    conversation: bool | None = None

    def __post_init__(self) -> None:
        where = "agent"
        if not _str(self.kind, f"{where}.kind"):
            raise SnapshotError(f"{where}.kind: must not be empty")
        _str(self.session_id, f"{where}.session_id", optional=True)
        self.resume_argv = _str_list(self.resume_argv, f"{where}.resume_argv", optional=True)
        if self.resume_argv is not None and not self.resume_argv:
            raise SnapshotError(f"{where}.resume_argv: must not be an empty list")
        _str(self.model, f"{where}.model", optional=True)
        _str(self.program, f"{where}.program", optional=True)
        _str(self.cwd, f"{where}.cwd", optional=True)
        self.env = _str_dict(self.env if self.env is not None else {}, f"{where}.env")
        _str(self.transcript, f"{where}.transcript", optional=True)
        if self.conversation is not None:
            _bool(self.conversation, f"{where}.conversation")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "session_id": self.session_id,
            "resume_argv": list(self.resume_argv) if self.resume_argv is not None else None,
            "model": self.model,
            "program": self.program,
            "cwd": self.cwd,
            "env": dict(self.env),
            "transcript": self.transcript,
            "conversation": self.conversation,
        }

    @classmethod
    def from_dict(cls, data: object) -> AgentInfo:
        obj = _object(data, "agent")
        return cls(
            kind=_field(obj, "kind", "agent"),
            session_id=obj.get("session_id"),
            resume_argv=obj.get("resume_argv"),
            model=obj.get("model"),
            program=obj.get("program"),
            cwd=obj.get("cwd"),
            env=obj.get("env") or {},
            transcript=obj.get("transcript"),
            conversation=obj.get("conversation"),
        )


@dataclass
class PaneRecord:
    """One pane's structure and metadata; never its process, pid or fd. `env` is filtered on creation."""

    id: str
    tab: str
    title: str
    cwd: str
    argv: list[str]
    env: dict[str, str]
    rows: int
    cols: int
    agent: AgentInfo | None
    lifecycle: str
    exit_status: int | None
    attention: bool
    last_message: str | None
    created_at: str
    # Named with /name (None: the program's own title names it).
    name: str | None = None
    # The program the pane's shell ran in the foreground when saved (None: the shell itself, or an agent).
    command: list[str] | None = None
    # Its agent's attention state (working, blocked, done, idle, exited; None: no agent) and since when.
    agent_state: str | None = None
    state_since: str | None = None

    def __post_init__(self) -> None:
        validate_id(self.id, "pane id")
        where = f"pane {self.id}"
        _str(self.tab, f"{where}.tab")
        self.title = (_str(self.title, f"{where}.title") or "")[:MAX_TEXT]
        _str(self.cwd, f"{where}.cwd")
        if not os.path.isabs(self.cwd) or "\x00" in self.cwd:
            raise SnapshotError(f"{where}.cwd: expected an absolute path, got {sanitize(self.cwd, 80)!r}")
        self.argv = _str_list(self.argv, f"{where}.argv") or []
        # Filtering here, not in the caller, makes it impossible for a secret to reach to_dict().
        self.env = filter_env(_str_dict(self.env, f"{where}.env"))
        _int(self.rows, f"{where}.rows", minimum=1)
        _int(self.cols, f"{where}.cols", minimum=1)
        if self.agent is not None and not isinstance(self.agent, AgentInfo):
            raise SnapshotError(f"{where}.agent: expected agent info, got {_type_name(self.agent)}")
        if self.lifecycle not in LIFECYCLES:
            raise SnapshotError(
                f"{where}.lifecycle: expected one of {', '.join(LIFECYCLES)}, got {sanitize(repr(self.lifecycle), 40)}"
            )
        _int(self.exit_status, f"{where}.exit_status", optional=True)
        _bool(self.attention, f"{where}.attention")
        if (last_message := _str(self.last_message, f"{where}.last_message", optional=True)) is not None:
            self.last_message = last_message[:MAX_TEXT]
        _str(self.created_at, f"{where}.created_at")
        if (name := _str(self.name, f"{where}.name", optional=True)) is not None:
            self.name = name[:MAX_TEXT]
        if self.command is not None:
            self.command = _str_list(self.command, f"{where}.command") or None
        if _str(self.agent_state, f"{where}.agent_state", optional=True) not in AGENT_STATES:
            raise SnapshotError(f"{where}.agent_state: expected one of {', '.join(AGENT_STATES[1:])}")
        _str(self.state_since, f"{where}.state_since", optional=True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tab": self.tab,
            "title": self.title,
            "cwd": self.cwd,
            "argv": list(self.argv),
            "env": filter_env(self.env),
            "rows": self.rows,
            "cols": self.cols,
            "agent": self.agent.to_dict() if self.agent is not None else None,
            "lifecycle": self.lifecycle,
            "exit_status": self.exit_status,
            "attention": self.attention,
            "last_message": self.last_message,
            "created_at": self.created_at,
            "name": self.name,
            "command": list(self.command) if self.command else None,
            "agent_state": self.agent_state,
            "state_since": self.state_since,
        }

    @classmethod
    def from_dict(cls, data: object) -> PaneRecord:
        obj = _object(data, "pane")
        pane_id = validate_id(_field(obj, "id", "pane"), "pane id")
        where = f"pane {pane_id}"
        agent = obj.get("agent")
        return cls(
            id=pane_id,
            tab=_field(obj, "tab", where),
            title=_field(obj, "title", where),
            cwd=_field(obj, "cwd", where),
            argv=_field(obj, "argv", where),
            env=obj.get("env", {}),
            rows=_field(obj, "rows", where),
            cols=_field(obj, "cols", where),
            agent=AgentInfo.from_dict(agent) if agent is not None else None,
            lifecycle=_field(obj, "lifecycle", where),
            exit_status=obj.get("exit_status"),
            attention=obj.get("attention", False),
            last_message=obj.get("last_message"),
            created_at=_field(obj, "created_at", where),
            name=obj.get("name"),
            command=obj.get("command"),
            agent_state=obj.get("agent_state"),
            state_since=obj.get("state_since"),
        )


@dataclass
class TabRecord:
    """One tab: its title and the layout model's opaque JSON tree."""

    id: str
    title: str
    layout: dict[str, Any]
    active_pane: str | None = None
    zoomed: bool = False

    def __post_init__(self) -> None:
        where = f"tab {sanitize(repr(self.id), 40)}"
        _str(self.id, "tab.id")
        self.title = (_str(self.title, f"{where}.title") or "")[:MAX_TEXT]
        _object(self.layout, f"{where}.layout")
        _json_value(self.layout, f"{where}.layout")
        _str(self.active_pane, f"{where}.active_pane", optional=True)
        _bool(self.zoomed, f"{where}.zoomed")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "layout": self.layout,
            "active_pane": self.active_pane,
            "zoomed": self.zoomed,
        }

    @classmethod
    def from_dict(cls, data: object) -> TabRecord:
        obj = _object(data, "tab")
        where = "tab"
        return cls(
            id=_field(obj, "id", where),
            title=_field(obj, "title", where),
            layout=_field(obj, "layout", where),
            active_pane=obj.get("active_pane"),
            zoomed=obj.get("zoomed", False),
        )


@dataclass
class Notification:
    """A notification shown to the user; `read_at` stays None while unread."""

    at: str
    pane_id: str | None
    text: str
    read_at: str | None = None

    def __post_init__(self) -> None:
        _str(self.at, "notification.at")
        _str(self.pane_id, "notification.pane_id", optional=True)
        self.text = (_str(self.text, "notification.text") or "")[:MAX_TEXT]
        _str(self.read_at, "notification.read_at", optional=True)

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at, "pane_id": self.pane_id, "text": self.text, "read_at": self.read_at}

    @classmethod
    def from_dict(cls, data: object) -> Notification:
        obj = _object(data, "notification")
        return cls(
            at=_field(obj, "at", "notification"),
            pane_id=obj.get("pane_id"),
            text=_field(obj, "text", "notification"),
            read_at=obj.get("read_at"),
        )


@dataclass(kw_only=True)
class Snapshot:
    """Everything dsh persists about one session's window; processes are never part of it.

    `saved_at` left empty is filled with the current time; only the last 200 notifications are kept.
    """

    version: int = SNAPSHOT_VERSION
    saved_at: str = ""
    session_id: str
    tabs: list[TabRecord] = field(default_factory=list)
    active_tab: int = 0
    panes: list[PaneRecord] = field(default_factory=list)
    notifications: list[Notification] = field(default_factory=list)

    def __post_init__(self) -> None:
        validate_id(self.session_id)
        _int(self.version, "version", minimum=1)
        if self.version > SNAPSHOT_VERSION:
            raise SnapshotVersionError(version_message(self.version))
        _str(self.saved_at, "saved_at")
        if not self.saved_at:
            self.saved_at = now_iso()
        for name, kind in (("tabs", TabRecord), ("panes", PaneRecord), ("notifications", Notification)):
            items = _list_of(getattr(self, name), name)
            for item in items:
                if not isinstance(item, kind):
                    raise SnapshotError(f"{name}: expected {kind.__name__}, got {_type_name(item)}")
            setattr(self, name, list(items))
        _int(self.active_tab, "active_tab", minimum=0)
        if self.active_tab >= max(1, len(self.tabs)):
            raise SnapshotError(f"active_tab: {self.active_tab} is out of range for {len(self.tabs)} tab(s)")
        tab_ids = [tab.id for tab in self.tabs]
        if len(set(tab_ids)) != len(tab_ids):
            raise SnapshotError("tabs: two tabs share an id")
        pane_ids = [pane.id for pane in self.panes]
        if len(set(pane_ids)) != len(pane_ids):
            raise SnapshotError("panes: two panes share an id")
        known_tabs = set(tab_ids)
        for pane in self.panes:
            if pane.tab not in known_tabs:
                tab = sanitize(repr(pane.tab), 40)
                raise SnapshotError(f"pane {pane.id}.tab: no tab {tab} in this snapshot")
        self.notifications = self.notifications[-MAX_NOTIFICATIONS:]

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "saved_at": self.saved_at,
            "session_id": self.session_id,
            "tabs": [tab.to_dict() for tab in self.tabs],
            "active_tab": self.active_tab,
            "panes": [pane.to_dict() for pane in self.panes],
            "notifications": [note.to_dict() for note in self.notifications[-MAX_NOTIFICATIONS:]],
        }

    @classmethod
    def from_dict(cls, data: object) -> Snapshot:
        obj = _object(data, "snapshot")
        version = _int(_field(obj, "version", "snapshot"), "version", minimum=1)
        assert version is not None
        if version > SNAPSHOT_VERSION:
            raise SnapshotVersionError(version_message(version))
        return cls(
            version=version,
            saved_at=_str(_field(obj, "saved_at", "snapshot"), "saved_at") or "",
            session_id=validate_id(_field(obj, "session_id", "snapshot")),
            tabs=[TabRecord.from_dict(item) for item in _list_of(obj.get("tabs", []), "tabs")],
            active_tab=obj.get("active_tab", 0),
            panes=[PaneRecord.from_dict(item) for item in _list_of(obj.get("panes", []), "panes")],
            notifications=[
                Notification.from_dict(item)
                for item in _list_of(obj.get("notifications", []), "notifications")[-MAX_NOTIFICATIONS:]
            ],
        )


def version_message(version: int) -> str:
    return (
        f"snapshot format version {version} is newer than this dsh understands "
        f"(version {SNAPSHOT_VERSION}); upgrade dsh to restore it. Nothing was changed."
    )


def now_iso() -> str:
    """The current UTC time as an ISO 8601 string, second precision."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
