"""Key presses and pastes to child bytes, table-driven against prompt_toolkit's key names."""

from __future__ import annotations

import pytest
from prompt_toolkit.keys import Keys

from dsh.term.key_bytes import KEYPAD_SEQUENCES, key_to_bytes, paste_bytes

TABLE: list[tuple[str, str, bool, bytes | None]] = [
    (Keys.Up, "", False, b"\x1b[A"),
    (Keys.Down, "", False, b"\x1b[B"),
    (Keys.Right, "", False, b"\x1b[C"),
    (Keys.Left, "", False, b"\x1b[D"),
    (Keys.Up, "", True, b"\x1bOA"),
    (Keys.Left, "", True, b"\x1bOD"),
    (Keys.Home, "", False, b"\x1b[H"),
    (Keys.End, "", False, b"\x1b[F"),
    (Keys.Home, "", True, b"\x1bOH"),
    (Keys.End, "", True, b"\x1bOF"),
    (Keys.ControlLeft, "", False, b"\x1b[1;5D"),
    (Keys.ControlLeft, "", True, b"\x1b[1;5D"),
    (Keys.ShiftRight, "", False, b"\x1b[1;2C"),
    (Keys.ControlShiftUp, "", False, b"\x1b[1;6A"),
    (Keys.Insert, "", False, b"\x1b[2~"),
    (Keys.Delete, "", False, b"\x1b[3~"),
    (Keys.ControlDelete, "", False, b"\x1b[3;5~"),
    (Keys.PageUp, "", False, b"\x1b[5~"),
    (Keys.PageDown, "", False, b"\x1b[6~"),
    (Keys.ShiftPageUp, "", False, b"\x1b[5;2~"),
    (Keys.F1, "", False, b"\x1bOP"),
    (Keys.F4, "", False, b"\x1bOS"),
    (Keys.F5, "", False, b"\x1b[15~"),
    (Keys.F10, "", False, b"\x1b[21~"),
    (Keys.F11, "", False, b"\x1b[23~"),
    (Keys.F12, "", False, b"\x1b[24~"),
    (Keys.F13, "", False, b"\x1b[1;2P"),
    (Keys.ControlF5, "", False, b"\x1b[15;5~"),
    (Keys.ControlA, "", False, b"\x01"),
    (Keys.ControlC, "", False, b"\x03"),
    (Keys.ControlZ, "", False, b"\x1a"),
    (Keys.ControlAt, "", False, b"\x00"),
    (Keys.ControlBackslash, "", False, b"\x1c"),
    (Keys.ControlSquareClose, "", False, b"\x1d"),
    (Keys.Backspace, "\x7f", False, b"\x7f"),
    (Keys.Backspace, "", False, b"\x7f"),
    (Keys.ControlH, "\x08", False, b"\x08"),  # C-h is BS; prompt_toolkit names both c-h
    (Keys.Enter, "\r", False, b"\r"),
    (Keys.ControlJ, "\n", False, b"\n"),
    (Keys.Tab, "\t", False, b"\t"),
    (Keys.BackTab, "", False, b"\x1b[Z"),
    (Keys.Escape, "\x1b", False, b"\x1b"),
    (Keys.Any, "a", False, b"a"),
    (Keys.Any, "é", False, "é".encode()),
    (Keys.Any, "", False, None),
    ("<", "<", False, b"<"),  # the `<` key is named "<", not a "<...>" event
    (">", ">", False, b">"),
    (Keys.ScrollUp, "", False, None),
    (Keys.CPRResponse, "\x1b[1;1R", False, None),
    ("c-1", "", False, None),
]


@pytest.mark.parametrize(("key", "data", "app_cursor", "expected"), TABLE)
def test_key_to_bytes(key: str, data: str, app_cursor: bool, expected: bytes | None) -> None:
    assert key_to_bytes(key, data, app_cursor=app_cursor) == expected
    assert key_to_bytes(key.value if isinstance(key, Keys) else key, data, app_cursor=app_cursor) == expected


def test_alt_combination_is_escape_then_key() -> None:
    assert (key_to_bytes(Keys.Escape) or b"") + (key_to_bytes(Keys.Any, "b") or b"") == b"\x1bb"


def test_keypad_keys_follow_application_keypad_mode() -> None:
    assert key_to_bytes("kp-1") == b"1"
    assert key_to_bytes("kp-1", app_keypad=True) == b"\x1bOq"
    assert key_to_bytes("kp-enter") == b"\r"
    assert key_to_bytes("kp-enter", app_keypad=True) == b"\x1bOM"
    assert key_to_bytes("kp--", app_keypad=True) == b"\x1bOm"
    # the outer terminal's sequences name the same keys
    assert KEYPAD_SEQUENCES["\x1bOq"] == "kp-1"
    assert {key_to_bytes(name, app_keypad=True) for name in KEYPAD_SEQUENCES.values()} == {
        seq.encode() for seq in KEYPAD_SEQUENCES
    }


def test_paste_plain_turns_newlines_into_cr() -> None:
    assert paste_bytes("a\nb\r\nc", bracketed=False) == b"a\rb\rc"


def test_paste_bracketed_wraps_and_cannot_break_out() -> None:
    assert paste_bytes("ls\n", bracketed=True) == b"\x1b[200~ls\r\x1b[201~"
    assert paste_bytes("x\x1b[201~rm -rf ~\n", bracketed=True) == b"\x1b[200~xrm -rf ~\r\x1b[201~"


def test_a_byte_that_was_not_utf8_goes_out_as_that_byte() -> None:
    from dsh.term.key_bytes import paste_bytes, typed_bytes

    typed = b"caf\xe9".decode("utf-8", "surrogateescape")  # as prompt_toolkit reads a Latin-1 é
    assert key_to_bytes("<any>", typed) == b"caf\xe9"
    assert paste_bytes(typed, bracketed=False) == b"caf\xe9"
    assert typed_bytes("\ud800x") == b"?x"  # a surrogate no byte maps to: replaced, never a crash
