"""Reading Claude Code transcripts (`projects/<encoded cwd>/<session id>.jsonl`) a chunk at a time.

As Claude Code 2.1.197 writes them: opening `mode` / `permission-mode` records; `user` and `assistant`
records with {cwd, sessionId, gitBranch, timestamp, message{role, content}}; a prompt the user typed
carries `promptSource` and `origin: {kind: human}`, while commands (`<command-name>/clear…`), caveats and
reminders are `<…>` text or `isMeta`; `/rename` appends `{"type": "custom-title", "customTitle"}`;
older versions and auto-titles write `{"type": "summary", "summary"}` / `{"type": "ai-title", "aiTitle"}`.
Transcripts hold megabytes of tool output, so only the lines that can matter are parsed as JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from dsh.agents.conversations.model import Fold, one_line

_TIMESTAMP = re.compile(rb'"timestamp":"([0-9][0-9T:.+\-Z]{9,40})"')
_BRANCH = re.compile(rb'"gitBranch":"([^"\\]{1,200})"')
_USER = b'"type":"user"'
_ASSISTANT = b'"type":"assistant"'
_TITLES = (b'{"type":"custom-title"', b'{"type":"summary"', b'{"type":"ai-title"')
# A user line this long is a tool result or a paste; a typed prompt is parsed whatever its size only
# when it says it was typed.
_PARSE_MAX = 64 * 1024


def _text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            text
            for item in content
            if isinstance(item, dict) and item.get("type") == "text" and isinstance(text := item.get("text"), str)
        ]
        if texts and len(texts) == len(content):  # every item a text
            return "\n".join(texts)
    return None


def _branch(raw: bytes) -> str | None:
    text = raw.decode("utf-8", "replace")
    return None if text == "HEAD" else text  # what Claude records outside a branch (and outside git)


def read_lines(fold: Fold, lines: Iterable[bytes]) -> tuple[list[str], bool]:
    """Fold complete transcript lines into `fold`; (the prompts met, whether any line looked like Claude's)."""
    prompts: list[str] = []
    recognized = False
    for line in lines:
        if not line.startswith(b"{"):
            continue
        if line.startswith(_TITLES):
            recognized = True
            _title(fold, line)
            continue
        is_user = _USER in line
        if not is_user and _ASSISTANT not in line:
            recognized = recognized or b'"sessionId"' in line
            continue
        recognized = True
        if b'"isSidechain":true' in line:
            continue  # a subagent's conversation inside this one
        stamp = _TIMESTAMP.search(line)
        if stamp is not None:
            when = stamp[1].decode("ascii")
            fold.created_at = fold.created_at or when
            fold.updated_at = when
        branch = _BRANCH.search(line)
        if branch is not None:
            fold.branch = _branch(branch[1])
        if fold.cwd is None and b'"cwd":' in line:
            fold.cwd = _cwd(line)
        if b'"isMeta":true' in line:
            continue
        if not is_user:
            fold.message_count += 1
            continue
        # Messages are the prompts typed and the replies: not tool results, commands or their output.
        if (b'"promptSource"' in line or len(line) <= _PARSE_MAX) and b'"tool_result"' not in line:
            prompt = _prompt(line)
            kept = fold.prompt(prompt) if prompt is not None else None
            if kept is not None:
                fold.message_count += 1
                prompts.append(kept)
    return prompts, recognized


def _load(line: bytes) -> dict[str, object] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _cwd(line: bytes) -> str | None:
    record = _load(line)
    cwd = record.get("cwd") if record else None
    return cwd if isinstance(cwd, str) and cwd.startswith("/") else None


def _prompt(line: bytes) -> str | None:
    record = _load(line)
    if record is None or record.get("type") != "user" or record.get("isMeta"):
        return None
    message = record.get("message")
    text = _text(message.get("content")) if isinstance(message, dict) else None
    if text is None or text.lstrip().startswith("<"):
        return None  # a command, its output, a caveat or a reminder: not something the user asked
    return text


def _title(fold: Fold, line: bytes) -> None:
    record = _load(line)
    if record is None:
        return
    kind = record.get("type")
    if kind == "custom-title" and isinstance(title := record.get("customTitle"), str):
        fold.custom_title = one_line(title, 200) or None
    elif kind == "summary" and isinstance(title := record.get("summary"), str):
        fold.summary = one_line(title, 200) or None
    elif kind == "ai-title" and isinstance(title := record.get("aiTitle"), str):
        fold.summary = one_line(title, 200) or None
