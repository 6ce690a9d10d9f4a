"""The DSH_* environment variables that set config keys, as the config table names them (dsh(1) lists them)."""

from __future__ import annotations

from dsh.config.table import OPTIONS

# DSH_HOME is not here: it names the home, not a key. Other DSH_* names (e.g. DSH_HANDOFF_FROM,
# used inside dsh; DSH_NO_SPAWNER, read by the client before any config) are not config and are
# ignored by the config loader.
ENV_KEYS: dict[str, str] = {option.env: key for key, option in OPTIONS.items() if option.env is not None}
