"""What another machine's dsh prints, read as untrusted: its version line, then its JSON listing one row
a line; each row checked, bounded and sanitized, a bad one left out and counted."""

from __future__ import annotations

import json
from typing import Any

from dsh.store.ids import is_valid_session_id
from dsh.text import sanitize

MAX_BYTES = 64 * 1024 * 1024  # a whole listing; past it the rest is not read
MAX_LINE = 1024 * 1024
MAX_TEXT = 4096
MAX_PREVIEW = 20
STATES = frozenset({"attached", "detached", "closed", "crashed"})
_TEXT_KEYS = ("title", "workspace", "workspace_label", "cwd", "first_input", "branch", "created_at", "updated_at")
_INT_KEYS = ("pane_count", "input_count", "event_count")


class RowReader:
    """Fed the lines of `dsh --version && dsh sessions --all --json` as they arrive: `version` once the
    first line is in, `take()` the rows read so far, `bad` how many were left out."""

    def __init__(self, machine: str, *, agents: bool = False, attention: bool = False) -> None:
        self.machine = machine
        self.agents = agents
        self.attention = attention
        self.version: str | None = None
        self.bad = 0
        self.size = 0
        self.too_big = False
        self._rows: list[dict[str, Any]] = []

    def feed(self, line: bytes | bytearray | str) -> None:
        if self.too_big:
            return
        self.size += len(line)
        if self.size > MAX_BYTES:
            self.too_big = True
            return
        text = line if isinstance(line, str) else bytes(line).decode("utf-8", "replace")
        text = text.strip()
        if self.version is None:
            self.version = sanitize(text, max_len=80)
            return
        if text in ("[", "]", "[]", "") or len(text) > MAX_LINE:
            self.bad += len(text) > MAX_LINE
            return
        try:
            obj = json.loads(text.removesuffix(","))
        except ValueError:
            self.bad += 1
            return
        if self.attention:
            row = attention_row(obj, self.machine)
        else:
            row = agent_row(obj, self.machine) if self.agents else session_row(obj, self.machine)
        if row is None:
            self.bad += 1
        else:
            self._rows.append(row)

    def take(self) -> list[dict[str, Any]]:
        rows, self._rows = self._rows, []
        return rows

    def version_number(self) -> str | None:
        """`0.5.0` of a first line `dsh 0.5.0`; None when the line was not dsh's."""
        if self.version is None:
            return None
        word, _, number = self.version.partition(" ")
        return number if word == "dsh" and number and len(number) <= 32 else None


def _text(value: object, limit: int = MAX_TEXT) -> str | None:
    return sanitize(value, max_len=limit) if isinstance(value, str) else None


def session_row(obj: object, machine: str) -> dict[str, Any] | None:
    """A remote session summary as the picker and the listing take it, or None when it is not one."""
    if not isinstance(obj, dict) or not is_valid_session_id(obj.get("id")):
        return None
    state = obj.get("state")
    if state not in STATES:
        return None
    row: dict[str, Any] = {"machine": machine, "id": obj["id"], "state": state}
    for key in _TEXT_KEYS:
        row[key] = _text(obj.get(key))
    for key in _INT_KEYS:
        value = obj.get(key)
        row[key] = value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 31 else 0
    pid = obj.get("live_pid")
    row["live_pid"] = pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None
    row["archived"] = obj.get("archived") is True
    preview = obj.get("preview")
    row["preview"] = (
        [_text(line, 500) for line in preview[:MAX_PREVIEW] if isinstance(line, str)]
        if isinstance(preview, list)
        else []
    )
    agents = obj.get("agents")
    row["agents"] = [
        {"kind": _text(a.get("kind"), 32), "session_id": _text(a.get("session_id"), 128)}
        for a in (agents[:16] if isinstance(agents, list) else [])
        if isinstance(a, dict) and isinstance(a.get("kind"), str) and isinstance(a.get("session_id"), str)
    ]
    row["title"] = row["title"] or row["id"]
    return row


def agent_row(obj: object, machine: str) -> dict[str, Any] | None:
    """A remote agent conversation (`dsh sessions --agents --json`), or None when it is not one."""
    if not isinstance(obj, dict):
        return None
    kind, ident = obj.get("kind"), obj.get("id")
    if not isinstance(kind, str) or kind not in ("claude", "codex", "opencode"):
        return None
    if not isinstance(ident, str) or not 0 < len(ident) <= 128 or not all(c.isalnum() or c in "-_." for c in ident):
        return None
    row: dict[str, Any] = {"machine": machine, "kind": kind, "id": ident}
    for key in ("cwd", "title", "first_prompt", "branch", "created_at", "updated_at"):
        row[key] = _text(obj.get(key))
    count = obj.get("message_count")
    row["message_count"] = count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else 0
    row["title"] = row["title"] or row["first_prompt"] or ident
    return row


def attention_row(obj: object, machine: str) -> dict[str, Any] | None:
    """An agent pane of a live session there, with its state (`dsh agents --all --json`), or None
    when it is not one: checked as a local host's answer is, and its session id as an id."""
    from dsh.attention.rows import AgentRow

    row = AgentRow.from_dict(obj)
    if row is None or (row.session is not None and not is_valid_session_id(row.session)):
        return None
    if row.session is None and not row.outside:
        return None
    row.machine = machine
    return row.to_dict()
