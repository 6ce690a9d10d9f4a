"""Every known agent adapter, looked up by argv or by name."""

from __future__ import annotations

from collections.abc import Sequence

from dsh.agents.base import AgentAdapter
from dsh.agents.claude import ClaudeAdapter
from dsh.agents.codex import CodexAdapter
from dsh.agents.cursor import CursorAdapter
from dsh.agents.opencode import OpencodeAdapter
from dsh.persist.records import AgentInfo

ADAPTERS: tuple[AgentAdapter, ...] = (ClaudeAdapter(), CodexAdapter(), OpencodeAdapter(), CursorAdapter())
# Names for `/agent NAME`: each is both the adapter's kind and the binary it runs.
AGENT_NAMES: tuple[str, ...] = tuple(adapter.binary for adapter in ADAPTERS)


def adapter_for_argv(argv: Sequence[str]) -> AgentAdapter | None:
    """The adapter whose CLI `argv` runs, or None for anything else (a shell, a test runner...)."""
    return next((adapter for adapter in ADAPTERS if adapter.recognize(argv)), None)


def adapter_by_kind(kind: str) -> AgentAdapter | None:
    """The adapter of a saved `agent.kind` (or of a binary name typed after `/agent`)."""
    return next((adapter for adapter in ADAPTERS if kind in (adapter.kind, adapter.binary)), None)


def resume_argv_for(agent: AgentInfo | None) -> list[str] | None:
    """The resume argv to spawn for a saved agent, rebuilt by its adapter from kind and session id.

    A snapshot is untrusted input: its stored `resume_argv` is never run as such. None when the kind
    is unknown, the id is not in the agent's format, or the session is known to hold no conversation.
    """
    from dsh.agents.resumable import resume_argv

    return resume_argv(agent)
