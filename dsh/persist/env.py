"""The environment allowlist: which of a pane's variables may be written to disk."""

from __future__ import annotations

import re
from collections.abc import Mapping

# Exact names outside the prefixes below: the agents' non-secret location settings.
ALLOWED_NAMES = frozenset(
    {
        "TERM",
        "LANG",
        "COLORTERM",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "OPENCODE_CONFIG",
        "OPENCODE_CONFIG_DIR",
    }
)
ALLOWED_PREFIXES = ("LC_", "DSH_")

# Even an allowlisted name is dropped when it looks like it carries a secret (DSH_API_TOKEN, ...).
_SECRET = re.compile(r"TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION_ID", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_persistable(name: str) -> bool:
    """True when a variable of this name may be saved in a snapshot."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return False
    if _SECRET.search(name):
        return False
    return name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)


def filter_env(env: Mapping[str, str]) -> dict[str, str]:
    """The allowlisted, non-secret part of `env`; values that are not plain strings are dropped."""
    return {
        name: value
        for name, value in env.items()
        if is_persistable(name) and isinstance(value, str) and "\x00" not in value
    }
