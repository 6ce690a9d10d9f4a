"""The fzf-like matcher: subsequence, smart case, boundary and run bonuses, gap penalties, AND of terms."""

from __future__ import annotations

from dsh.resume.fuzzy import bonus_at, fold, match, max_term_score


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
