"""Key presses (prompt_toolkit `Keys` value strings) and pastes to the bytes a terminal child expects."""

from __future__ import annotations

__all__ = ["KEYPAD_SEQUENCES", "KEYPAD_TEXT", "alt_key_bytes", "key_to_bytes", "paste_bytes"]

# xterm modifier parameter: 1 + (shift 1, alt 2, ctrl 4)
_MODIFIERS = {"": 1, "s-": 2, "c-": 5, "c-s-": 6}

# Cursor keys: final byte; normal mode sends CSI <final>, application mode (DECCKM) SS3 <final>.
_CURSOR = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}

# Editing keys: CSI <n> ~
_TILDE = {"insert": 2, "delete": 3, "pageup": 5, "pagedown": 6}

# F1-F4 are SS3 P..S; F5-F12 are CSI <n> ~. F13-F24 are shifted F1-F12 (xterm).
_FKEY_SS3 = {1: "P", 2: "Q", 3: "R", 4: "S"}
_FKEY_TILDE = {5: 15, 6: 17, 7: 18, 8: 19, 9: 20, 10: 21, 11: 23, 12: 24}

_SPECIAL = {
    "escape": b"\x1b",
    "s-escape": b"\x1b",
    "c-@": b"\x00",
    "c-i": b"\t",
    "c-m": b"\r",
    "c-j": b"\n",
    "c-\\": b"\x1c",
    "c-]": b"\x1d",
    "c-^": b"\x1e",
    "c-_": b"\x1f",
    "s-tab": b"\x1b[Z",
    "<sigint>": b"\x03",
}

# Keypad keys (named as the view reads them from an outer terminal in application keypad mode):
# the SS3 final byte a child in application keypad mode (DECKPAM, ESC =) gets, and the text it
# gets otherwise.
_KEYPAD = {
    **{f"kp-{n}": ("pqrstuvwxy"[n], str(n)) for n in range(10)},
    "kp-.": ("n", "."),
    "kp-enter": ("M", "\r"),
    "kp-+": ("k", "+"),
    "kp--": ("m", "-"),
    "kp-*": ("j", "*"),
    "kp-/": ("o", "/"),
    "kp-=": ("X", "="),
}
# What an outer terminal in application keypad mode sends for each keypad key: a view that puts
# the outer terminal in that mode registers these with its input parser to get the keys above.
KEYPAD_SEQUENCES = {f"\x1bO{final}": name for name, (final, _) in _KEYPAD.items()}
# What each keypad key types where it is not a keypad key (dsh's prompt, a pane in numeric mode).
KEYPAD_TEXT = {name: text for name, (_, text) in _KEYPAD.items()}

_BRACKET_START = "\x1b[200~"
_BRACKET_END = "\x1b[201~"


def _split_modifier(key: str) -> tuple[int, str]:
    for prefix in ("c-s-", "s-", "c-"):
        if key.startswith(prefix):
            return _MODIFIERS[prefix], key[len(prefix) :]
    return 1, key


def _function_key(number: int, modifier: int) -> bytes | None:
    if 13 <= number <= 24:
        number -= 12
        modifier += 1  # shift
    if number in _FKEY_SS3:
        final = _FKEY_SS3[number]
        return f"\x1bO{final}".encode() if modifier == 1 else f"\x1b[1;{modifier}{final}".encode()
    if number in _FKEY_TILDE:
        code = _FKEY_TILDE[number]
        return f"\x1b[{code}~".encode() if modifier == 1 else f"\x1b[{code};{modifier}~".encode()
    return None


def alt_key_bytes(key: str) -> bytes | None:
    """Alt with a cursor, editing or function key as xterm and tmux send it: the modifier parameter
    gains 2 (`M-Left` is CSI 1;3D, `M-C-Up` CSI 1;7A, `M-F5` CSI 15;3~), never ESC then the key's
    own sequence (ESC ESC[D, which programs read as Escape and Left). None for other keys (an Alt
    letter is ESC x)."""
    key = str(getattr(key, "value", key))
    modifier, base = _split_modifier(key)
    modifier += 2
    if base in _CURSOR:
        return f"\x1b[1;{modifier}{_CURSOR[base]}".encode()
    if base in _TILDE:
        return f"\x1b[{_TILDE[base]};{modifier}~".encode()
    if base.startswith("f") and base[1:].isdigit():
        return _function_key(int(base[1:]), modifier)
    return None


def typed_bytes(text: str) -> bytes:
    """Text typed or pasted, as the bytes to send. A byte that was not UTF-8 arrives from the
    terminal as a lone surrogate (surrogateescape): it goes out as that same byte, never as `?`."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte maps to (it came from a paste, not a key)
        return text.encode("utf-8", "replace")


def key_to_bytes(key: str, data: str = "", *, app_cursor: bool = False, app_keypad: bool = False) -> bytes | None:
    """The bytes for one key press, or None for keys a child has no encoding for.

    `key` is a prompt_toolkit `Keys` value ("up", "c-a", "f5", "<any>", ...) or a keypad key
    ("kp-1", "kp-enter": see KEYPAD_SEQUENCES); `data` is the text the key produced (used for
    "<any>" and unknown keys, and to tell C-h, BS, from Backspace, DEL, which prompt_toolkit both
    calls c-h). `app_cursor` is DECCKM, `app_keypad` DECKPAM. Alt-x arrives from prompt_toolkit as
    "escape" then "x": the Terminal sends the two in one write.
    """
    key = str(getattr(key, "value", key))
    if key == "<any>":
        return typed_bytes(data) if data else None
    if key == "c-h":
        return b"\x08" if data == "\x08" else b"\x7f"  # Backspace (no data: as terminals send it)
    keypad = _KEYPAD.get(key)
    if keypad is not None:
        final, text = keypad
        return f"\x1bO{final}".encode() if app_keypad else text.encode()
    special = _SPECIAL.get(key)
    if special is not None:
        return special
    if len(key) == 3 and key.startswith("c-") and "a" <= key[2] <= "z":
        return bytes([ord(key[2]) - ord("a") + 1])
    modifier, base = _split_modifier(key)
    if base in _CURSOR:
        final = _CURSOR[base]
        if modifier != 1:
            return f"\x1b[1;{modifier}{final}".encode()
        return f"\x1bO{final}".encode() if app_cursor else f"\x1b[{final}".encode()
    if base in _TILDE:
        code = _TILDE[base]
        return f"\x1b[{code}~".encode() if modifier == 1 else f"\x1b[{code};{modifier}~".encode()
    if base.startswith("f") and base[1:].isdigit():
        return _function_key(int(base[1:]), modifier)
    if len(key) > 1 and key.startswith("<"):
        # Mouse events, CPR responses, scroll: not keys for the child. The `<` key itself is
        # named "<" and is typed text like any other.
        return None
    return typed_bytes(data) if data else None


def paste_bytes(text: str, *, bracketed: bool) -> bytes:
    """Pasted text as a terminal sends it: newlines as CR, wrapped in ESC[200~ ... ESC[201~ when
    the child asked for bracketed paste (an end marker inside the text is removed, so a paste
    cannot break out of the bracket)."""
    text = text.replace("\r\n", "\r").replace("\n", "\r")
    if bracketed:
        text = text.replace(_BRACKET_END, "").replace(_BRACKET_START, "")
        return typed_bytes(_BRACKET_START + text + _BRACKET_END)
    return typed_bytes(text)
