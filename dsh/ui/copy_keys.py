"""Copy mode's keys as data: vi's (the default) and emacs's (`ui.copy_keys = "emacs"`), as tmux's
copy-mode-vi and copy-mode tables bind them, and what each does, for the bindings and for help."""

from __future__ import annotations

VI = "vi"
EMACS = "emacs"
STYLES = (VI, EMACS)

# key (prompt_toolkit's names; "escape x" is Alt+x) -> action. Order matters: help lists keys in it.
VI_KEYS: dict[str, str] = {
    "h": "left",
    "j": "down",
    "k": "up",
    "l": "right",
    "left": "left",
    "down": "down",
    "up": "up",
    "right": "right",
    "w": "word",
    "b": "word_back",
    "e": "word_end",
    "W": "WORD",
    "B": "WORD_back",
    "E": "WORD_end",
    "0": "line_start",
    "^": "first_nonblank",
    "$": "line_end",
    "home": "line_start",
    "end": "line_end",
    "g": "top",
    "G": "bottom",
    "H": "view_top",
    "M": "view_middle",
    "L": "view_bottom",
    "c-u": "half_up",
    "c-d": "half_down",
    "c-b": "page_up",
    "c-f": "page_down",
    "pageup": "page_up",
    "pagedown": "page_down",
    "v": "select_char",
    "V": "select_line",
    "c-v": "select_block",
    "space": "begin_selection",
    "o": "other_end",
    "y": "copy",
    "enter": "copy",
    "/": "search_forward",
    "?": "search_backward",
    "n": "search_again",
    "N": "search_reverse",
    "[": "prompt_previous",
    "]": "prompt_next",
    "q": "leave",
    "escape": "leave",
}

EMACS_KEYS: dict[str, str] = {
    "c-b": "left",
    "c-n": "down",
    "c-p": "up",
    "c-f": "right",
    "left": "left",
    "down": "down",
    "up": "up",
    "right": "right",
    "escape f": "word_end",
    "escape b": "word_back",
    "c-a": "line_start",
    "escape m": "first_nonblank",
    "c-e": "line_end",
    "home": "line_start",
    "end": "line_end",
    "escape <": "top",
    "escape >": "bottom",
    "escape R": "view_top",
    "escape r": "view_middle",
    "escape up": "half_up",
    "escape down": "half_down",
    "escape v": "page_up",
    "c-v": "page_down",
    "pageup": "page_up",
    "pagedown": "page_down",
    "space": "page_down",
    "c-space": "begin_selection",
    "R": "toggle_block",
    "c-g": "clear_selection",
    "escape w": "copy",
    "c-w": "copy",
    "enter": "copy",
    "c-s": "search_forward",
    "c-r": "search_backward",
    "n": "search_again",
    "N": "search_reverse",
    "[": "prompt_previous",
    "]": "prompt_next",
    "q": "leave",
    "escape": "leave",
    "c-c": "leave",
}


# What help says, a line per group: the phrase of each action bound (in the order of its keys), then
# the group's note. A group none of whose actions is bound is left out.
def _same(actions: tuple[str, ...], phrase: str) -> dict[str, str]:
    return dict.fromkeys(actions, phrase)


HELP: list[tuple[dict[str, str], str]] = [
    (_same(("left", "down", "up", "right"), "move the cursor"), "(the view scrolls with it)"),
    ({"word": "the next word", "word_back": "back a word", "word_end": "the end of a word"}, ""),
    (_same(("WORD", "WORD_back", "WORD_end"), "the same over words between blanks"), ""),
    ({"line_start": "the line's start", "first_nonblank": "its first character", "line_end": "its end"}, ""),
    ({"top": "the top of the history", "bottom": "the end of the output"}, ""),
    ({"view_top": "the view's top row", "view_middle": "its middle row", "view_bottom": "its bottom row"}, ""),
    ({"half_up": "half a page up", "half_down": "half a page down"}, ""),
    ({"page_up": "a page up", "page_down": "a page down"}, ""),
    (
        {"select_char": "select characters", "select_line": "lines", "select_block": "a block"},
        "(the same key again drops it)",
    ),
    ({"begin_selection": "start selecting characters here"}, ""),
    ({"toggle_block": "select a block, or characters again"}, ""),
    ({"other_end": "to the selection's other end"}, ""),
    ({"clear_selection": "drop the selection"}, ""),
    ({"copy": "copy the selection (or the cursor's line) and leave"}, "({prefix} ] pastes)"),
    (
        {
            "search_forward": "search forward",
            "search_backward": "backward",
            "search_again": "the next match",
            "search_reverse": "the one before",
        },
        "",
    ),
    (
        {"prompt_previous": "the previous command's prompt", "prompt_next": "the next"},
        "(where the shell marks them: bash, zsh, fish)",
    ),
    ({"leave": "leave copy mode"}, ""),
]


def copy_keys(style: str) -> dict[str, str]:
    """The key table of a `ui.copy_keys` style (vi for anything unknown)."""
    return EMACS_KEYS if style == EMACS else VI_KEYS
