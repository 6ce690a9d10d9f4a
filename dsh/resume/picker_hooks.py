"""What a front end needs to list agent conversations: the stores config switches on, and a refresher
for the picker's worker that keeps the stores' warnings for the picker's note line."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from dsh.agents.conversations.refresh import Source, sources
from dsh.resume.loading import AgentRefresher, agent_refresher

CONFIG_KEY = "resume.agents"


def agent_switches(config: Any) -> Mapping[str, object]:
    table = config.get(CONFIG_KEY, {}) if config is not None else {}
    return table if isinstance(table, dict) else {}


def agent_sources(config: Any, env: Mapping[str, str] | None = None) -> list[Source]:
    """The agent stores to list, as `[resume.agents]` switches them (every one on by default)."""
    return sources(agent_switches(config), os.environ if env is None else env)


def agent_refresher_for(config: Any, cwd: str) -> tuple[AgentRefresher | None, list[str]]:
    """(a refresher for `load_rest_and_refresh`, the list its warnings land in); (None, []) with no source."""
    stores = agent_sources(config)
    if not stores:
        return None, []
    notes: list[str] = []
    inner = agent_refresher(stores, cwds=[cwd])

    def run(index: Any) -> tuple[bool, list[str]]:
        changed, warnings = inner(index)
        notes[:] = warnings
        return changed, []

    return run, notes


def refresh_agent_stores(config: object, store: object, cwd: str) -> list[str]:
    """Read what changed in the agents' stores (as config switches them) into the index; its warnings."""
    refresher, notes = agent_refresher_for(config, cwd)
    if refresher is not None:
        refresher(store.index)  # type: ignore[attr-defined]
    return notes
