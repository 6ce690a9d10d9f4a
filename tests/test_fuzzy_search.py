"""Ranking many rows in tiers: the bulk search must agree with tiering each row by itself."""

from __future__ import annotations

import random

import pytest

from dsh.resume.fuzzy import fold
from dsh.resume.search import SUBSTRING, WHOLE_PHRASE, WHOLE_WORDS, WORD_STARTS, FuzzyIndex, Query

WORDS = "fix login bug parser test resume picker store index pane agent claude codex refactor docs".split()


def _rows(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        rows.append(f"{title} · pytest tests/test_{rng.choice(WORDS)}.py · s{i:05x} · ~/src/proj{i % 37}")
    return rows


def _brute(query: str, texts: list[str]) -> list[int]:
    """Each row tiered by itself: tier, then score (tier 4 only), then newest (row order) first."""
    q = Query(query)
    ranked = []
    for row, text in enumerate(texts):
        found = q.tier(text, fold(text))
        if found is not None:
            ranked.append((found[0], -found[1], row))
    return [row for *_, row in sorted(ranked)]


def _finish(index: FuzzyIndex, query: str) -> list[int]:
    ranking = index.search(query)
    while ranking.refine(1.0):
        pass
    assert ranking.complete
    return ranking.rows()


QUERIES = ["fix", "fx", "proj1", "log fix", "pars tst", "/src", "Fix", "s0a", "zzz", "-", "fix login", "tst_pk"]


def test_full_ranking_matches_tiering_each_row() -> None:
    texts = _rows(600)
    index = FuzzyIndex(texts)
    for query in QUERIES:
        assert _finish(index, query) == _brute(query, texts), query


def test_narrowing_while_typing_gives_the_same_result() -> None:
    texts = _rows(400, seed=3)
    index = FuzzyIndex(texts)
    for query in ["proj12", "fix log"]:
        for k in range(1, len(query) + 1):
            ranking = index.search(query[:k])
            ranking.refine(0.0)  # leave it unfinished, as a fast typist would
        ranking = index.search(query)
        while ranking.refine(1.0):
            pass
        assert ranking.rows() == _brute(query, texts), query


def test_a_chunk_of_rows_needing_fuzzy_scores_is_tiered_a_slice_per_look_at_the_clock() -> None:
    """A longer query narrowed from a shorter one's survivors: every row of a chunk passes the filters and
    needs a fuzzy score (13 ms for 256), so a keystroke's refine stops inside the chunk and goes on later."""
    texts = [f"feature {i:04d} lamp amber moth" for i in range(600)]
    index = FuzzyIndex(texts)
    ranking = index.search("flam")
    ranking.refine(0.0)
    assert not ranking.complete and 0 < ranking.known() <= 32  # one slice of the first chunk's 256
    steps = 1
    while ranking.refine(0.0):
        steps += 1
    assert steps > len(texts) // 256 + 1  # more looks at the clock than chunks
    assert ranking.rows() == _brute("flam", texts) == _finish(FuzzyIndex(texts), "flam")
    assert ranking.narrowed() == list(range(len(texts)))


def test_an_exact_phrase_leads_fuzzy_noise_and_substrings() -> None:
    texts = [
        "now · and · dad a test target",  # scattered letters only (newest)
        "snow adder a testing targets",  # every term a substring, no whole word
        "add a test · now target",  # every term a whole word, not as a phrase
        "codex · now add a test target · older",  # the phrase, word for word (oldest)
    ]
    index = FuzzyIndex(texts)
    q = Query("now add a test target")
    assert [q.tier(t, t.lower())[0] for t in texts[1:]] == [SUBSTRING, WHOLE_WORDS, WHOLE_PHRASE]
    assert _finish(index, "now add a test target")[:3] == [3, 2, 1]


def test_scattered_letters_are_below_the_floor() -> None:
    # `lazy` once matched rows with no `z` but an id ending in Z: letters spread over a row never count.
    texts = ["20261129T101500Z-a1b2 · fix login · claude", "a lazy afternoon", "l a z y scattered", "lazily"]
    index = FuzzyIndex(texts)
    # The whole word, then word starts, then a sub-sequence in two runs ("laz" "y"); the id row not at all.
    assert _finish(index, "lazy") == [1, 2, 3]
    assert Query("lazy").tier(texts[0], texts[0].lower()) is None
    flaky = "the flaky test"
    assert Query("flky").tier(flaky, flaky) is not None  # two runs of two letters: kept


def test_word_starts_rank_above_a_plain_subsequence() -> None:
    texts = ["the flamingos etc", "flamingo checkout race"]  # the first: "c" in the middle of a word
    q = Query("flamingoc")
    assert q.tier(texts[1], texts[1])[0] == WORD_STARTS
    assert _finish(FuzzyIndex(texts), "flamingoc")[0] == 1


def test_ties_go_newest_first_whatever_the_length() -> None:
    texts = ["fix it · a longer first line typed", "fix it", "fix it · mid"]  # newest first
    assert _finish(FuzzyIndex(texts), "fix") == [0, 1, 2]


def test_whole_phrase_rows_make_an_exact_head_without_scanning(monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh.resume import search as search_mod

    monkeypatch.setattr(search_mod, "_QUICK_ROWS", 0)  # the joined text is searched first at any size
    texts = _rows(2000, seed=5)
    index = FuzzyIndex(texts)
    ranking = index.search("fix", want=20)
    assert ranking.exact(20)
    assert ranking.head(20) == _brute("fix", texts)[:20]


def test_a_head_without_enough_whole_words_is_exact_once_refined() -> None:
    texts = _rows(2000, seed=5)
    index = FuzzyIndex(texts)
    ranking = index.search("fxlg", want=20)
    assert not ranking.exact(20)
    while ranking.refine(0.001):
        pass
    assert ranking.exact(20)
    assert ranking.head(20) == _brute("fxlg", texts)[:20]


def test_boosted_rows_take_their_better_tier() -> None:
    texts = ["alpha beta", "gamma", "alphabet soup"]
    index = FuzzyIndex(texts)
    ranking = index.search("alpha")
    while ranking.refine(1.0):
        pass
    assert ranking.rows() == [0, 2]
    ranking.boost({1: WHOLE_PHRASE, 2: WHOLE_PHRASE})  # their typed lines hold the word whole
    assert ranking.rows() == [0, 1, 2]


def test_empty_query_lists_rows_in_given_order() -> None:
    index = FuzzyIndex(["b", "a", "c"])
    ranking = index.search("  ")
    assert ranking.complete
    assert ranking.rows() == [0, 1, 2]


def test_highlight_marks_what_put_the_row_in_its_tier() -> None:
    text = "tests for the test target"
    assert Query("test").positions(text) == tuple(range(14, 18))  # the whole word, not the prefix of "tests"
    assert Query("for the").positions(text) == tuple(range(6, 13))


@pytest.mark.parametrize("slice_rows", [1, 3, 7, 100_000])
def test_the_index_built_in_slices_equals_the_index_built_whole(
    slice_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.resume import search as search_mod

    rng = random.Random(slice_rows)
    alphabet = ["a", "B", " ", "\t", "é", "_", "-", "1", "ß", "Σ"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(200)]
    monkeypatch.setattr(search_mod, "_BUILD_SLICE", 100_000)
    whole = FuzzyIndex(texts)
    monkeypatch.setattr(search_mod, "_BUILD_SLICE", slice_rows)
    sliced = FuzzyIndex(texts)
    assert sliced.lower == whole.lower
    assert sliced._joined.text == whole._joined.text
    assert sliced._joined.starts == whole._joined.starts
    for query in ("a", "b a", "é", "ss", "Σ1"):
        assert _finish(sliced, query) == _finish(whole, query) == _brute(query, texts), query


@pytest.mark.parametrize("odd", ["line\nbreak", "İstanbul"])
def test_rows_that_cannot_be_joined_take_the_row_by_row_way_in_any_slice(
    odd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.resume import search as search_mod

    texts = [f"row {i}" for i in range(10)] + [odd] + [f"more {i}" for i in range(10)]
    monkeypatch.setattr(search_mod, "_BUILD_SLICE", 4)
    index = FuzzyIndex(texts)
    assert len(index.lower) == len(texts)
    assert _finish(index, odd.split()[0][:4]) != []
