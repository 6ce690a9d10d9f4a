"""A desktop notification for the user's own terminal, in the form it understands: OSC 99 for kitty,
OSC 9 for iTerm2, WezTerm and Ghostty, OSC 777 for VTE terminals, BEL for the rest; wrapped in
tmux's passthrough when the client runs inside tmux. The terminal is told by the client's environment
as its handshake carries it (TERM, TERM_PROGRAM, VTE_VERSION, KITTY_WINDOW_ID, TMUX)."""

from __future__ import annotations

import base64
import itertools

from dsh.attention.model import one_line

# What the client forwards for this (dsh.client.attach.FORWARDED_ENV holds them too).
ENV_NAMES = ("TERM", "TERM_PROGRAM", "VTE_VERSION", "KITTY_WINDOW_ID", "TMUX", "WT_SESSION")
MODES = ("terminal", "bell", "off")
BEL = b"\x07"
_OSC9_PROGRAMS = ("iterm.app", "wezterm", "ghostty")
_ids = itertools.count(1)


def flavour(env: dict[str, str]) -> str:
    """kitty, osc9, osc777 or bell: how this client's terminal takes a notification."""
    term = env.get("TERM", "").lower()
    program = env.get("TERM_PROGRAM", "").lower()
    if "kitty" in term or env.get("KITTY_WINDOW_ID"):
        return "kitty"
    if program in _OSC9_PROGRAMS or "ghostty" in term or "wezterm" in term:
        return "osc9"
    if env.get("VTE_VERSION"):
        return "osc777"
    return "bell"


def in_tmux(env: dict[str, str]) -> bool:
    return bool(env.get("TMUX")) or env.get("TERM_PROGRAM", "").lower() == "tmux"


def _clean(text: str, max_len: int) -> str:
    # Nothing that could end or steer the sequence: one line, no ; in OSC 777's fields, no control bytes.
    return (one_line(text, max_len) or "").replace("\x1b", "").replace("\x07", "")


def notification(title: str, body: str, env: dict[str, str], mode: str = "terminal") -> bytes:
    """The bytes to write to the client's terminal for one notification ("" when mode is off)."""
    if mode == "off":
        return b""
    kind = flavour(env) if mode == "terminal" else "bell"
    title, body = _clean(title, 80), _clean(body, 200)
    if title[:1].isdigit():
        title = "dsh " + title  # `9;4;…` and the like are ConEmu's commands, not notifications
    if kind == "kitty":
        ident = next(_ids)
        encoded = base64.b64encode(body.encode()).decode()
        seq = f"\x1b]99;i={ident}:d=0:p=title;{title}\x1b\\\x1b]99;i={ident}:d=1:e=1:p=body;{encoded}\x1b\\"
    elif kind == "osc9":
        seq = f"\x1b]9;{title}: {body}\x07" if body else f"\x1b]9;{title}\x07"
    elif kind == "osc777":
        seq = f"\x1b]777;notify;{title.replace(';', ',')};{body.replace(';', ',')}\x07"
    else:
        return BEL
    data = seq.encode("utf-8")
    if in_tmux(env):
        # tmux passes a DCS tmux; … ST through to its own terminal, every ESC inside doubled
        # (with allow-passthrough on).
        return b"\x1bPtmux;" + data.replace(b"\x1b", b"\x1b\x1b") + b"\x1b\\"
    return data
