"""The fzf-like matcher: subsequence, smart case, boundary and run bonuses, gap penalties, AND of terms."""

from __future__ import annotations

import itertools
import random

from dsh.resume.fuzzy import (
    BONUS_BOUNDARY,
    BONUS_CONSECUTIVE,
    FIRST_CHAR_MULTIPLIER,
    GAP_EXTEND,
    GAP_START,
    SCORE_MATCH,
    bonus_at,
    fold,
    match,
    max_term_score,
    score_term,
)


def test_subsequence_in_order_only() -> None:
    found = match("abc", "aXbXc")
    assert found is not None
    assert found.positions == (0, 2, 4)
    assert match("ba", "ab") is None
    assert match("abcd", "abc") is None


def test_smart_case() -> None:
    assert match("foo", "FOO") is not None
    assert match("Foo", "foo") is None
    found = match("Foo", "foo Foo")
    assert found is not None
    assert found.positions == (4, 5, 6)


def test_boundary_bonuses_follow_fzf() -> None:
    assert bonus_at("ab", 0) == 10  # the start counts as after whitespace
    assert bonus_at("a b", 2) == 10
    assert bonus_at("a/b", 2) == 9
    for sep in ",:;|":
        assert bonus_at(f"a{sep}b", 2) == 9
    for sep in "-_.":
        assert bonus_at(f"a{sep}b", 2) == 8
    assert bonus_at("aB", 1) == 7  # camelCase
    assert bonus_at("a1", 1) == 7
    assert bonus_at("ab", 1) == 0


def test_exact_scores() -> None:
    # A run right after whitespace: 16 per char, first bonus doubled, the run carries it.
    assert match("dsh", "dsh resume").score == max_term_score(3) == 16 * 3 + 10 * 4
    # Consecutive characters inside a word earn at least +4.
    assert match("ab", "xab").score == 16 + 0 + 16 + 4
    # A gap of two costs 3 + 1.
    assert match("ab", "a_xb").score == (16 + 20) - 4 + 16


def test_best_alignment_not_first() -> None:
    found = match("fb", "xfxb foo bar")
    assert found is not None
    assert found.positions == (5, 9)


def test_boundaries_and_runs_rank_higher() -> None:
    word_start = match("log", "fix login").score
    mid_word = match("log", "backlog fix").score
    scattered = match("log", "xlxxoxxg").score
    assert word_start > mid_word > scattered
    assert match("fb", "foo_bar").score > match("fb", "xfxbx").score


def test_terms_are_anded() -> None:
    found = match("fix login", "login bug fix")
    assert found is not None
    assert found.positions == (0, 1, 2, 3, 4, 10, 11, 12)
    assert match("fix zzz", "login bug fix") is None


def test_empty_query_matches_everything() -> None:
    found = match("   ", "anything")
    assert found is not None
    assert found.score == 0 and found.positions == ()


def test_fold_keeps_positions() -> None:
    text = "İstanbul Fix"
    assert len(fold(text)) == len(text)
    found = match("fix", text)
    assert found is not None
    assert [text[p] for p in found.positions] == ["F", "i", "x"]


def _score_of(text: str, positions: tuple[int, ...]) -> int:
    """fzf's calculateScore for given positions: the reference the aligner must agree with."""
    score = first_bonus = run = 0
    for j, p in enumerate(positions):
        if j and p - positions[j - 1] > 1:
            score += GAP_START + GAP_EXTEND * (p - positions[j - 1] - 2)
            run = first_bonus = 0
        bonus = bonus_at(text, p)
        if run == 0:
            first_bonus = bonus
        else:
            if bonus >= BONUS_BOUNDARY and bonus > first_bonus:
                first_bonus = bonus
            bonus = max(bonus, first_bonus, BONUS_CONSECUTIVE)
        score += SCORE_MATCH + (bonus * FIRST_CHAR_MULTIPLIER if j == 0 else bonus)
        run += 1
    return score


def test_alignment_is_the_best_of_all_alignments() -> None:
    rng = random.Random(3)
    checked = 0
    for _ in range(4000):
        text = "".join(rng.choice("abAB _/-1") for _ in range(rng.randint(1, 10)))
        term = "".join(rng.choice("ab1") for _ in range(rng.randint(1, 4)))
        hay = fold(text)
        scores = [
            _score_of(text, combo)
            for combo in itertools.combinations(range(len(text)), len(term))
            if all(hay[p] == term[j] for j, p in enumerate(combo))
        ]
        found = score_term(term, text, hay)
        if not scores:
            assert found is None, (term, text)
            continue
        checked += 1
        assert found is not None, (term, text)
        assert found[0] == max(scores), (term, text)
        assert _score_of(text, found[1]) == found[0], (term, text)
    assert checked > 500
