"""Ranking many rows: the bulk search must agree with scoring each row by itself."""

from __future__ import annotations

import random

import pytest

from dsh.resume.fuzzy import match
from dsh.resume.search import FuzzyIndex

WORDS = "fix login bug parser test resume picker store index pane agent claude codex refactor docs".split()


def _rows(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        rows.append(f"{title} pytest tests/test_{rng.choice(WORDS)}.py s{i:05x} ~/src/proj{i % 37}")
    return rows


def _brute(query: str, texts: list[str]) -> list[int]:
    scored = []
    for row, text in enumerate(texts):
        found = match(query, text)
        if found is not None:
            scored.append((-found.score, len(text), row))
    return [row for *_, row in sorted(scored)]


def _finish(index: FuzzyIndex, query: str) -> list[int]:
    ranking = index.search(query)
    while ranking.refine(1.0):
        pass
    assert ranking.complete
    return ranking.rows()


QUERIES = ["fix", "fx", "proj1", "log fix", "pars tst", "/src", "Fix", "s0a", "zzz", "-"]


def test_full_ranking_matches_brute_force() -> None:
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


def test_leading_rows_make_an_exact_head_without_scoring() -> None:
    texts = _rows(2000, seed=5)
    index = FuzzyIndex(texts)
    ranking = index.search("fix", want=20)
    assert ranking.exact(20)
    assert ranking.known() == 20  # the leading rows found, nothing scored yet
    assert ranking.head(20) == _brute("fix", texts)[:20]


def test_sparse_leading_rows_leave_the_head_provisional_until_refined() -> None:
    texts = _rows(2000, seed=5)
    index = FuzzyIndex(texts)
    ranking = index.search("fxlg", want=20)
    assert not ranking.exact(20)
    while ranking.refine(0.001):
        pass
    assert ranking.exact(20)
    assert ranking.head(20) == _brute("fxlg", texts)[:20]


def test_empty_query_lists_rows_in_given_order() -> None:
    index = FuzzyIndex(["b", "a", "c"])
    ranking = index.search("  ")
    assert ranking.complete
    assert ranking.rows() == [0, 1, 2]


def test_ties_prefer_shorter_then_newer() -> None:
    texts = ["fix it now", "fix it", "fix it"]  # newest first
    index = FuzzyIndex(texts)
    assert _finish(index, "fix") == [1, 2, 0]


def test_match_for_highlighting_uses_callers_row_numbers() -> None:
    texts = ["zzz long long text", "ab"]
    index = FuzzyIndex(texts)
    found = index.match("ab", 1)
    assert found is not None and found.positions == (0, 1)
    assert index.match("ab", 0) is None


def test_provisional_head_keeps_leading_rows_found_ahead_of_the_scan() -> None:
    # Short rows that match weakly come first in tie-break order; the strong (leading) rows are long.
    texts = [f"xlxoxg {i}" for i in range(300)] + [f"log entry number {i} " + "pad " * 10 for i in range(8)]
    index = FuzzyIndex(texts)
    ranking = index.search("log", want=5)
    assert ranking.exact(5) and not ranking.exact(12)
    ranking.refine(0.0)  # one chunk: none of the long rows reached yet
    head = ranking.head(12)
    assert head[:5] == _brute("log", texts)[:5]
    while ranking.refine(1.0):
        pass
    assert ranking.head(12) == _brute("log", texts)[:12]


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
    assert sliced._lower == whole._lower
    assert sliced._spaced_lower == whole._spaced_lower
    assert sliced._joined_lower.text == whole._joined_lower.text
    assert sliced._joined_lower.starts == whole._joined_lower.starts
    for query in ("a", "b a", "é", "ss", "Σ1"):
        assert sliced.search(query).rows() == whole.search(query).rows()


@pytest.mark.parametrize("odd", ["line\nbreak", "İstanbul"])
def test_rows_that_cannot_be_joined_take_the_row_by_row_way_in_any_slice(
    odd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.resume import search as search_mod

    texts = [f"row {i}" for i in range(10)] + [odd] + [f"more {i}" for i in range(10)]
    monkeypatch.setattr(search_mod, "_BUILD_SLICE", 4)
    index = FuzzyIndex(texts)
    assert len(index._lower) == len(index._spaced_lower) == len(texts)
    assert index.search(odd.split()[0][:4]).rows() != []
