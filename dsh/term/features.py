"""What the client's terminal draws beyond plain SGR (underline styles and colour, overline), from its env."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from dsh.term.terminfo import read_terminfo

__all__ = ["NO_FEATURES", "Features", "terminal_features"]


class Features(NamedTuple):
    """Renditions a terminal draws that dsh sends only where they are known to be drawn: each would be
    misread by a terminal that does not know it (`4:3` as underline and italic, `58;2;…` as dim,
    blink …)."""

    styled_underline: bool = False  # SGR 4:2 to 4:5 (double, curly, dotted, dashed)
    underline_colour: bool = False  # SGR 58 and 59
    overline: bool = False  # SGR 53 and 55


NO_FEATURES = Features()
_ALL = Features(True, True, True)

# Terminals known to draw all three, by TERM (or its start) and by TERM_PROGRAM; tmux (3.0 and later)
# reads them all and passes them on to its own terminal as that one can draw them.
_KNOWN_TERMS = ("xterm-kitty", "kitty", "wezterm", "xterm-ghostty", "ghostty", "tmux")
_KNOWN_PROGRAMS = {"wezterm": _ALL, "ghostty": _ALL, "tmux": _ALL, "kitty": _ALL}
# foot draws styled and coloured underlines but not overline.
_FOOT = Features(True, True, False)
_cache: dict[tuple[str, ...], Features] = {}


def _from_terminfo(term: str, env: Mapping[str, str]) -> Features:
    entry = read_terminfo(term, env)
    if entry is None:
        return NO_FEATURES
    styled = entry.has("Smulx") or entry.has("Su")  # Su: kitty's flag for styled, coloured underlines
    colour = entry.has("Setulc") or entry.has("setal") or entry.has("Su")
    return Features(styled, colour, entry.has("Smol"))


def _known(env: Mapping[str, str]) -> Features:
    term = env.get("TERM", "")
    program = env.get("TERM_PROGRAM", "").lower()
    if env.get("TMUX") or program in _KNOWN_PROGRAMS:
        return _ALL
    if env.get("KITTY_WINDOW_ID") or term.startswith(_KNOWN_TERMS):
        return _ALL
    if term.startswith("foot"):
        return _FOOT
    vte = env.get("VTE_VERSION", "")
    if vte.isdigit() and int(vte) >= 5102:  # VTE 0.51.2: overline; styled and coloured underlines before
        return _ALL
    return NO_FEATURES


def terminal_features(env: Mapping[str, str]) -> Features:
    """What the terminal of a client with this environment draws: its terminfo entry's capabilities
    (Smulx or Su, Setulc or setal, Smol), or what dsh knows of it by name."""
    names = ("TERM", "TERM_PROGRAM", "TMUX", "KITTY_WINDOW_ID", "VTE_VERSION", "TERMINFO", "TERMINFO_DIRS", "HOME")
    key = tuple(env.get(name, "") for name in names)
    found = _cache.get(key)
    if found is None:
        known = _known(env)
        info = _from_terminfo(env.get("TERM", ""), env)
        found = _cache[key] = Features(*(a or b for a, b in zip(known, info, strict=True)))
    return found
