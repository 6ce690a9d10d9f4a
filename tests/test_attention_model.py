"""The attention model: sources ranked, one notice per transition, repeats said once, a clock set back."""

from __future__ import annotations

from dsh.attention.model import HOOK, PROCESS, STRONGER_WINDOW, TERMINAL, Attention, Report, one_line
from dsh.attention.states import BLOCKED, DONE, EXITED, IDLE, WORKING, age, counts_line, most_urgent


def test_a_hook_moves_the_state_and_a_transition_into_blocked_or_done_is_a_notice() -> None:
    a = Attention(IDLE, since=0.0)
    assert a.apply(Report(WORKING, HOOK, "fix the tests"), 10.0) is False  # working tells nobody
    assert (a.state, a.since, a.message) == (WORKING, 10.0, "fix the tests")
    assert a.apply(Report(BLOCKED, HOOK, "allow Bash: rm x"), 20.0) is True
    assert (a.state, a.since, a.message) == (BLOCKED, 20.0, "allow Bash: rm x")
    assert a.apply(Report(BLOCKED, HOOK, "allow Bash: rm x"), 21.0) is None  # the same again: nothing
    assert a.apply(Report(DONE, HOOK, "All green."), 30.0) is True


def test_a_weaker_source_never_overrides_a_stronger_one_s_recent_report() -> None:
    a = Attention(IDLE, since=0.0)
    a.apply(Report(BLOCKED, HOOK, "allow Edit"), 100.0)
    # The title's spinner (terminal) and the process say otherwise within the window: not believed.
    assert a.apply(Report(WORKING, TERMINAL), 100.0 + STRONGER_WINDOW - 1) is None
    assert a.apply(Report(IDLE, PROCESS), 150.0) is None
    assert a.state == BLOCKED
    # After the window, a hook that went quiet no longer holds the pane.
    assert a.apply(Report(WORKING, TERMINAL), 100.0 + STRONGER_WINDOW + 1) is False
    assert a.state == WORKING


def test_an_exit_is_final_whoever_spoke_last() -> None:
    a = Attention(IDLE, since=0.0)
    a.apply(Report(WORKING, HOOK), 5.0)
    assert a.apply(Report(EXITED, PROCESS, quiet=True), 6.0) is False
    assert a.state == EXITED


def test_a_clock_set_back_does_not_shut_a_weaker_source_out() -> None:
    a = Attention(IDLE, since=0.0)
    a.apply(Report(BLOCKED, HOOK, "?"), 10_000.0)
    # now is before the hook's report (the clock went back an hour): the report counts as old.
    assert a.apply(Report(WORKING, TERMINAL), 10_000.0 - 3600) is False
    assert a.state == WORKING


def test_the_same_ask_within_a_minute_is_one_notice_and_a_new_ask_is_another() -> None:
    a = Attention(IDLE, since=0.0)
    assert a.apply(Report(BLOCKED, HOOK, "allow Bash: ls"), 0.0) is True
    a.apply(Report(WORKING, HOOK), 5.0)
    assert a.apply(Report(BLOCKED, HOOK, "allow Bash: ls"), 10.0) is False  # changed, said once
    assert a.state == BLOCKED
    assert a.apply(Report(BLOCKED, HOOK, "allow Bash: rm"), 11.0) is True
    a.apply(Report(WORKING, HOOK), 12.0)
    assert a.apply(Report(BLOCKED, HOOK, "allow Bash: rm"), 12.0 + 61) is True


def test_subagents_are_silent_and_their_turn_ending_is_not_the_agent_s() -> None:
    a = Attention(IDLE, since=0.0)
    a.apply(Report(WORKING, HOOK), 1.0)
    assert a.apply(Report(DONE, HOOK, "sub done", subagent=True), 2.0) is None
    assert a.state == WORKING
    # A subagent asking for a permission does block the agent, but tells nobody.
    assert a.apply(Report(BLOCKED, HOOK, "allow Read", subagent=True), 3.0) is False
    assert a.state == BLOCKED


def test_looking_at_a_done_pane_makes_it_idle_and_keeps_its_line() -> None:
    a = Attention(IDLE, since=0.0)
    a.apply(Report(DONE, HOOK, "Fixed."), 1.0)
    assert a.seen(2.0) is True
    assert (a.state, a.message, a.since) == (IDLE, "Fixed.", 2.0)
    assert a.seen(3.0) is False  # only done is seen


def test_an_unknown_state_is_refused() -> None:
    a = Attention(IDLE, since=0.0)
    assert a.apply(Report("sleeping", HOOK), 1.0) is None
    assert a.state == IDLE


def test_one_line_makes_any_message_one_bounded_safe_line() -> None:
    assert one_line("line one\n\nline  two\t!") == "line one line two !"
    assert one_line("\x1b]0;evil\x07x") == "^[]0;evil^Gx"
    assert one_line("abc\u202eevil") == "abc\\u202eevil"
    assert len(one_line("x" * 10_000_000) or "") == 200
    assert one_line("   ") is None and one_line(None) is None and one_line(42) is None


def test_states_roll_up_most_urgent_first_and_count_for_the_status_line() -> None:
    assert most_urgent([IDLE, WORKING, DONE]) == DONE
    assert most_urgent([WORKING, BLOCKED, DONE]) == BLOCKED
    assert most_urgent([None, "bogus"]) is None
    assert counts_line([BLOCKED, BLOCKED, WORKING, WORKING, WORKING, IDLE]) == "2 need you · 3 working"
    assert counts_line([BLOCKED, DONE]) == "1 needs you · 1 done"
    assert counts_line([IDLE, EXITED, None]) == ""
    assert [age(5), age(185), age(7300), age(-40), age(90000)] == ["5s", "3m", "2h", "0s", "1d"]
