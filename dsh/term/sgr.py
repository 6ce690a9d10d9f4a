"""SGR parameters to cell renditions: pyte's rules and names, plus what pyte lacks (dim, hidden,
underline styles and colour, overline, colon sub-parameters, palette entries kept as such)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyte import graphics as g

from dsh.term.cells import BLANK, UNDERLINE_DOUBLE, UNDERLINE_SINGLE, Cell, glyphs_for

__all__ = [
    "PALETTE_NAMES",
    "SGR_CACHE",
    "apply_sgr",
    "canonical",
    "colour_rgb",
    "palette_index",
    "sgr_params",
    "sgr_step",
]

# Palette entries 0-15 by the names SGR 30-37 and 90-97 give them, so `38;5;1` is the same red as
# `31` (the user's terminal palette draws both), not a fixed RGB value. Entries 16-255 are kept as
# their index in decimal ("196"), never as the RGB value xterm's palette gives them: a terminal with a
# palette of its own draws its own colour there, and a view sends the index on (`38;5;196`).
PALETTE_NAMES = (*(g.FG_ANSI[30 + i] for i in range(8)), *(g.FG_AIXTERM[90 + i] for i in range(8)))
_PALETTE_INDEX = {name: index for index, name in enumerate(PALETTE_NAMES)}
_PALETTE_INDEX.update({str(n): n for n in range(16, 256)})


def palette_index(name: str) -> int | None:
    """The palette index (0-255) of a cell's colour, None for the default and 24-bit colours."""
    return _PALETTE_INDEX.get(name)


def colour_rgb(name: str) -> str | None:
    """A cell colour as `rrggbb`: a 24-bit colour as it is, a palette entry as xterm's palette has it."""
    index = _PALETTE_INDEX.get(name)
    if index is not None:
        return g.FG_BG_256[index]
    if len(name) == 6:
        return name
    return None


_FLAGS = {  # SGR code -> (field, value)
    1: ("bold", True),
    2: ("dim", True),
    3: ("italics", True),
    5: ("blink", True),
    6: ("blink", True),
    7: ("reverse", True),
    8: ("hidden", True),
    9: ("strikethrough", True),
    23: ("italics", False),
    25: ("blink", False),
    27: ("reverse", False),
    28: ("hidden", False),
    29: ("strikethrough", False),
    53: ("overline", True),
    55: ("overline", False),
}
_UNDERLINE_OFF = {"underscore": False, "underline_style": 0}


def _underline(style: int) -> dict[str, Any]:
    return {"underscore": True, "underline_style": style} if 1 <= style <= 5 else _UNDERLINE_OFF


def _colour(sub: list[int | None]) -> str | None:
    """The colour of an extended colour's sub-parameters after 38/48/58: [5, n] or [2, r, g, b]
    (or [2, colourspace, r, g, b], the colon form's)."""
    if not sub:
        return None
    if sub[0] == 5 and len(sub) >= 2 and sub[1] is not None and 0 <= sub[1] < 256:
        n = sub[1]
        return PALETTE_NAMES[n] if n < 16 else str(n)
    if sub[0] == 2 and len(sub) >= 4:
        rgb = sub[-3:] if len(sub) >= 5 else sub[1:4]
        r, gr, b = (min(max(v or 0, 0), 255) for v in rgb)
        return f"{r:02x}{gr:02x}{b:02x}"
    return None


_COLOUR_FIELD = {38: "fg", 48: "bg", 58: "underline_colour"}


