"""When to look for an agent's session id: soon after the pane starts, then less and less often."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from dsh.agents.base import AgentAdapter

# Seconds after the pane started at which to look; agents often write their store only after the
# first prompt, so the later tries matter. After the last one, keep trying at that spacing.
DEFAULT_DELAYS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)


class SessionLearner:
    """Finds one pane's agent session id with a backoff; `attempt()` may block (file scans, opencode's
    CLI), so run it off the event loop. Once found, or when known at launch, it stops looking."""

    def __init__(
        self,
        adapter: AgentAdapter,
        cwd: str,
        started_at: float,
        env: Mapping[str, str],
        *,
        known_id: str | None = None,
        clock: Callable[[], float] = time.time,
        delays: Sequence[float] = DEFAULT_DELAYS,
    ) -> None:
        if not delays:
            raise ValueError("delays must not be empty")
        self.adapter = adapter
        self.cwd = cwd
        self.started_at = started_at
        self.env = dict(env)
        self._clock = clock
        self._delays = tuple(delays)
        self._tries = 0
        self.session_id = known_id if known_id is not None and adapter.valid_session_id(known_id) else None

    @property
    def done(self) -> bool:
        return self.session_id is not None

    def next_at(self) -> float | None:
        """Wall-clock time of the next lookup, or None when the id is known."""
        if self.done:
            return None
        if self._tries < len(self._delays):
            return self.started_at + self._delays[self._tries]
        spacing = self._delays[-1] - (self._delays[-2] if len(self._delays) > 1 else 0.0)
        return self.started_at + self._delays[-1] + spacing * (self._tries - len(self._delays) + 1)

    def due(self) -> bool:
        """True when a lookup should run now."""
        when = self.next_at()
        return when is not None and self._clock() >= when

    def attempt(self) -> str | None:
        """Look once (blocking); the id when found. A failing lookup counts as not found."""
        if self.done:
            return self.session_id
        self._tries += 1
        try:
            found = self.adapter.find_session_id(self.cwd, self.started_at, self.env)
        except Exception:
            found = None
        if found is not None and self.adapter.valid_session_id(found):
            self.session_id = found
        return self.session_id
