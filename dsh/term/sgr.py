"""SGR parameters to cell attributes: pyte's rules, plus dim and colon sub-parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyte import graphics as g

if TYPE_CHECKING:
    from dsh.term.screen import Cell

__all__ = ["apply_sgr"]


def apply_sgr(attrs: Cell, params: str, default: Cell) -> Cell:
    """pyte's SGR rules, plus dim (2/22) and colon sub-parameters (38:2::r:g:b, 38:5:n, 4:3)."""
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
        return default
    replace: dict[str, Any] = {}
    todo = list(reversed(codes))
    while todo:
        code = todo.pop()
        if isinstance(code, list):
            _apply_colon(code, replace)
            continue
        if code == 0:
            replace.update(default._asdict())
        elif code in g.FG_ANSI:
            replace["fg"] = g.FG_ANSI[code]
        elif code in g.BG:
            replace["bg"] = g.BG_ANSI[code]
        elif code == 2:
            replace["dim"] = True
        elif code in g.TEXT:
            name = g.TEXT[code]
            replace[name[1:]] = name.startswith("+")
            if code == 22:
                replace["dim"] = False
        elif code in g.FG_AIXTERM:
            replace["fg"] = g.FG_AIXTERM[code]
        elif code in g.BG_AIXTERM:
            replace["bg"] = g.BG_AIXTERM[code]
        elif code in (g.FG_256, g.BG_256):
            key = "fg" if code == g.FG_256 else "bg"
            try:
                n = todo.pop()
                if n == 5:
                    m = todo.pop()
                    replace[key] = g.FG_BG_256[m]  # type: ignore[index]
                elif n == 2:
                    replace[key] = f"{todo.pop():02x}{todo.pop():02x}{todo.pop():02x}"
            except (IndexError, TypeError):
                pass
    return attrs._replace(**replace)


def _apply_colon(sub: list[int | None], replace: dict[str, Any]) -> None:
    head = sub[0]
    if head in (38, 48) and len(sub) >= 2:
        key = "fg" if head == 38 else "bg"
        if sub[1] == 5 and len(sub) >= 3 and sub[2] is not None and 0 <= sub[2] < 256:
            replace[key] = g.FG_BG_256[sub[2]]
        elif sub[1] == 2:
            rgb = sub[3:6] if len(sub) >= 6 else sub[2:5]
            if len(rgb) == 3:
                r, gr, b = (min(max(v or 0, 0), 255) for v in rgb)
                replace[key] = f"{r:02x}{gr:02x}{b:02x}"
    elif head == 4:
        replace["underscore"] = (sub[1] or 0) != 0 if len(sub) >= 2 else True
    # 58 (underline colour) and others: accepted, not drawn
