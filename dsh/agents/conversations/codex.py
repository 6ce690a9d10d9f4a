"""Reading Codex rollouts (`sessions/YYYY/MM/DD/rollout-<start>-<id>.jsonl`) a chunk at a time, and the
names `/rename` keeps in `session_index.jsonl`.

As codex-cli 0.171.0 writes them: every line is `{"timestamp", "type", "payload"}`; the first is
`session_meta` {id, timestamp, cwd, git{branch}?, ...}; prompts are `response_item` messages with role
`user` (after `<environment_context>` and similar ones codex writes itself), replies role `assistant`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from dsh.agents.conversations.model import Fold, one_line
from dsh.safefile import open_foreign

_TIMESTAMP = re.compile(rb'^\{"timestamp":"([0-9][0-9T:.+\-Z]{9,40})"')
_MESSAGE = b'"type":"message"'
_INDEX_MAX = 16 * 1024 * 1024


def _load(line: bytes) -> dict[str, object] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def read_meta(fold: Fold, first: bytes) -> bool:
    """Take id, cwd, start and branch from a rollout's first line; False when it is no session_meta of it."""
    record = _load(first)
    payload = record.get("payload") if record else None
    if not record or record.get("type") != "session_meta" or not isinstance(payload, dict):
        return False
    if payload.get("id") != fold.id:
        return False
    cwd, started = payload.get("cwd"), payload.get("timestamp")
    fold.cwd = cwd if isinstance(cwd, str) and cwd.startswith("/") else None
    fold.created_at = started if isinstance(started, str) else None
    git = payload.get("git")
    branch = git.get("branch") if isinstance(git, dict) else None
    fold.branch = branch if isinstance(branch, str) and branch else None
    return True


def read_lines(fold: Fold, lines: Iterable[bytes]) -> list[str]:
    """Fold rollout lines (after the first) into `fold`; the prompts met."""
    prompts: list[str] = []
    for line in lines:
        stamp = _TIMESTAMP.match(line)
        if stamp is not None:
            fold.updated_at = stamp[1].decode("ascii")
        if _MESSAGE not in line or b'"type":"response_item"' not in line:
            continue
        if b'"role":"assistant"' in line:
            fold.message_count += 1
            continue
        if b'"role":"user"' not in line:
            continue
        record = _load(line)
        payload = record.get("payload") if record else None
        content = payload.get("content") if isinstance(payload, dict) else None
        if not isinstance(content, list):
            continue
        text = "\n".join([t for c in content if isinstance(c, dict) and isinstance(t := c.get("text"), str)])
        if not text or text.lstrip().startswith("<"):
            continue  # context codex adds itself: environment, instructions, an aborted turn
        fold.message_count += 1
        kept = fold.prompt(text)
        if kept is not None:
            prompts.append(kept)
    return prompts


def thread_names(home: Path) -> dict[str, str]:
    """id -> the latest name `/rename` (or codex itself) gave a thread, from `session_index.jsonl`."""
    names: dict[str, str] = {}
    path = home / "session_index.jsonl"
    try:
        with open_foreign(path) as handle:
            data = handle.read(_INDEX_MAX + 1)
    except OSError:
        return names
    if len(data) > _INDEX_MAX:
        return names
    for line in data.splitlines():
        record = _load(line)
        if record is None:
            continue
        thread, name = record.get("id"), record.get("thread_name")
        if isinstance(thread, str) and isinstance(name, str) and name.strip():
            names[thread] = one_line(name, 200)
    return names
