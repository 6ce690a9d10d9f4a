"""A pane program's OSC 52 copy passed on to the client's terminal (and maybe dsh's paste buffer)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

MODES = ("on", "external", "off")


def write_clipboard(application: Any, config: Any, selections: str, data: str, buffer: Any = None) -> bool:
    """Pass on one copy (selections and base64 as the program sent them, checked by the screen);
    False when `[term] clipboard` is "off". With "on" it also goes to `buffer` (dsh's paste buffer;
    the application's clipboard unless given)."""
    mode = config.text("term.clipboard")
    if mode not in ("on", "external"):
        return False
    if mode == "on":
        try:
            text = base64.b64decode(data, validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            text = None
        if text is not None:
            (application.clipboard if buffer is None else buffer).set_text(text)
    output = application.output
    output.write_raw(f"\x1b]52;{selections};{data}\x07")
    output.flush()  # now: between frames, and no frame may come
    return True
