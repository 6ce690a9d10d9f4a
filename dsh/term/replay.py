"""A saved output tail made safe to replay into a new terminal: the modes a program set are dropped."""

from __future__ import annotations

import re

# Private modes (DECSET/DECRST) a program sets for itself. Replayed into the emulator they would
# outlive the program that set them: focus reporting (1004) makes dsh send `ESC [ I` to the next
# program (a resumed Claude showed a literal ^[[I), mouse modes turn clicks into escape codes at a
# plain shell, bracketed paste wraps pastes in markers, and an alternate screen or a hidden cursor
# would hide the new program's output or cursor.
REPLAY_DROPPED_MODES = frozenset(
    {
        1,  # application cursor keys
        9,  # X10 mouse
        25,  # cursor visible
        47,
        1047,
        1048,
        1049,  # alternate screen, saved cursor
        1000,
        1001,
        1002,
        1003,
        1005,
        1006,
        1015,
        1016,  # mouse reporting and its encodings
        1004,  # focus events
        2004,  # bracketed paste
        2026,  # synchronized output
    }
)

_DECSET = re.compile(rb"\x1b\[\?([0-9;]*)([hl])")
# Application / normal keypad (DECKPAM / DECKPNM).
_KEYPAD = re.compile(rb"\x1b[=>]")


def _keep_other_modes(found: re.Match[bytes]) -> bytes:
    params = [p for p in found[1].split(b";") if p]
    kept = [p for p in params if not (p.isdigit() and int(p) in REPLAY_DROPPED_MODES)]
    if len(kept) == len(params):
        return found[0]
    if not kept:
        return b""
    return b"\x1b[?" + b";".join(kept) + found[2]


def strip_modes(tail: bytes) -> bytes:
    """`tail` without the mode settings that belong to the program that wrote it (see above)."""
    if b"\x1b" not in tail:
        return tail
    return _KEYPAD.sub(b"", _DECSET.sub(_keep_other_modes, tail))
