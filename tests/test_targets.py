"""Naming sessions and panes as people type them: ids, unique starts of ids, titles and their slugs."""

from __future__ import annotations

import pytest

from dsh.store.targets import Candidate, TargetError, resolve, slug

A = Candidate("20261129T203000Z-3f9a1c", "API work", value="a")
B = Candidate("20261129T210000Z-77beef", "api tests", value="b")
C = Candidate("20261130T080000Z-3f0000", "", value="c")
ALL = [A, B, C]


def test_exact_id_wins_and_hands_back_the_value() -> None:
    assert resolve("20261129T203000Z-3f9a1c", ALL).value == "a"


def test_a_unique_start_of_the_id_or_of_its_random_part() -> None:
    assert resolve("20261130", ALL) is C
    assert resolve("77b", ALL) is B
    assert resolve("3f9", ALL) is A


def test_an_ambiguous_start_lists_the_candidates_and_picks_none() -> None:
    with pytest.raises(TargetError) as caught:
        resolve("2026112", ALL)
    assert {c.id for c in caught.value.candidates} == {A.id, B.id}
    assert "API work" in str(caught.value) and "could be any of 2" in str(caught.value)
    with pytest.raises(TargetError):
        resolve("3f", ALL)  # 3f9a1c and 3f0000


def test_titles_by_exact_title_slug_and_unique_start_of_slug() -> None:
    assert resolve("API work", ALL) is A
    assert resolve("api-work", ALL) is A
    assert resolve("API-TESTS", ALL) is B
    assert resolve("api-t", ALL) is B
    with pytest.raises(TargetError) as caught:
        resolve("api", ALL)
    assert len(caught.value.candidates) == 2


def test_an_id_start_beats_a_title_start() -> None:
    titled = Candidate("s2", "abc")
    other = Candidate("abc-1", "")
    assert resolve("ab", [titled, other]) is other


def test_unknown_empty_and_hostile_words_are_one_clean_line() -> None:
    for word in ("nope", "", "\x1b[31mred"):
        with pytest.raises(TargetError) as caught:
            resolve(word, ALL)
        assert "\x1b" not in str(caught.value) and "\n" not in str(caught.value)
        assert caught.value.candidates == []
    with pytest.raises(TargetError):
        resolve("x", [])


def test_titles_in_messages_are_sanitized_and_duplicates_count_once() -> None:
    evil = [Candidate("s1", "a\x1b]0;pwned\x07"), Candidate("s12", "b"), Candidate("s1", "again")]
    with pytest.raises(TargetError) as caught:
        resolve("s", evil, what="pane")
    assert "\x1b" not in str(caught.value) and "\x07" not in str(caught.value)
    assert len(caught.value.candidates) == 2 and "panes" in str(caught.value)


def test_slug() -> None:
    assert slug("  My API — work!! ") == "my-api-work"
    assert slug("") == ""
