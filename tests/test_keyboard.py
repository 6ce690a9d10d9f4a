"""The keyboard rule (dsh.session.keyboard): where one client's keys go as the focus moves, per way."""

from __future__ import annotations

from dsh.session.keyboard import PANE, PROMPT, Keyboard, PaneFacts, facts_of, keys_belong

IDLE_SHELL = PaneFacts("p1", running=True, reads_keys=False)
VIM = PaneFacts("p2", running=True, reads_keys=True)
AGENT = PaneFacts("p3", running=True, reads_keys=True)
RESTORED = PaneFacts("p4", running=False, reads_keys=False)


def test_the_rule_gives_keys_to_programs_that_read_them_and_lines_to_idle_shells() -> None:
    assert keys_belong(VIM) == PANE
    assert keys_belong(AGENT) == PANE
    assert keys_belong(IDLE_SHELL) == PROMPT
    assert keys_belong(RESTORED) == PROMPT  # a line or Enter on the prompt starts it
    assert keys_belong(None) == PROMPT
    # A stale "reads keys" from a pane whose program is gone does not hold the keyboard there.
    assert keys_belong(PaneFacts("p5", running=False, reads_keys=True)) == PROMPT


def test_the_pane_style_always_gives_the_pane_the_keys() -> None:
    for facts in (VIM, IDLE_SHELL, RESTORED):
        assert keys_belong(facts, "pane") == PANE
        assert Keyboard("pane").place(facts) == PANE
    assert keys_belong(None, "pane") == PROMPT  # nothing to type into
    assert Keyboard("nonsense").style == "follow"


def test_the_escape_key_overrides_for_that_pane_until_the_focus_moves() -> None:
    keyboard = Keyboard()
    assert keyboard.place(VIM) == PANE
    assert keyboard.toggled(VIM, PANE) == PROMPT
    # However often the poll reports (a late result, or the same one again), the choice holds.
    for _ in range(5):
        assert keyboard.place(VIM) == PROMPT
        assert keyboard.place(PaneFacts("p2", running=True, reads_keys=False)) == PROMPT
    assert keyboard.place(IDLE_SHELL) == PROMPT  # the focus moved: the rule there
    assert keyboard.place(VIM) == PANE  # and back again: the choice was for the last visit only
    assert keyboard.chosen("p2") is None


def test_a_choice_into_an_idle_shell_holds_while_programs_come_and_go() -> None:
    keyboard = Keyboard()
    assert keyboard.toggled(IDLE_SHELL, PROMPT) == PANE
    assert keyboard.place(PaneFacts("p1", running=True, reads_keys=True)) == PANE  # vim started
    assert keyboard.place(IDLE_SHELL) == PANE  # vim ended: the user's choice still
    keyboard.forget("p9")
    assert keyboard.chosen("p1") == PANE  # another pane's end changes nothing
    keyboard.forget("p1")  # the pane's own program ended
    assert keyboard.place(IDLE_SHELL) == PROMPT


def test_with_no_pane_the_escape_key_leaves_the_keyboard_on_the_prompt() -> None:
    keyboard = Keyboard()
    assert keyboard.toggled(None, PROMPT) == PROMPT
    assert keyboard.place(None) == PROMPT


def test_facts_come_from_what_the_session_polled() -> None:
    class Terminal:
        alternate_screen = False

    class Pane:
        id = "p1"
        running = True
        agent = None
        takes_keys = False
        terminal = Terminal()

    pane = Pane()
    assert facts_of(pane) == PaneFacts("p1", True, False)  # type: ignore[arg-type]
    pane.takes_keys = True
    assert facts_of(pane).reads_keys  # type: ignore[arg-type]
    pane.takes_keys, pane.terminal.alternate_screen = False, True
    assert facts_of(pane).reads_keys  # type: ignore[arg-type]
    pane.terminal.alternate_screen, pane.agent = False, object()
    assert facts_of(pane).reads_keys  # type: ignore[arg-type]  # an agent, before its first poll
    pane.running = False
    assert facts_of(pane) == PaneFacts("p1", False, False)  # type: ignore[arg-type]
