"""Completion items (plain data the UI wraps) and splitting a half-typed line into words."""

from __future__ import annotations

import shlex

from dsh.values import Value


class CompletionItem(Value, fields=("text", "start_position", "display", "meta"), frozen=True):
    """Replace the `-start_position` characters before the cursor with `text`; show `display` and `meta`."""

    __slots__ = ("display", "meta", "start_position", "text")
    text: str
    start_position: int
    display: str
    meta: str

    def __init__(self, text: str, start_position: int, display: str, meta: str = "") -> None:
        setattr_ = object.__setattr__
        setattr_(self, "text", text)
        setattr_(self, "start_position", start_position)
        setattr_(self, "display", display)
        setattr_(self, "meta", meta)


class Words(Value, fields=("done", "current_raw", "current"), frozen=True):
    """A half-typed argument list: the finished words (unquoted) and the word under the cursor."""

    __slots__ = ("current", "current_raw", "done")
    done: list[str]
    current_raw: str
    current: str

    def __init__(self, done: list[str], current_raw: str, current: str) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "done", done)
        setattr_(self, "current_raw", current_raw)
        setattr_(self, "current", current)


def _cook(raw: str, open_quote: str) -> str:
    if not raw:
        return ""
    try:
        words = shlex.split(raw + open_quote)
    except ValueError:
        return raw.strip("'\"\\")
    return words[0] if words else ""


def split_words(text: str) -> Words:
    """Split `text` the way shlex would, tolerating an open quote or a trailing backslash in the last word."""
    done_raw: list[str] = []
    start: int | None = None
    quote = ""
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
            continue
        if ch == "\\" and quote != "'":
            escaped = True
            if start is None:
                start = i
            continue
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch.isspace():
            if start is not None:
                done_raw.append(text[start:i])
                start = None
            continue
        if start is None:
            start = i
        if ch in "'\"":
            quote = ch
    current_raw = text[start:] if start is not None else ""
    done = [_cook(raw, "") for raw in done_raw]
    return Words(done, current_raw, _cook(current_raw, quote))


def quote_if_needed(value: str) -> str:
    """`value` as it must be typed to come back as one word."""
    return shlex.quote(value) if value else "''"