def apply_sgr(attrs: Cell, params: str, default: Cell) -> Cell:
    """`attrs` after SGR `params` (a CSI's parameter string). `default` is what SGR 0 gives; the
    character protection (DECSCA) is not SGR's and survives it. Garbled parameters change nothing."""
    codes: list[int | list[int | None]] = []
    try:
        for p in params.split(";") if params else ["0"]:
            if ":" in p:
                codes.append([int(s) if s else None for s in p.split(":")])
            else:
                codes.append(min(int(p or 0), 9999))
    except ValueError:
        return attrs
    if codes == [0]:
        return default._replace(protected=attrs.protected) if attrs.protected else default
    replace: dict[str, Any] = {}
    todo = list(reversed(codes))
    while todo:
        code = todo.pop()
        if isinstance(code, list):
            head = code[0]
            if head in _COLOUR_FIELD:
                colour = _colour(code[1:])
                if colour is not None:
                    replace[_COLOUR_FIELD[head]] = colour
            elif head == 4:
                replace.update(_underline(code[1] or 0) if len(code) >= 2 else _underline(UNDERLINE_SINGLE))
            continue
        if code == 0:
            replace.update(default._asdict())
            replace["protected"] = attrs.protected
        elif code in g.FG_ANSI:
            replace["fg"] = g.FG_ANSI[code]
        elif code in g.BG_ANSI:
            replace["bg"] = g.BG_ANSI[code]
        elif code in _FLAGS:
            field, value = _FLAGS[code]
            replace[field] = value
        elif code == 4:
            replace.update(_underline(UNDERLINE_SINGLE))
        elif code == 21:
            replace.update(_underline(UNDERLINE_DOUBLE))
        elif code == 24:
            replace.update(_UNDERLINE_OFF)
        elif code == 22:
            replace["bold"] = replace["dim"] = False
        elif code in g.FG_AIXTERM:
            replace["fg"] = g.FG_AIXTERM[code]
        elif code in g.BG_AIXTERM:
            replace["bg"] = g.BG_AIXTERM[code]
        elif code in _COLOUR_FIELD:
            # 38;5;n or 38;2;r;g;b (the same for 48 and 58): the sub-parameters are taken even when
            # the colour is bad, so they are never read as attributes of their own.
            sub: list[int | None] = []
            if todo and todo[-1] in (2, 5):
                kind = todo.pop()
                sub = [kind]  # type: ignore[list-item]  # an int: 2 or 5, tested above
                for _ in range(3 if kind == 2 else 1):
                    if todo and not isinstance(todo[-1], list):
                        sub.append(todo.pop())  # type: ignore[arg-type]  # not a list, tested
            colour = _colour(sub)
            if colour is not None:
                replace[_COLOUR_FIELD[code]] = colour
        elif code == 59:
            replace["underline_colour"] = "default"
    return attrs._replace(**replace) if replace else attrs


# One entry per (rendition, SGR parameters) seen: the rendition before (so its id cannot be reused
# while the entry lives), the rendition after, and the glyph getter of the one after. Keyed by id:
# hashing a 15-field cell for every SGR would cost more than the rest of it.
SgrEntry = tuple[Cell, Cell, Callable[[str], Cell]]
SGR_CACHE: dict[tuple[int, str], SgrEntry] = {}
_renditions: dict[Cell, Cell] = {BLANK: BLANK}  # one object per rendition
_SGR_CACHE_MAX = 4096


def canonical(attrs: Cell) -> Cell:
    """The one object of this rendition (so renditions compare by identity in the hot paths)."""
    return _renditions.setdefault(attrs, attrs)


def sgr_step(attrs: Cell, params: str) -> SgrEntry:
    """The rendition after SGR `params` from `attrs`, cached, with its glyph getter."""
    hit = SGR_CACHE.get((id(attrs), params))
    if hit is not None and hit[0] is attrs:
        return hit
    new = canonical(apply_sgr(attrs, params, BLANK))
    if len(SGR_CACHE) > _SGR_CACHE_MAX:
        SGR_CACHE.clear()
        _renditions.clear()
        _renditions[BLANK] = BLANK
    entry = SGR_CACHE[(id(attrs), params)] = (attrs, new, glyphs_for(new).__getitem__)
    return entry


_FG_CODES = {
    **{name: code for code, name in g.FG_ANSI.items() if code != 39},
    **{n: c for c, n in g.FG_AIXTERM.items()},
}
_BG_CODES = {
    **{name: code for code, name in g.BG_ANSI.items() if code != 49},
    **{n: c for c, n in g.BG_AIXTERM.items()},
}


def _colour_params(name: str, codes: dict[str, int], extended: int) -> str | None:
    if name == "default":
        return None
    if name in codes:
        return str(codes[name])
    index = _PALETTE_INDEX.get(name)
    if index is not None:
        return f"{extended};5;{index}"
    if len(name) == 6:
        try:
            r, gr, b = int(name[0:2], 16), int(name[2:4], 16), int(name[4:6], 16)
        except ValueError:
            return None
        return f"{extended};2;{r};{gr};{b}"
    return None


def sgr_params(attrs: Cell) -> str:
    """The SGR parameters that set rendition `attrs` from nothing (as DECRQSS reports them): "0;..."."""
    parts = ["0"]
    for flag, code in (
        (attrs.bold, "1"),
        (attrs.dim, "2"),
        (attrs.italics, "3"),
        (attrs.blink, "5"),
        (attrs.reverse, "7"),
        (attrs.hidden, "8"),
        (attrs.strikethrough, "9"),
        (attrs.overline, "53"),
    ):
        if flag:
            parts.append(code)
    if attrs.underscore:
        parts.append("4" if attrs.underline_style in (0, UNDERLINE_SINGLE) else f"4:{attrs.underline_style}")
    for name, codes, extended in ((attrs.fg, _FG_CODES, 38), (attrs.bg, _BG_CODES, 48)):
        param = _colour_params(name, codes, extended)
        if param is not None:
            parts.append(param)
    if attrs.underline_colour != "default":
        param = _colour_params(attrs.underline_colour, {}, 58)
        if param is not None:
            parts.append(param)
    return ";".join(parts)
