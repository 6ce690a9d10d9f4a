"""Key names as config writes them (prompt_toolkit's: `c-a`, `left`, `f5`, `M-x`): which exist, their
canonical form, and which can serve as the one key of a prefix. No prompt_toolkit import: the config
schema checks keys with this, below the UI."""

from __future__ import annotations

# prompt_toolkit 3.0's Keys values that are real keys (not <any>, mouse or paste events), and the
# aliases its KeyBindings.add accepts. Kept here so models need no prompt_toolkit import; a test checks
# every name against prompt_toolkit itself.
_CONTROL_LETTERS = [f"c-{ch}" for ch in "abcdefghijklmnopqrstuvwxyz"]
_CONTROL_DIGITS = [f"c-{d}" for d in "1234567890"] + [f"c-s-{d}" for d in "1234567890"]
_NAVIGATION = ["left", "right", "up", "down", "home", "end", "insert", "delete", "pageup", "pagedown"]
VALID_KEY_NAMES: frozenset[str] = frozenset(
    [
        "escape",
        "s-escape",
        "c-@",
        *_CONTROL_LETTERS,
        *_CONTROL_DIGITS,
        "c-\\",
        "c-]",
        "c-^",
        "c-_",
        *_NAVIGATION,
        *(f"c-{k}" for k in _NAVIGATION),
        *(f"s-{k}" for k in _NAVIGATION),
        *(f"c-s-{k}" for k in _NAVIGATION),
        "s-tab",
        *(f"f{n}" for n in range(1, 25)),
        *(f"c-f{n}" for n in range(1, 25)),
        # aliases
        "backspace",
        "c-space",
        "enter",
        "tab",
        "space",
        "s-c-left",
        "s-c-right",
        "s-c-home",
        "s-c-end",
    ]
)

# Several names for one key: store the friendliest.
_CANONICAL = {
    "c-m": "enter",
    "c-i": "tab",
    "c-h": "backspace",
    "c-@": "c-space",
    "s-c-left": "c-s-left",
    "s-c-right": "c-s-right",
    "s-c-home": "c-s-home",
    "s-c-end": "c-s-end",
}


def _normalize_part(part: str) -> str | None:
    if len(part) == 1:
        return part if part.isprintable() and not part.isspace() else None
    name = part.lower()
    if name not in VALID_KEY_NAMES:
        return None
    return _CANONICAL.get(name, name)


def normalize_key(key: object) -> str | None:
    """The canonical form of a key name or sequence (`M-Left` -> `escape left`), or None if invalid."""
    if not isinstance(key, str):
        return None
    parts: list[str] = []
    for raw in key.split():
        if len(raw) > 2 and raw[:2].lower() == "m-":
            parts.append("escape")
            raw = raw[2:]
        part = _normalize_part(raw)
        if part is None:
            return None
        parts.append(part)
    return " ".join(parts) if parts else None


def single_key_problem(value: object) -> str | None:
    """Why `value` cannot be a prefix or escape key (one key, never a plain character); None if it can."""
    key = normalize_key(value)
    if key is None:
        return "not a key name"
    if " " in key:
        return "not a single key"
    if len(key) == 1:
        return "a plain character would be taken from everything typed; use a key with a modifier"
    return None
