from dsh.text import sanitize, strip_format


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


def test_bytes_that_were_not_utf8_show_as_the_byte() -> None:
    # os.fsdecode(b"/w/caf\xe9") and a typed 0xff reach dsh as lone surrogates (surrogateescape).
    shown = sanitize(b"/w/caf\xe9 \xff".decode("utf-8", "surrogateescape"))
    assert shown == "/w/caf\\xe9 \\xff"
    shown.encode("utf-8")  # printable on any UTF-8 terminal: no surrogate is left
    assert sanitize("\ud800x") == "\\ud800x"  # a surrogate no byte maps to is named as itself


def test_bidi_and_format_characters_are_escaped_visibly() -> None:
    # Trojan Source: U+202E reverses what follows; U+200B and U+2066 hide or isolate text.
    assert sanitize("a\u202eb\u200bc\u2066d\U000e0041") == "a\\u202eb\\u200bc\\u2066d\\U000e0041"
    assert sanitize("line\u2028sep") == "line\\u2028sep"


def test_joiners_that_scripts_and_emoji_need_are_kept() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert sanitize(family) == family
    assert sanitize("\u0645\u06cc\u200c\u062e\u0648\u0627\u0645") == "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645"


def test_strip_format_removes_what_reorders_or_hides_text() -> None:
    assert strip_format("evil\u202etxt.exe\u2069 \u200bhidden\ufeff") == "eviltxt.exe hidden"
    assert strip_format("a\u200db") == "a\u200db"


def test_every_format_character_of_this_python_is_covered() -> None:
    """The hard-coded list matches unicodedata (Cf, less the two joiners); a newer Unicode adds a test failure."""
    import unicodedata

    cf = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"]
    kept = {"\u200c", "\u200d"}
    missed = [f"U+{ord(c):04X}" for c in cf if c not in kept and strip_format(c) != ""]
    assert missed == []
    assert [c for c in kept if strip_format(c) != c] == []


def test_ascii_text_is_sanitized_as_the_full_class_would_without_compiling_it() -> None:
    # The full classes (charsets over the whole BMP) cost ~2.5 ms to compile on every start; ASCII text
    # takes a small class that must agree with them on each of the 128 characters.
    import subprocess
    import sys

    code = (
        "from dsh import text\n"
        "ascii = ''.join(map(chr, range(128)))\n"
        "fast = [text.sanitize(ch) for ch in ascii], text.sanitize(ascii), text.strip_format(ascii)\n"
        "print(text._unsafe.cache_info().currsize, text._format_only.cache_info().currsize)\n"
        "full = [text._unsafe().sub(text._escape, ch) for ch in ascii], text._unsafe().sub(text._escape, ascii)\n"
        "print(fast[:2] == full, fast[2] == text._format_only().sub('', ascii))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "0", "True", "True"]
