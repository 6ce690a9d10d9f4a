"""What a pane's terminal output says of its attention: desktop notifications a program asked for
(OSC 9, OSC 777 notify, OSC 99), and whether its title carries a working spinner."""

from __future__ import annotations

import base64
import binascii

from dsh.attention.model import one_line
from dsh.attention.states import BLOCKED, DONE

NOTICE_MAX = 200
# OSC 99 chunks kept per notification id until its last one (d=1) comes; a program that never ends
# one does not grow the screen's memory past this.
_KITTY_PENDING = 8
_KITTY_PART_MAX = 4096


def osc_notice(code: str, rest: str, pending: dict[str, list[str]]) -> str | None:
    """The text of a notification in an OSC body (`code;rest`), or None when it is not one.

    OSC 9 is iTerm2's notification, except `9;4;…` and the other `9;N;…` forms, ConEmu's progress and
    commands; OSC 777 is `notify;title;body` (VTE, urxvt); OSC 99 is kitty's, in chunks kept in
    `pending` by their id until the one without `d=0`."""
    if code == "9":
        head = rest.partition(";")[0]
        if head.isdigit() and (";" in rest or len(head) <= 2):
            return None
        return one_line(rest, NOTICE_MAX)
    if code == "777":
        kind, _, payload = rest.partition(";")
        if kind != "notify":
            return None
        title, _, body = payload.partition(";")
        return one_line(f"{title}: {body}" if title and body else title or body, NOTICE_MAX)
    if code == "99":
        return _kitty(rest, pending)
    return None


def _kitty(rest: str, pending: dict[str, list[str]]) -> str | None:
    meta, _, payload = rest.partition(";")
    keys: dict[str, str] = {}
    for item in meta.split(":"):
        key, sep, value = item.partition("=")
        if sep:
            keys[key] = value
    part = keys.get("p", "title")
    if part not in ("title", "body"):
        return None  # close, alive, icon, buttons, a query (?): nothing to show
    if keys.get("e") == "1":
        try:
            payload = base64.b64decode(payload[: _KITTY_PART_MAX * 2], validate=False).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None
    ident = keys.get("i", "")[:64]
    parts = pending.setdefault(ident, [])
    if len(pending) > _KITTY_PENDING:
        pending.pop(next(iter(pending)))
        parts = pending.setdefault(ident, [])
    if sum(map(len, parts)) < _KITTY_PART_MAX:
        parts.append(payload[:_KITTY_PART_MAX])
    if keys.get("d") == "0":
        return None  # more chunks follow
    pending.pop(ident, None)
    return one_line(": ".join(p for p in parts if p), NOTICE_MAX)


def title_spins(title: str) -> bool:
    """True when a title starts with a braille spinner frame (U+2800-U+28FF), as Claude Code's does
    while it works (its idle title starts with ✳)."""
    return bool(title) and "\u2800" <= title[0] <= "\u28ff"


# What an agent's own desktop notifications say (checked with codex 0.171.0, whose TUI dsh asks for
# OSC 9 notifications): these ask for the user; anything else is a turn's end.
_ASKS = {"codex": ("Approval requested", "Codex wants to", "Question requested")}


def agent_notice_state(kind: str, text: str) -> str:
    """blocked or done: the state an agent's terminal notification puts it in."""

    return BLOCKED if text.startswith(_ASKS.get(kind, ())) else DONE
