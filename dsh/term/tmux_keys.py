"""tmux's key names (`send-keys Enter C-c M-x Up F5`) to the bytes tmux 3.3a writes to the pane.

Checked byte for byte against tmux 3.3a's `send-keys` into a raw reader, in both cursor and keypad
modes (tests/test_tmux_keys.py holds what it wrote). The rules that came out of it:

- Modifier prefixes `C-`, `M-`, `S-` (any case, any order) and `^` for ctrl; the rest is a key name
  (case-insensitive) or one character. Anything else is not a key, and its text is sent as typed
  (`xyz`, `F13`, `S-a`, `Up-x`).
- Cursor, Home/End, Insert/Delete, PageUp/PageDown and F1-F12 take any modifiers, xterm-style
  (`CSI 1;5A` for C-Up). Unmodified cursor keys follow the pane's application cursor mode (DECCKM);
  Home and End are `CSI 1~` and `CSI 4~`, as tmux sends them.
- Other keys take no shift (the word is then sent as text); M- puts ESC before them; C- turns a
  letter or one of `@ [ \\ ] ^ _ ? space 2 6 / -` into its control byte, and leaves a character
  past ASCII as it is. A key ctrl cannot change (C-Tab, C-Enter, C-1) sends nothing, unless M- is
  given too, when the word is sent as text.
- Keypad keys (KP0-KP9, KP/ KP* KP- KP+ KP. KPEnter) follow the pane's application keypad mode
  (DECKPAM); KPEnter is LF otherwise.
"""

from __future__ import annotations

__all__ = ["key_bytes", "keys_bytes"]

# xterm's modifier parameter is 1 + these.
_SHIFT, _META, _CTRL = 1, 2, 4

# Keys xterm encodes with modifiers: (normal, parameter form). In the parameter form `{m}` is the
# modifier parameter; cursor keys' normal form depends on DECCKM (handled apart).
_CURSOR = {"up": "A", "down": "B", "right": "C", "left": "D"}
_MODIFIABLE = {
    "home": ("\x1b[1~", "\x1b[1;{m}H"),
    "end": ("\x1b[4~", "\x1b[1;{m}F"),
    "ic": ("\x1b[2~", "\x1b[2;{m}~"),
    "insert": ("\x1b[2~", "\x1b[2;{m}~"),
    "dc": ("\x1b[3~", "\x1b[3;{m}~"),
    "delete": ("\x1b[3~", "\x1b[3;{m}~"),
    "ppage": ("\x1b[5~", "\x1b[5;{m}~"),
    "pageup": ("\x1b[5~", "\x1b[5;{m}~"),
    "pgup": ("\x1b[5~", "\x1b[5;{m}~"),
    "npage": ("\x1b[6~", "\x1b[6;{m}~"),
    "pagedown": ("\x1b[6~", "\x1b[6;{m}~"),
    "pgdn": ("\x1b[6~", "\x1b[6;{m}~"),
    **{f"f{n}": (f"\x1bO{c}", f"\x1b[1;{{m}}{c}") for n, c in zip(range(1, 5), "PQRS", strict=True)},
    **{
        f"f{n}": (f"\x1b[{code}~", f"\x1b[{code};{{m}}~")
        for n, code in zip(range(5, 13), (15, 17, 18, 19, 20, 21, 23, 24), strict=True)
    },
}
# Keys that take no modifier parameter: their bytes, and those under C- (None: ctrl has no encoding).
_PLAIN = {
    "enter": ("\r", None),
    "tab": ("\t", None),
    "btab": ("\x1b[Z", None),
    "escape": ("\x1b", None),
    "space": (" ", "\x00"),
    "bspace": ("\x7f", None),
}
# Keypad keys: the text in numeric mode, the SS3 final byte in application mode.
_KEYPAD = {
    **{f"kp{n}": (str(n), "pqrstuvwxy"[n]) for n in range(10)},
    "kp/": ("/", "o"),
    "kp*": ("*", "j"),
    "kp-": ("-", "m"),
    "kp+": ("+", "k"),
    "kp.": (".", "n"),
    "kpenter": ("\n", "M"),
}
_CTRL_PUNCT = {
    "@": 0,
    " ": 0,
    "[": 0x1B,
    "\\": 0x1C,
    "]": 0x1D,
    "^": 0x1E,
    "_": 0x1F,
    "?": 0x7F,
    "2": 0,
    "6": 0x1E,
    "/": 0x1F,
    "-": 0x1F,
}
_PREFIXES = {"c": _CTRL, "m": _META, "s": _SHIFT}


def _split(word: str) -> tuple[int, str]:
    """The modifiers a word starts with, and the rest."""
    mods = 0
    while True:
        if len(word) > 2 and word[1] == "-" and word[0].lower() in _PREFIXES:
            mods |= _PREFIXES[word[0].lower()]
            word = word[2:]
        elif len(word) > 1 and word[0] == "^":
            mods |= _CTRL
            word = word[1:]
        else:
            return mods, word


def _ctrl_char(ch: str) -> str | None:
    if not ch.isascii():
        return ch
    if ch.isalpha():
        return chr(ord(ch.lower()) - ord("a") + 1)
    code = _CTRL_PUNCT.get(ch)
    return None if code is None else chr(code)


def key_bytes(word: str, *, app_cursor: bool = False, app_keypad: bool = False) -> bytes | None:
    """What tmux sends for one `send-keys` word: its bytes (b"" for a key tmux sends nothing for), or
    None when the word is no key name and goes as text."""
    mods, rest = _split(word)
    name = rest.lower()
    out: str | None
    if len(rest) == 1:
        if mods & _SHIFT:
            return None
        out = rest
        if mods & _CTRL:
            out = _ctrl_char(rest)
            if out is None:
                return None if mods & _META else b""
    elif name in _CURSOR:
        final = _CURSOR[name]
        if mods:
            return f"\x1b[1;{1 + mods}{final}".encode()
        return f"\x1b{'O' if app_cursor else '['}{final}".encode()
    elif name in _MODIFIABLE:
        normal, modified = _MODIFIABLE[name]
        return (modified.format(m=1 + mods) if mods else normal).encode()
    elif name in _PLAIN or name in _KEYPAD:
        if mods & _SHIFT:
            return None
        if name in _PLAIN:
            out, ctrl = _PLAIN[name]
        else:
            text, final = _KEYPAD[name]
            out, ctrl = (f"\x1bO{final}" if app_keypad else text), None
        if mods & _CTRL:
            if ctrl is None:
                return None if mods & _META else b""
            out = ctrl
    else:
        return None
    if mods & _META:
        out = "\x1b" + out
    return out.encode("utf-8", "surrogateescape")


def keys_bytes(words: list[str], *, app_cursor: bool = False, app_keypad: bool = False) -> bytes:
    """`send-keys WORD…` as one write: each key name's bytes, any other word's text as typed."""
    out = bytearray()
    for word in words:
        found = key_bytes(word, app_cursor=app_cursor, app_keypad=app_keypad)
        out += word.encode("utf-8", "surrogateescape") if found is None else found
    return bytes(out)
