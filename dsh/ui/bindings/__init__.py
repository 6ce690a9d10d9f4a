"""Key bindings, one module per mode, merged for one view (`merged.py`, as prompt_toolkit's own defaults
are); here, what the view needs of them before its first frame: its modes and its escape key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.ui.bindings.modes import Modes
from dsh.ui.keyhelp import checked_escape_key

if TYPE_CHECKING:
    from dsh.ui.app import DshApp


def prepare_modes(app: DshApp) -> Modes:
    """What the view needs before its bindings are built: the escape key, checked (an unusable one is
    announced, in the first frame), and the modes' conditions."""
    app.escape_key = checked_escape_key(app)
    modes = app.modes = Modes(app)
    return modes
