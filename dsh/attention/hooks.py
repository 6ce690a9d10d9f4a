"""Agents' hook payloads to attention reports: Claude Code's and Codex's hook events (JSON on stdin),
Codex's `notify` (one JSON argument) and dsh's opencode plugin. Every payload is untrusted: bounded,
checked field by field, its text made one safe line; anything else is None, never an exception.

Which CLI version each mapping was checked against is in dsh.attention.versions.
"""

from __future__ import annotations

import json

from dsh.attention.model import one_line
from dsh.attention.states import BLOCKED, DONE, EXITED, IDLE, WORKING
from dsh.values import Value

# A hook's stdin read past this is cut: a transcript-sized payload is not a report.
PAYLOAD_MAX = 1 << 20
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
KINDS = ("claude", "codex", "opencode")


class HookEvent(Value, fields=("state", "message", "subagent", "session_id", "transcript", "event")):
    """What one hook call says: a state (None: it only names the conversation), its line, whether a
    subagent said it, the agent's session id and transcript path when given, and the event's name."""

    state: str | None
    message: str | None
    subagent: bool
    session_id: str | None
    transcript: str | None
    event: str

    def __init__(
        self,
        state: str | None,
        message: str | None = None,
        *,
        subagent: bool = False,
        session_id: str | None = None,
        transcript: str | None = None,
        event: str = "",
    ) -> None:
        self.state = state
        self.message = message
        self.subagent = subagent
        self.session_id = session_id
        self.transcript = transcript
        self.event = event


def parse_payload(raw: bytes | str) -> dict[str, object] | None:
    """A hook's JSON object, or None (too big, not JSON, not an object)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    if len(raw) > PAYLOAD_MAX:
        return None
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def event_for(kind: str, payload: dict[str, object]) -> HookEvent | None:
    """The report one agent's hook payload makes, or None for an event that says nothing of its state."""
    if kind in ("claude", "codex"):
        if kind == "codex" and payload.get("type") == "agent-turn-complete":
            return codex_notify(payload)
        return claude_style(payload)
    if kind == "opencode":
        return opencode_event(payload)
    return None


def _text(payload: dict[str, object], name: str) -> str | None:
    return one_line(payload.get(name))


def _id(value: object) -> str | None:
    if isinstance(value, str) and 0 < len(value) <= 128 and set(value) <= _ID_CHARS:
        return value
    return None


def _path(value: object) -> str | None:
    if isinstance(value, str) and value.startswith("/") and len(value) < 4096 and "\x00" not in value:
        return value
    return None


def claude_style(payload: dict[str, object]) -> HookEvent | None:
    """Claude Code's hook events (Codex's hooks take the same shape)."""
    event = payload.get("hook_event_name")
    if not isinstance(event, str):
        return None
    found = _claude_state(event, payload)
    if found is None:
        return None
    state, message = found
    return HookEvent(
        state,
        message,
        subagent=isinstance(payload.get("agent_id"), str) and bool(payload.get("agent_id")),
        session_id=_id(payload.get("session_id")),
        transcript=_path(payload.get("transcript_path")),
        event=event,
    )


def _claude_state(event: str, payload: dict[str, object]) -> tuple[str | None, str | None] | None:
    if event == "UserPromptSubmit":
        return WORKING, _text(payload, "prompt")
    if event == "PreToolUse":
        if payload.get("tool_name") == "AskUserQuestion":
            return BLOCKED, _question(payload.get("tool_input")) or "a question for you"
        return WORKING, None
    if event == "PostToolUse":
        return WORKING, None
    if event == "PermissionRequest":
        return BLOCKED, _permission(payload)
    if event == "Notification":
        kind = payload.get("notification_type")
        if kind in ("permission_prompt", "elicitation_dialog"):
            return BLOCKED, _text(payload, "message") or "waiting for you"
        if kind == "idle_prompt":
            return IDLE, None
        return None
    if event == "Stop":
        if payload.get("stop_hook_active") is True:
            return None  # a Stop hook made it go on: the turn has not ended
        return DONE, _text(payload, "last_assistant_message")
    if event == "SessionStart":
        return (None if payload.get("source") == "compact" else IDLE), None
    if event == "SessionEnd":
        return (None if payload.get("reason") == "clear" else EXITED), None
    return None


def _permission(payload: dict[str, object]) -> str:
    tool = one_line(payload.get("tool_name"), 40) or "a tool"
    tool_input = payload.get("tool_input")
    detail = None
    if isinstance(tool_input, dict):
        for key in ("command", "file_path", "url", "pattern", "path", "description"):
            detail = one_line(tool_input.get(key), 160)
            if detail:
                break
    return one_line(f"allow {tool}: {detail}" if detail else f"allow {tool}?") or "allow a tool?"


def _question(tool_input: object) -> str | None:
    if not isinstance(tool_input, dict):
        return None
    questions = tool_input.get("questions")
    if isinstance(questions, list) and questions and isinstance(questions[0], dict):
        return one_line(questions[0].get("question"))
    return one_line(tool_input.get("question"))


def codex_notify(payload: dict[str, object]) -> HookEvent | None:
    """Codex's `notify` program's argument: only `agent-turn-complete` exists."""
    if payload.get("type") != "agent-turn-complete":
        return None
    return HookEvent(
        DONE,
        _text(payload, "last-assistant-message"),
        session_id=_id(payload.get("thread-id")),
        event="agent-turn-complete",
    )


def opencode_event(payload: dict[str, object]) -> HookEvent | None:
    """An event dsh's opencode plugin passes on: {type, properties} as opencode's bus gives it."""
    event = payload.get("type")
    props = payload.get("properties")
    props = props if isinstance(props, dict) else {}
    session_id = _id(props.get("sessionID"))
    if event == "session.status":
        status = props.get("status")
        kind = status.get("type") if isinstance(status, dict) else status
        state = {"busy": WORKING, "retry": WORKING, "idle": None}.get(kind) if isinstance(kind, str) else None
        return HookEvent(state, None, session_id=session_id, event="session.status") if state else None
    if event == "session.idle":
        return HookEvent(DONE, _text(payload, "message"), session_id=session_id, event="session.idle")
    if event == "permission.asked":
        title = one_line(props.get("title")) or one_line(props.get("permission")) or "a permission"
        return HookEvent(BLOCKED, one_line(f"allow {title}?"), session_id=session_id, event="permission.asked")
    if event == "question.asked":
        question = _question(props) or "a question for you"
        return HookEvent(BLOCKED, question, session_id=session_id, event="question.asked")
    if event in ("permission.replied", "question.replied"):
        return HookEvent(WORKING, None, session_id=session_id, event=str(event))
    return None
