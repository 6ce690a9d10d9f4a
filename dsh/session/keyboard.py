"""Where one client's keys go, the prompt or the focused pane: the rule, and the escape key's choice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.values import Value

if TYPE_CHECKING:
    from dsh.session.pane import Pane

PROMPT = "prompt"
PANE = "pane"
# `ui.keyboard`: "follow" (the rule below) or "pane" (tmux-like: keys always go to the pane, commands
# behind the prefix and `prefix :`).
STYLES = ("follow", "pane")


class PaneFacts(Value, fields=("pane_id", "running", "reads_keys"), frozen=True):
    """What the rule looks at in the focused pane: is its program running, and does the program in its
    foreground read keys itself (an agent, an editor, a pager, a REPL, a raw-mode program)."""

    pane_id: str
    running: bool
    reads_keys: bool

    def __init__(self, pane_id: str, running: bool, reads_keys: bool) -> None:
        object.__setattr__(self, "pane_id", pane_id)
        object.__setattr__(self, "running", running)
        object.__setattr__(self, "reads_keys", reads_keys)


def facts_of(pane: Pane) -> PaneFacts:
    """The rule's view of a pane, from what the session last polled (never a syscall here)."""
    running = pane.running
    terminal = pane.terminal
    reads = running and (pane.agent is not None or pane.takes_keys or terminal.alternate_screen)
    return PaneFacts(pane.id, running, bool(reads))


def keys_belong(facts: PaneFacts | None, style: str = "follow") -> str:
    """The one rule: the keyboard goes to the pane when its foreground program reads keys itself, and
    to the prompt (the shell's line editor, slash commands) for an idle shell, a restored or ended
    pane (a line or Enter there starts it), or no pane at all. In the "pane" style, always the pane."""
    if facts is None:
        return PROMPT
    if style == "pane":
        return PANE
    return PANE if facts.running and facts.reads_keys else PROMPT


class Keyboard:
    """One client's keyboard (each attached client has its own): the rule applied to whichever pane
    has the focus, unless the user chose otherwise for that pane (the escape key, /pane, /prompt, a
    click into the pane it is in). The choice holds until the focus moves to another pane or that
    pane's program ends; nothing polled later overrides it, so there is no order of events in which a
    late poll result takes back a key the user pressed."""

    def __init__(self, style: str = "follow") -> None:
        self.style = style if style in STYLES else "follow"
        self._chosen: tuple[str, str] | None = None  # (pane id, where) the user put the keyboard

    def place(self, facts: PaneFacts | None) -> str:
        """Where keys go now, with `facts` about the focused pane (None: no pane)."""
        chosen = self._chosen
        if chosen is not None and (facts is None or chosen[0] != facts.pane_id):
            self._chosen = chosen = None  # the focus moved: the choice was for the pane it left
        if chosen is not None:
            return chosen[1]
        return keys_belong(facts, self.style)

    def choose(self, pane_id: str | None, where: str) -> None:
        """The user put the keyboard `where` for this pane; with no pane, only the prompt is there."""
        self._chosen = (pane_id, where) if pane_id is not None and where in (PROMPT, PANE) else None

    def chosen(self, pane_id: str | None) -> str | None:
        """What the user chose for this pane, if the choice still holds."""
        chosen = self._chosen
        return chosen[1] if chosen is not None and chosen[0] == pane_id else None

    def forget(self, pane_id: str | None = None) -> None:
        """Drop the choice (for `pane_id` only, when given): its program ended or was replaced."""
        if self._chosen is not None and (pane_id is None or self._chosen[0] == pane_id):
            self._chosen = None

    def toggled(self, facts: PaneFacts | None, now: str) -> str:
        """The escape key: the other place from `now`, chosen for the focused pane."""
        where = PROMPT if now == PANE else PANE
        if facts is None:
            where = PROMPT
        self.choose(facts.pane_id if facts is not None else None, where)
        return where


__all__ = ["PANE", "PROMPT", "STYLES", "Keyboard", "PaneFacts", "facts_of", "keys_belong"]
