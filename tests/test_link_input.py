"""LinkInput: a client's key bytes reach the application within the callback that received them."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.keys import Keys

from dsh.ui.link_input import LinkInput


def test_fed_bytes_are_read_before_feed_returns() -> None:
    keys = LinkInput()
    seen: list[str] = []
    with keys.attach(lambda: seen.extend(press.key for press in keys.read_keys())):
        keys.feed(b"ab\x1b[A")
        assert seen == ["a", "b", Keys.Up]  # no turn of the event loop in between


def test_a_lone_escape_waits_for_the_flush() -> None:
    keys = LinkInput()
    calls: list[int] = []
    with keys.attach(lambda: calls.append(len(keys.read_keys()))):
        keys.feed(b"\x1b")
        assert calls == [0]  # told, so it can start the timer that flushes a lone Escape
        assert [press.key for press in keys.flush_keys()] == [Keys.Escape]


def test_bytes_that_are_not_utf8_pass_as_surrogate_escapes_and_split_characters_join() -> None:
    keys = LinkInput()
    got: list[str] = []
    with keys.attach(lambda: got.extend(press.data for press in keys.read_keys())):
        keys.feed(b"\xff")
        keys.feed("é".encode()[:1])
        keys.feed("é".encode()[1:])
    assert got == ["\udcff", "é"]


def test_keys_typed_before_the_application_listens_are_delivered_once_it_does() -> None:
    async def main() -> list[str]:
        keys = LinkInput()
        keys.feed(b"early")
        got: list[str] = []
        with keys.attach(lambda: got.extend(press.key for press in keys.read_keys())):
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        return got

    assert "".join(asyncio.run(main())) == "early"


def test_while_detached_keys_wait_and_a_closed_input_takes_no_more() -> None:
    keys = LinkInput()
    got: list[str] = []
    with keys.attach(lambda: got.extend(press.key for press in keys.read_keys())):
        with keys.detach():
            keys.feed(b"x")
            assert got == []
        keys.feed(b"y")
        assert got == ["x", "y"]
        keys.close()
        assert keys.closed
        keys.feed(b"z")
        assert got == ["x", "y"]


def test_held_keys_wait_in_order_until_ready_or_the_limit() -> None:
    async def main() -> tuple[list[str], list[str], list[str]]:
        keys = LinkInput()
        got: list[str] = []
        ready = asyncio.Event()
        with keys.attach(lambda: got.extend(press.data for press in keys.read_keys())):
            keys.hold_until(ready.wait(), limit=5.0)
            keys.feed(b"\x1b[A")  # Up, pressed as soon as the first frame showed
            keys.feed(b"x")
            await asyncio.sleep(0.05)
            while_held = got[:]
            ready.set()  # the history is in the prompt's buffer
            await asyncio.sleep(0.01)
            released = got[:]

            late = LinkInput()
            late_got: list[str] = []
            with late.attach(lambda: late_got.extend(press.data for press in late.read_keys())):
                late.hold_until(asyncio.Event().wait(), limit=0.05)  # never ready
                late.feed(b"y")
                await asyncio.sleep(0.2)
        return while_held, released, late_got

    while_held, released, late_got = asyncio.run(main())
    assert while_held == []
    assert released == ["\x1b[A", "x"]
    assert late_got == ["y"]  # not held for ever


def test_a_paste_whose_end_never_came_lets_the_next_keys_through(monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.ui import link_input

    clock = [100.0]
    monkeypatch.setattr(link_input.time, "monotonic", lambda: clock[0])
    keys = LinkInput()
    got: list[tuple[str, str]] = []
    with keys.attach(lambda: got.extend((press.key, press.data) for press in keys.read_keys())):
        keys.feed(b"\x1b[200~half a paste")  # the terminal's end mark was lost
        keys.feed(b" more")  # still streaming: part of the paste
        assert got == []
        clock[0] += link_input.PASTE_GAP_SECONDS + 0.1
        keys.feed(b"x")  # a key typed after the pause
        assert got == [(Keys.BracketedPaste, "half a paste more"), ("x", "x")]
        keys.feed(b"\x1b[200~whole\x1b[201~y")  # and a whole paste still is one
        assert got[2:] == [(Keys.BracketedPaste, "whole"), ("y", "y")]


def test_a_huge_paste_is_handed_over_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.ui import link_input

    monkeypatch.setattr(link_input, "PASTE_MAX_CHARS", 10)
    keys = LinkInput()
    got: list[tuple[str, str]] = []
    with keys.attach(lambda: got.extend((press.key, press.data) for press in keys.read_keys())):
        keys.feed(b"\x1b[200~" + b"a" * 25)
        keys.feed(b"b\x1b[201~")
    assert "".join(data for _key, data in got) == "a" * 25 + "b"
    assert {key for key, _data in got} == {Keys.BracketedPaste}


def test_a_long_run_of_text_in_one_read_is_a_paste_and_keys_around_it_stay_keys() -> None:
    link = LinkInput()
    text = "x" * 300
    link.feed(b"ab")  # typed: keys
    link.feed(text.encode() + b"\r" + b"\x1b[A")  # a script's line, then Enter and Up
    keys = link.read_keys()
    assert [k.key for k in keys] == ["a", "b", Keys.BracketedPaste, Keys.ControlM, Keys.Up]
    assert keys[2].data == text
    # An escape sequence's parameters are never taken for text, however long.
    link.feed(b"\x1b]11;" + b"9" * 100 + b"\x07")
    assert all(k.key != Keys.BracketedPaste for k in link.read_keys())
    # Nor the start of a read that follows one ending inside a sequence.
    link.feed(b"\x1b[")
    link.feed(b"1;" + b"5" * 80 + b"H")
    assert all(k.key != Keys.BracketedPaste for k in link.flush_keys())
    # A bracketed paste is left to the parser, runs inside it and all.
    link.feed(b"\x1b[200~" + b"y" * 100 + b"\r" + b"z" * 100 + b"\x1b[201~")
    (paste,) = link.read_keys()
    assert paste.key == Keys.BracketedPaste and paste.data == "y" * 100 + "\r" + "z" * 100


def test_the_prompt_refuses_what_passes_its_bound_and_says_so() -> None:
    from dsh.ui.prompt_buffer import PROMPT_MAX, PromptBuffer

    refused: list[int] = []
    buffer = PromptBuffer(refused=refused.append, multiline=False)
    buffer.insert_text("a" * (PROMPT_MAX - 10))
    buffer.insert_text("b" * 25)
    assert len(buffer.text) == PROMPT_MAX and buffer.text.endswith("b" * 10) and refused == [15]
    buffer.insert_text("c")
    assert len(buffer.text) == PROMPT_MAX and refused == [15, 1]


def test_the_prompts_undo_steps_hold_a_bounded_number_of_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.ui import prompt_buffer
    from dsh.ui.prompt_buffer import PromptBuffer

    monkeypatch.setattr(prompt_buffer, "UNDO_CHARS", 100_000)
    buffer = PromptBuffer(refused=lambda n: None, multiline=False)
    for _ in range(2000):  # a key at a time, each step saved (prompt_toolkit kept every prefix)
        buffer.save_to_undo_stack()
        buffer.insert_text("ab")
    held = sum(len(text) for text, _ in buffer._undo_stack)
    assert held <= 100_000 and len(buffer._undo_stack) > 10
    buffer.undo()
    assert buffer.text == "ab" * 1999  # the newest steps are the ones kept


def test_an_application_keypad_is_read_as_keypad_keys_for_a_pane_in_that_mode_and_as_text_elsewhere() -> None:
    """SS3 p..y, M, m … (a terminal in DECKPAM) were read as Escape, O and a letter."""
    keys = LinkInput()
    keys.keypad = lambda: True
    keys.feed(b"\x1bOq\x1bOM\x1bOm.\x1bOA")
    assert [(p.key, p.data) for p in keys.read_keys()] == [
        ("kp-1", "1"),
        ("kp-enter", "\r"),
        ("kp--", "-"),
        (".", "."),
        (Keys.Up, "\x1bOA"),  # application cursor keys are still cursor keys
    ]
    keys.keypad = lambda: False
    keys.feed(b"\x1bOq\x1bOM")
    assert [(p.key, p.data) for p in keys.read_keys()] == [("1", "1"), (Keys.ControlM, "\r")]


def test_keypad_keys_reach_the_pane_as_its_mode_asks() -> None:
    from dsh.term.key_bytes import key_to_bytes

    assert key_to_bytes("kp-1", "1", app_keypad=True) == b"\x1bOq"
    assert key_to_bytes("kp-1", "1", app_keypad=False) == b"1"
    assert key_to_bytes("kp-enter", "\r", app_keypad=False) == b"\r"
