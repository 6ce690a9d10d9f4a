"""What a front end needs to list agent conversations: the stores config switches on, and a refresher
for the picker's worker that keeps the stores' warnings for the picker's note line."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dsh.agents.conversations.refresh import Source, sources

if TYPE_CHECKING:
    from collections.abc import Collection

    from dsh.config import Config
    from dsh.resume.loading import AgentRefresher
    from dsh.store.store import Store

CONFIG_KEY = "resume.agents"


def agent_switches(config: Any) -> Mapping[str, object]:
    table = config.get(CONFIG_KEY, {}) if config is not None else {}
    return table if isinstance(table, dict) else {}


def agent_sources(config: Any, env: Mapping[str, str] | None = None) -> list[Source]:
    """The agent stores to list, as `[resume.agents]` switches them (every one on by default)."""
    return sources(agent_switches(config), os.environ if env is None else env)


def agent_refresher_for(
    config: Any, cwd: str, keys: Collection[str] | None = None
) -> tuple[AgentRefresher | None, list[str]]:
    """(a refresher for `load_rest_and_refresh`, the list its warnings land in); (None, []) with no source.
    With `keys`, it reads only those conversations where the index knows their files."""
    from dsh.resume.loading import agent_refresher  # not at import: a listing need not load the picker

    stores = agent_sources(config)
    if not stores:
        return None, []
    notes: list[str] = []
    inner = agent_refresher(stores, cwds=[cwd], keys=keys)

    def run(index: Any) -> tuple[bool, list[str]]:
        changed, warnings = inner(index)
        notes[:] = warnings
        return changed, []

    return run, notes


def refresh_agent_stores(config: Config, store: Store, cwd: str, keys: Collection[str] | None = None) -> list[str]:
    """Read what changed in the agents' stores (as config switches them) into the index; its warnings.
    With `keys` (`kind:id`), only those conversations, where the index knows where they are."""
    refresher, notes = agent_refresher_for(config, cwd, keys)
    if refresher is not None:
        refresher(store.index)
    return notes
