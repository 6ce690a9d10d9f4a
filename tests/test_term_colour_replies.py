"""The client's terminal's answers to dsh's colour questions are taken out of the keys (whole or cut
across reads) and become what the panes' colour queries answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dsh.term import replies
from dsh.term.colour_replies import LISTEN_SECONDS, ColourReplies
from dsh.term.screen import TermScreen


@pytest.fixture(autouse=True)
def _forget() -> Iterator[None]:
    yield
    replies.LEARNED.clear()


class Clock:
    now = 100.0

    def __call__(self) -> float:
        return self.now


def test_answers_are_taken_out_and_keys_stay_in_order() -> None:
    c = ColourReplies(Clock())
    c.asked()
    data, found = c.take(b"ab\x1b]11;rgb:ffff/ffff/ffff\x1b\\cd\x1b]4;1;rgb:cd/00/00\x07e")
    assert (data, found) == (b"abcde", True)
    assert c.colours == {"bg": "ffffff", 1: "cd0000"}
    # cut across reads: the start is held, the rest completes it
    assert c.take(b"x\x1b]10;rgb:12") == (b"x", False) and c.holding()
    assert c.take(b"12/3434/5656\x1b\\y") == (b"y", True)
    assert c.colours["fg"] == "123456"
    # a lone Escape (vim's) is never held; keys that only look like a start are given back
    assert c.take(b"\x1b") == (b"\x1b", False) and not c.holding()
    assert c.take(b"\x1b]") == (b"", False) and c.flush() == b"\x1b]"


def test_nothing_is_taken_once_the_answers_are_due() -> None:
    clock = Clock()
    c = ColourReplies(clock)
    c.asked()
    clock.now += LISTEN_SECONDS + 1
    typed = b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"
    assert c.take(typed) == (typed, False)


def test_what_they_said_is_what_panes_queries_answer_new_ones_too() -> None:
    out: list[str] = []
    old = TermScreen(10, 3, write_process_input=out.append)
    replies.learn_colours({"bg": "ffffff", 1: "aa0000"}, [old])
    new = TermScreen(10, 3, write_process_input=out.append)
    for screen in (old, new):
        screen.feed(b"\x1b]11;?\x07\x1b]4;1;?\x07\x1b]10;?\x07")
    assert (
        out
        == ["\x1b]11;rgb:ffff/ffff/ffff\x07", "\x1b]4;1;rgb:aaaa/0000/0000\x07", "\x1b]10;rgb:e5e5/e5e5/e5e5\x07"] * 2
    )
