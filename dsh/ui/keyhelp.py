"""What the key help shows: the keymap's own table, the fixed keys of the prompt and copy mode, tmux hints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.key_binding import KeyPressEvent

from dsh.commands.keymap import Keymap, command_name, key_display, normalize_key
from dsh.ui.copy_keys import HELP as COPY_HELP
from dsh.ui.copy_keys import VI, copy_keys

if TYPE_CHECKING:
    from dsh.commands.registry import Registry
    from dsh.ui.state import ViewState

DEFAULT_ESCAPE_KEY = "c-]"
# Commands whose prefix keys repeat without the prefix for a moment, as tmux's `bind -r` resize keys do:
# C-b C-Left C-Left C-Left.
REPEATABLE_COMMANDS = frozenset({"resize"})
REPEAT_SECONDS = 0.5
# Commands a key asks about first while the pane's program still runs, as tmux's x asks before kill-pane.
CONFIRM_COMMANDS = frozenset({"close"})

# What dsh offers instead of a tmux default binding it does not have, said when that key is pressed
# after the prefix and the keymap leaves it unbound.
TMUX_HINTS = {
    "l": "tabs: n and p for the next and previous, 0…9 for a number",
    "$": "/rename TITLE names this session",
    "q": "each pane's id is in its header",
    "pageup": "[ enters copy mode, where PgUp scrolls",
}


# The keys bound in this module by hand (not from the keymap), as help lists them.
PROMPT_KEYS = [
    ("Enter", "run a /command, or send the line to the active pane"),
    ("//text", "send /text to the pane as a line"),
    ("Tab", "complete a /command and its arguments"),
    ("Up Down", "earlier and later lines (kept per workspace)"),
    ("PgUp PgDn", "scroll the active pane's history"),
    ("C-c", "clear the line; on an empty line, interrupt the pane's program"),
    ("C-d", "on an empty line, end-of-file to the pane's program"),
    ("C-z", "on an empty line, stop the pane's program (job control; fg brings it back)"),
]


_ARROWS = {"Left": "←", "Down": "↓", "Up": "↑", "Right": "→"}


def copy_key_rows(style: str, prefix: str) -> list[tuple[str, str]]:
    """Copy mode's keys for help, (keys, what they do) per line, from the table the bindings use."""
    table = copy_keys(style)
    rows = []
    for phrases, note in COPY_HELP:
        keys = [key for key, action in table.items() if action in phrases]
        if not keys:
            continue
        said = list(dict.fromkeys(phrases[table[key]] for key in keys))  # in the keys' order, once each
        text = ", ".join(said) + (" " + note.format(prefix=prefix) if note else "")
        rows.append((" ".join(_ARROWS.get(key_display(key), key_display(key)) for key in keys), text))
    return rows


def key_help_lines(keymap: Keymap, registry: Registry | None, escape_key: str, copy_style: str = VI) -> list[str]:
    """Every key binding for help: the keymap's own table (each command's summary shown once per run of
    rows), then the keys of the prompt line and of copy mode (vi's or emacs's, as `ui.copy_keys` says)."""
    prefix = key_display(keymap.prefix)
    lines = [f"Keys (prefix {prefix}, then the key):"]
    previous = None
    for key, line, summary in keymap.describe(registry):
        name = command_name(line) if line else None
        shown = f"/{line}" if line else ""
        text = summary if name is None or name != previous else ""
        if name in CONFIRM_COMMANDS:
            text = f"{text} (asks y/n)".strip()
        previous = name
        lines.append(f"  {key:<16} {shown:<20} {text}".rstrip())
    toggle = key_display(escape_key)
    lines.append(f"  {toggle:<16} {'':<20} move the keyboard between the prompt and the pane")
    repeat = [k for k, line in keymap.prefix_bindings.items() if command_name(line) in REPEATABLE_COMMANDS]
    if repeat:
        again = key_display(repeat[0])
        example = f"{prefix} {again} {again} …"
        lines.append(f"  ({again} and the other /resize keys repeat without {prefix}: {example})")
    lines += ["", "On the prompt line:"]
    lines += [f"  {key:<16} {text}" for key, text in PROMPT_KEYS]
    lines += ["", f"In copy mode ({prefix} [ or /copy; {copy_style} keys, ui.copy_keys chooses):"]
    lines += [f"  {key:<24} {text}" for key, text in copy_key_rows(copy_style, prefix)]
    lines += [
        "",
        "With the mouse (ui.mouse): drag to select (double click: a word, triple: a line), the release",
        "copies; drag a border between panes to resize them; Shift-drag is your terminal's own selection.",
    ]
    return lines


def pressed_display(event: KeyPressEvent) -> str:
    """The keys of `event` as help shows them (`C-x`, `M-Left`, `Q`)."""
    names = " ".join(str(getattr(press.key, "value", press.key)) for press in event.key_sequence)
    if not names:
        return "?"
    return key_display(normalize_key(names) or names)  # c-m is shown as Enter, c-i as Tab


def checked_escape_key(app: ViewState) -> str:
    """The configured key that moves between prompt and pane, or the default with a message if unusable."""
    configured = app.escape_key
    key = normalize_key(configured)
    problem = ""
    if key is None:
        problem = "is not a key name"
    elif key == app.keymap.prefix:
        problem = "is also the prefix key"
    elif key in app.keymap.direct_bindings:
        problem = f"is also bound to /{app.keymap.direct_bindings[key]}"
    if not problem and key is not None:
        return key
    app.announce(f"ui.escape_key {configured!r} {problem} — using {key_display(DEFAULT_ESCAPE_KEY)}", error=True)
    return DEFAULT_ESCAPE_KEY
