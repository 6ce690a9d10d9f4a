"""What of the host's environment a pane must not inherit: the outer terminal multiplexer's variables."""

from __future__ import annotations

from collections.abc import MutableMapping

# Variables a multiplexer dsh runs inside (tmux, zellij, screen, byobu, dvtm, abduco, ...) sets for its
# own panes. In a dsh pane they name a pane long gone (`TMUX_PANE=%0`) and mislead: `tmux` commands act
# on the outer tmux, and agents say in their footer that they run under tmux. As tmux does with its own
# (a pane inside tmux inside dsh gets TMUX from the inner one), dsh drops them; its own are set instead.
OUTER_NAMES = frozenset(("TMUX", "TMUX_PANE", "STY", "WINDOW", "DVTM", "DVTM_WINDOW_ID", "ABDUCO_SESSION"))
OUTER_PREFIXES = ("ZELLIJ", "BYOBU_", "TMUX_PLUGIN_")
# TERM_PROGRAM names the terminal a program draws on: the outer one's is not dsh's (tmux sets its own).
OUTER_TERM_PROGRAMS = frozenset(("tmux", "zellij", "screen"))


def drop_outer_multiplexer(env: MutableMapping[str, str]) -> None:
    """Take the outer multiplexers' variables out of `env` (in place)."""
    for name in [n for n in env if n in OUTER_NAMES or n.startswith(OUTER_PREFIXES)]:
        del env[name]
    if env.get("TERM_PROGRAM", "").lower() in OUTER_TERM_PROGRAMS:
        env.pop("TERM_PROGRAM", None)
        env.pop("TERM_PROGRAM_VERSION", None)
