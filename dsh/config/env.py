"""The DSH_* environment variables that set config keys: an explicit table, documented in dsh(1)."""

from __future__ import annotations

# DSH_HOME is not here: it names the home, not a key. Other DSH_* names (e.g. DSH_HANDOFF_FROM,
# used inside dsh; DSH_NO_SPAWNER, read by the client before any config) are not config and are
# ignored by the config loader.
ENV_KEYS: dict[str, str] = {
    "DSH_SESSION_ROOT": "store.root",
    "DSH_SCROLLBACK": "term.scrollback",
    "DSH_TAIL_BYTES": "term.tail_bytes",
    "DSH_TERM": "term.term",
    "DSH_PREFIX": "ui.prefix",
    "DSH_MOUSE": "ui.mouse",
    "DSH_ESCAPE_KEY": "ui.escape_key",
    "DSH_SNAPSHOT_DEBOUNCE": "snapshot.debounce_seconds",
}
