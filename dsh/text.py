"""Make untrusted text (titles, inputs, paths from disk or a child) safe to show on a terminal."""

from __future__ import annotations

import functools
import re

# C0 controls, DEL and C1 controls: any of these could start or steer an escape sequence.
_C0_C1 = "\x00-\x1f\x7f-\x9f"
# Unicode format characters (category Cf, Unicode 14): bidi overrides and isolates (U+202A-U+202E,
# U+2066-U+2069), marks (U+200E, U+200F, U+061C), zero-width and invisible characters, tags. They
# reorder or hide what a line shows (Trojan Source, CVE-2021-42574). The joiners U+200C and U+200D are
# left alone: scripts and emoji sequences need them, and they move nothing. A test checks this list
# against the running Python's unicodedata.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
# Line and paragraph separators: not controls, but some programs break lines on them.
_SEPARATORS = "\u2028\u2029"
# Lone surrogates: what Python makes of bytes that are not UTF-8 (os.fsdecode, surrogateescape).
_SURROGATES = "\ud800-\udfff"

# ASCII text (nearly all of it) can hold no unsafe character but C0 controls and DEL, and this class
# compiles at once. The full classes are compiled on the first text that is not ASCII: their charsets
# over the whole BMP took ~2.5 ms to compile, on the way of every start (client and host).
_UNSAFE_ASCII = re.compile(r"[\x00-\x1f\x7f]")


@functools.cache
def _unsafe() -> re.Pattern[str]:
    return re.compile(f"[{_C0_C1}{_FORMAT}{_SEPARATORS}{_SURROGATES}]")


@functools.cache
def _format_only() -> re.Pattern[str]:
    return re.compile(f"[{_FORMAT}]")


_NAMED = {"\x1b": "^[", "\t": " ", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:
        # surrogateescape's stand-in for the byte code - 0xDC00: show the byte itself.
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def sanitize(text: str, max_len: int | None = None) -> str:
    """Show what could steer a terminal escaped, never interpreted: ESC as ^[, other controls as ^X or
    \\xNN, a byte that was not UTF-8 as \\xNN, bidi and other format characters as \\uNNNN.

    With `max_len`, the result is capped to that many characters, ending in an ellipsis when cut.
    """
    if not isinstance(text, str):
        text = str(text)
    clean = (_UNSAFE_ASCII if text.isascii() else _unsafe()).sub(_escape, text)
    if max_len is not None and len(clean) > max_len:
        clean = clean[: max(0, max_len - 1)] + "…"
    return clean


def strip_format(text: str) -> str:
    """`text` without Unicode format characters (bidi overrides, zero-width and invisible characters):
    for titles, where they would only reorder or hide what the tab bar shows."""
    return text if text.isascii() else _format_only().sub("", text)
