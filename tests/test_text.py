from dsh.text import sanitize


def test_escape_sequences_are_shown_not_interpreted() -> None:
    assert sanitize("a\x1b[31mred\x07") == "a^[[31mred^G"


def test_c1_and_del_are_escaped() -> None:
    assert sanitize("x\x9by\x7f") == "x\\x9by\\x7f"


def test_newlines_and_tabs() -> None:
    assert sanitize("one\ntwo\tthree\r") == "one\\ntwo three\\r"


def test_cap_ends_with_ellipsis() -> None:
    assert sanitize("abcdefgh", max_len=5) == "abcd…"
    assert sanitize("abc", max_len=5) == "abc"


def test_plain_unicode_is_kept() -> None:
    assert sanitize("café 日本") == "café 日本"
