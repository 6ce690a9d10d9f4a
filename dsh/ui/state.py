"""Where one client's keyboard is: the view's mode, as an Enum (it compares equal to its name)."""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    PROMPT = "prompt"  # the REPL prompt line has the keyboard
    PANE = "pane"  # every key goes to the active pane's program
    PICKER = "picker"  # /resume
    HELP = "help"  # the help overlay
    COPY = "copy"  # copy mode over the active pane's history


# The modes the keyboard goes back to when an overlay, copy mode or a question ends.
WORK_MODES = (Mode.PROMPT, Mode.PANE)
